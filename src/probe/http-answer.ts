import { InterfaceState } from '../api/conditions.js';
import type { ProbeEvidence, Verdict } from './probe-result.js';
import { verdict } from './verdict.js';

/** An HTTP answer as the classifiers see it: status, content type and a bounded body. */
export interface HttpAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

export interface HttpProbeContext {
  /** `JSONRPC GetTask (v1.0) at agent.internal:8443/a2a/jsonrpc`, for messages. */
  what: string;
  /** `POST /a2a/jsonrpc GetTask`. */
  request: string;
  version: string;
  /** Whether a bearer token was sent, so an auth answer says "rejected" rather than "required". */
  bearerSent: boolean;
}

export function parseJsonBody(answer: HttpAnswer): unknown {
  if (
    !/\bjson\b/i.test(answer.contentType) &&
    !/^\s*[{[]/.test(answer.body.subarray(0, 16).toString('utf8'))
  ) {
    return undefined;
  }
  try {
    return JSON.parse(answer.body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** ErrorInfo reasons inside an `@type`-tagged detail list (JSON-RPC `error.data`, REST `error.details`). */
export function errorInfoReasons(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter(
      (d): d is { reason: string } =>
        typeof d === 'object' &&
        d !== null &&
        typeof (d as Record<string, unknown>)['@type'] === 'string' &&
        ((d as Record<string, unknown>)['@type'] as string).endsWith('google.rpc.ErrorInfo') &&
        typeof (d as Record<string, unknown>).reason === 'string',
    )
    .map((d) => d.reason);
}

/** The evidence every HTTP-binding verdict starts from. */
export function httpEvidence(answer: HttpAnswer, ctx: HttpProbeContext): ProbeEvidence {
  return { request: ctx.request, httpStatus: answer.status, contentType: answer.contentType };
}

/** 401/403 on an HTTP binding: listening, handler unconfirmed (the same rule for JSON-RPC and REST). */
export function authVerdict(
  answer: HttpAnswer,
  ctx: HttpProbeContext,
  evidence: ProbeEvidence,
): Verdict | undefined {
  if (answer.status !== 401 && answer.status !== 403) return undefined;
  const message = ctx.bearerSent
    ? `${ctx.what}: answered ${answer.status} although a bearer token was sent (token rejected or lacking permission); the handler behind it is unconfirmed`
    : `${ctx.what}: answered ${answer.status}: something is listening but requires credentials; configure a probe token to verify the handler`;
  return verdict(InterfaceState.AuthRequired, message, evidence);
}
