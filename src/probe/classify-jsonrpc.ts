/**
 * JSON-RPC GetTask answer → state (docs/conditions.md, "Interface reasons"). The proof that the binding is served is the
 * A2A TaskNotFound error (-32001) for an id that cannot exist.
 */
import { InterfaceState } from '../api/conditions.js';
import {
  authVerdict,
  httpEvidence,
  errorInfoReasons,
  parseJsonBody,
  type HttpAnswer,
  type HttpProbeContext,
} from './http-answer.js';
import type { Verdict } from './probe-result.js';
import { clip, errorInfoReason, verdict } from './verdict.js';

export const JsonRpcCode = {
  TaskNotFound: -32001,
  /** ExtensionSupportRequiredError: the handler was reached and wants an extension (§3.3.4, §5.4). */
  ExtensionSupportRequired: -32008,
  VersionNotSupported: -32009,
  MethodNotFound: -32601,
  Internal: -32603,
  /** Custom auth codes (a2a-go): spec §3.3.2 allows a "JSON-RPC custom error" for auth failures. */
  Unauthenticated: -31401,
  PermissionDenied: -31403,
} as const;

/**
 * ErrorInfo reasons that say "credentials" whatever the code: the google.rpc.Code names the spec
 * maps auth to, and UNAUTHORIZED, which a2a-go writes with -31403.
 */
const AUTH_REASONS = new Set(['UNAUTHENTICATED', 'PERMISSION_DENIED', 'UNAUTHORIZED']);

/** The ErrorInfo reason of ExtensionSupportRequiredError on every binding. */
export const EXTENSION_REQUIRED = 'EXTENSION_SUPPORT_REQUIRED';

interface JsonRpcEnvelope {
  jsonrpc?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

function isEnvelope(v: unknown): v is JsonRpcEnvelope {
  return typeof v === 'object' && v !== null && (v as JsonRpcEnvelope).jsonrpc === '2.0';
}

export function classifyJsonRpc(answer: HttpAnswer, ctx: HttpProbeContext): Verdict {
  const evidence = httpEvidence(answer, ctx);
  const S = InterfaceState;
  const auth = authVerdict(answer, ctx, evidence);
  if (auth) return auth;
  const body = parseJsonBody(answer);
  if (!isEnvelope(body)) {
    if (answer.status === 404 || answer.status === 405) {
      return verdict(
        S.Unimplemented,
        `${ctx.what}: HTTP ${answer.status}, no JSON-RPC endpoint is mounted at this URL`,
        evidence,
      );
    }
    if (answer.status >= 500) {
      return verdict(
        S.Inconclusive,
        `${ctx.what}: HTTP ${answer.status} without a JSON-RPC answer`,
        evidence,
      );
    }
    return verdict(
      S.WrongBinding,
      `${ctx.what}: HTTP ${answer.status} ${clip(answer.contentType, 80) || 'without content type'} is not a JSON-RPC 2.0 answer; something else serves this URL`,
      evidence,
    );
  }
  if (body.error === undefined) {
    return verdict(
      S.Verified,
      `${ctx.what}: GetTask answered with a result (the handler is served)`,
      evidence,
    );
  }
  const code = typeof body.error.code === 'number' ? body.error.code : undefined;
  const reasons = errorInfoReasons(body.error.data);
  evidence.jsonRpcCode = code;
  if (reasons[0]) evidence.errorInfoReason = reasons[0];
  if (typeof body.error.message === 'string') evidence.detail = clip(body.error.message);
  if (code === JsonRpcCode.TaskNotFound) {
    return verdict(
      S.Verified,
      `${ctx.what}: TaskNotFound (-32001) for a random id, the handler is served`,
      evidence,
    );
  }
  if (code === JsonRpcCode.ExtensionSupportRequired || reasons.includes(EXTENSION_REQUIRED)) {
    return verdict(
      S.Verified,
      `${ctx.what}: ExtensionSupportRequired (${code ?? 'ErrorInfo'}): the GetTask handler answered and requires an extension the probe did not declare; the handler is served`,
      evidence,
    );
  }
  const authReason = reasons.find((r) => AUTH_REASONS.has(r));
  if (code === JsonRpcCode.Unauthenticated || code === JsonRpcCode.PermissionDenied || authReason) {
    // HTTP 200 with an auth error (a2a-go's shape) is AuthRequired like a 401/403 (docs/conditions.md).
    const shape = `JSON-RPC error ${code ?? '(no code)'}${authReason ? ` ${authReason}` : ''}`;
    return verdict(
      S.AuthRequired,
      ctx.bearerSent
        ? `${ctx.what}: answered ${shape} although a bearer token was sent (token rejected or lacking permission); the handler behind it is unconfirmed`
        : `${ctx.what}: answered ${shape}: the endpoint requires credentials; configure a probe token to verify the handler`,
      evidence,
    );
  }
  if (code === JsonRpcCode.VersionNotSupported || reasons.includes('VERSION_NOT_SUPPORTED')) {
    return verdict(
      S.VersionNotSupported,
      `${ctx.what}: VersionNotSupported (${code}) for A2A-Version ${ctx.version}; the server does not serve this protocol version here`,
      evidence,
    );
  }
  if (code === JsonRpcCode.MethodNotFound) {
    return verdict(
      S.Unimplemented,
      `${ctx.what}: method not found (-32601); this JSON-RPC server has no v${ctx.version} GetTask handler`,
      evidence,
    );
  }
  if (code === JsonRpcCode.Internal || answer.status >= 500) {
    return verdict(
      S.Inconclusive,
      `${ctx.what}: internal error (${code ?? answer.status}): ${evidence.detail ?? ''}`,
      evidence,
    );
  }
  return verdict(
    S.Inconclusive,
    `${ctx.what}: unexpected JSON-RPC error ${code ?? '(no code)'}${reasons[0] ? ` ${errorInfoReason(reasons[0])}` : ''}: ${evidence.detail ?? ''}`,
    evidence,
  );
}
