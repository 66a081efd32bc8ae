/**
 * HTTP+JSON GetTask answer → state (docs/conditions.md, "Interface reasons"). A route 404 and a TaskNotFound 404 differ only
 * in the body: v1.0 carries ErrorInfo TASK_NOT_FOUND, v0.3 a `{code: -32001}` object, and some
 * servers RFC 9457 problem details whose `type` ends in `/errors/task-not-found` (the spec's own
 * §6.x examples, early a2a-go releases, the draft conformance suite).
 */
import { InterfaceState } from '../api/conditions.js';
import { EXTENSION_REQUIRED, JsonRpcCode } from './classify-jsonrpc.js';
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

interface RestErrorBody {
  error?: { code?: unknown; status?: unknown; message?: unknown; details?: unknown };
  code?: unknown;
  message?: unknown;
  id?: unknown;
  /** RFC 9457 problem details. */
  type?: unknown;
  title?: unknown;
  detail?: unknown;
}

/** A2A errors by the last segment of a problem-details `type` (`…/errors/task-not-found`). */
const PROBLEM_TYPES: Record<string, string> = {
  'task-not-found': 'TASK_NOT_FOUND',
  'version-not-supported': 'VERSION_NOT_SUPPORTED',
  'unsupported-operation': 'UNSUPPORTED_OPERATION',
  'extension-support-required': 'EXTENSION_SUPPORT_REQUIRED',
};

/** The ErrorInfo-style reason a problem-details body names, if its `type` is an A2A error. */
export function problemReason(body: RestErrorBody | undefined): string | undefined {
  if (typeof body?.type !== 'string') return undefined;
  const at = body.type.lastIndexOf('/errors/');
  if (at < 0) return undefined;
  const name = body.type.slice(at + '/errors/'.length);
  return Object.hasOwn(PROBLEM_TYPES, name) ? PROBLEM_TYPES[name] : undefined;
}

export function classifyRest(answer: HttpAnswer, ctx: HttpProbeContext): Verdict {
  const evidence = httpEvidence(answer, ctx);
  const S = InterfaceState;
  const auth = authVerdict(answer, ctx, evidence);
  if (auth) return auth;
  const raw = parseJsonBody(answer);
  const body =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as RestErrorBody) : undefined;
  const problem = problemReason(body);
  const reasons = problem ? [problem] : errorInfoReasons(body?.error?.details);
  if (reasons[0]) evidence.errorInfoReason = reasons[0];
  const message = body?.error?.message ?? body?.message ?? body?.detail ?? body?.title;
  if (typeof message === 'string') evidence.detail = clip(message);
  const legacyCode = typeof body?.code === 'number' ? body.code : undefined;
  if (legacyCode !== undefined) evidence.jsonRpcCode = legacyCode;

  if (reasons.includes('TASK_NOT_FOUND')) {
    return verdict(
      S.Verified,
      `${ctx.what}: ${answer.status} TASK_NOT_FOUND${problem ? ' (problem details)' : ''} for a random id, the handler is served`,
      evidence,
    );
  }
  if (
    answer.status === 400 &&
    (reasons.includes(EXTENSION_REQUIRED) || legacyCode === JsonRpcCode.ExtensionSupportRequired)
  ) {
    return verdict(
      S.Verified,
      `${ctx.what}: 400 EXTENSION_SUPPORT_REQUIRED: the GetTask handler answered and requires an extension the probe did not declare; the handler is served`,
      evidence,
    );
  }
  if (reasons.includes('VERSION_NOT_SUPPORTED') || legacyCode === JsonRpcCode.VersionNotSupported) {
    return verdict(
      S.VersionNotSupported,
      `${ctx.what}: ${answer.status} VERSION_NOT_SUPPORTED for A2A-Version ${ctx.version}; the server does not serve this protocol version here`,
      evidence,
    );
  }
  if (legacyCode === JsonRpcCode.TaskNotFound && answer.status === 404) {
    return verdict(
      S.Verified,
      `${ctx.what}: 404 TaskNotFound (-32001, v0.3 error body) for a random id, the handler is served`,
      evidence,
    );
  }
  if (answer.status === 200 && body && typeof body.id === 'string') {
    return verdict(S.Verified, `${ctx.what}: GetTask answered with a task (the handler is served)`, evidence);
  }
  if (answer.status === 404 || answer.status === 405) {
    return verdict(
      S.Unimplemented,
      `${ctx.what}: HTTP ${answer.status} without an A2A error body; no REST handler is mounted at this URL`,
      evidence,
    );
  }
  if (answer.status === 415) {
    return verdict(
      S.WrongBinding,
      `${ctx.what}: HTTP 415, something other than an A2A REST handler serves this URL`,
      evidence,
    );
  }
  if (answer.status >= 500) {
    return verdict(
      S.Inconclusive,
      `${ctx.what}: HTTP ${answer.status}${reasons[0] ? ` ${errorInfoReason(reasons[0])}` : ''}: ${evidence.detail ?? ''}`,
      evidence,
    );
  }
  if (body === undefined) {
    return verdict(
      S.WrongBinding,
      `${ctx.what}: HTTP ${answer.status} ${clip(answer.contentType, 80) || 'without content type'} is not an A2A REST answer; something else serves this URL`,
      evidence,
    );
  }
  return verdict(
    S.Inconclusive,
    `${ctx.what}: unexpected HTTP ${answer.status}${reasons[0] ? ` ${errorInfoReason(reasons[0])}` : ''}: ${evidence.detail ?? ''}`,
    evidence,
  );
}
