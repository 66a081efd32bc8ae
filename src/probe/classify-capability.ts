/**
 * A capability call's answer → what it shows (served, not supported, …) → the capability's state
 * against the card's claim (docs/conditions.md, "Capability truth"). Pure: the binding-specific readers reduce an answer to
 * a `CapabilitySignal`, and `capabilityVerdict` judges it.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { CapabilityState } from '../api/conditions.js';
import type { Capability } from '../card/card-claims.js';
import { grpcCodeName } from './classify-grpc.js';
import { problemReason } from './classify-rest.js';
import { errorInfoReasons, parseJsonBody, type HttpAnswer } from './http-answer.js';
import { clip, errorInfoReason } from './verdict.js';

export const CapabilitySignal = {
  /** TaskNotFound for the random id: the method is there and looked the task up. */
  TaskNotFound: 'TaskNotFound',
  /** A result: a card, a (empty) list, a stream that opened. */
  Success: 'Success',
  /** UnsupportedOperationError. */
  Unsupported: 'Unsupported',
  /** PushNotificationNotSupportedError. */
  PushNotSupported: 'PushNotSupported',
  /** ExtendedAgentCardNotConfiguredError. */
  NotConfigured: 'NotConfigured',
  /** The method (or route) does not exist: -32601, a route 404/405, gRPC UNIMPLEMENTED without details. */
  MethodMissing: 'MethodMissing',
  /** 401/403, UNAUTHENTICATED/PERMISSION_DENIED, -31401/-31403. */
  Auth: 'Auth',
  /** Anything else (500, -32603, timeouts, other errors). */
  Other: 'Other',
} as const;
export type CapabilitySignal = (typeof CapabilitySignal)[keyof typeof CapabilitySignal];

export interface CapabilityAnswer {
  signal: CapabilitySignal;
  /** The answer as a message quotes it: `200 -32004 UNSUPPORTED_OPERATION`, `NOT_FOUND TASK_NOT_FOUND`. */
  shown: string;
}

const S = CapabilitySignal;

const BY_REASON: Record<string, CapabilitySignal> = {
  TASK_NOT_FOUND: S.TaskNotFound,
  UNSUPPORTED_OPERATION: S.Unsupported,
  PUSH_NOTIFICATION_NOT_SUPPORTED: S.PushNotSupported,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: S.NotConfigured,
  UNAUTHENTICATED: S.Auth,
  PERMISSION_DENIED: S.Auth,
  UNAUTHORIZED: S.Auth,
};

const BY_CODE: Record<number, CapabilitySignal> = {
  [-32001]: S.TaskNotFound,
  [-32003]: S.PushNotSupported,
  [-32004]: S.Unsupported,
  [-32007]: S.NotConfigured,
  [-32601]: S.MethodMissing,
  [-31401]: S.Auth,
  [-31403]: S.Auth,
};

function byReasons(reasons: string[]): CapabilitySignal | undefined {
  for (const r of reasons) if (Object.hasOwn(BY_REASON, r)) return BY_REASON[r];
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON of the first `data:` event of an event stream (its lines joined), if any. */
export function firstSseData(body: Buffer): unknown {
  const text = body.toString('utf8');
  const data: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === '' && data.length > 0) break;
    if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return undefined;
  try {
    return JSON.parse(data.join('\n')) as unknown;
  } catch {
    return undefined;
  }
}

const isEventStream = (a: HttpAnswer) => /^\s*text\/event-stream/i.test(a.contentType);

function shownHttp(a: HttpAnswer, code?: number, reason?: string): string {
  return [a.status, code, reason && errorInfoReason(reason)].filter((x) => x !== undefined).join(' ');
}

/** A JSON-RPC answer (plain, or the first event of an SSE stream). */
export function jsonRpcCapabilityAnswer(a: HttpAnswer): CapabilityAnswer {
  if (a.status === 401 || a.status === 403) return { signal: S.Auth, shown: String(a.status) };
  const env = isEventStream(a) ? firstSseData(a.body) : parseJsonBody(a);
  if (!isObject(env) || env.jsonrpc !== '2.0') {
    if (a.status === 404 || a.status === 405)
      return { signal: S.MethodMissing, shown: `${a.status} (no JSON-RPC answer)` };
    return {
      signal: S.Other,
      shown: `${a.status} ${clip(a.contentType, 60) || 'no content type'} (no JSON-RPC answer)`,
    };
  }
  if (!isObject(env.error)) return { signal: S.Success, shown: `${a.status} result` };
  const code = typeof env.error.code === 'number' ? env.error.code : undefined;
  const reasons = errorInfoReasons(env.error.data);
  const signal =
    (code !== undefined && Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined) ??
    byReasons(reasons) ??
    S.Other;
  return { signal, shown: shownHttp(a, code, reasons[0]) };
}

/** An HTTP+JSON answer: google.rpc.Status with ErrorInfo, v0.3 `{code}`, RFC 9457 problem details, or a result. */
export function restCapabilityAnswer(a: HttpAnswer): CapabilityAnswer {
  if (a.status === 401 || a.status === 403) return { signal: S.Auth, shown: String(a.status) };
  const raw = isEventStream(a) ? firstSseData(a.body) : parseJsonBody(a);
  const body = isObject(raw) ? raw : undefined;
  const error = body && isObject(body.error) ? body.error : undefined;
  const problem = problemReason(body);
  const reasons = problem ? [problem] : errorInfoReasons(error?.details);
  const legacy = typeof body?.code === 'number' ? body.code : undefined;
  const fromBody =
    byReasons(reasons) ??
    (legacy !== undefined && Object.hasOwn(BY_CODE, legacy) ? BY_CODE[legacy] : undefined);
  if (fromBody) return { signal: fromBody, shown: shownHttp(a, legacy, reasons[0]) };
  if (a.status >= 200 && a.status < 300 && (body || isEventStream(a)) && !error)
    return { signal: S.Success, shown: `${a.status} result` };
  if ((a.status === 404 || a.status === 405) && !error && legacy === undefined)
    return { signal: S.MethodMissing, shown: `${a.status} without an A2A error body` };
  return { signal: S.Other, shown: shownHttp(a, legacy, reasons[0]) };
}

/** A gRPC status (OK when a stream delivered a message or a unary call returned). */
export function grpcCapabilityAnswer(
  code: number,
  reasons: string[],
  grpcContentType: boolean,
  version: string,
): CapabilityAnswer {
  const shown = `${grpcCodeName(code)}${reasons[0] ? ` ${errorInfoReason(reasons[0])}` : ''}`;
  if (code === GrpcStatus.OK) return { signal: S.Success, shown };
  const fromReason = byReasons(reasons);
  if (fromReason) return { signal: fromReason, shown };
  if (code === GrpcStatus.UNAUTHENTICATED || code === GrpcStatus.PERMISSION_DENIED)
    return { signal: S.Auth, shown };
  // v0.3 servers were not required to send ErrorInfo (as for GetTask, classify-grpc.ts).
  if (code === GrpcStatus.NOT_FOUND && version === '0.3' && grpcContentType)
    return { signal: S.TaskNotFound, shown };
  if (code === GrpcStatus.UNIMPLEMENTED && grpcContentType) return { signal: S.MethodMissing, shown };
  return { signal: S.Other, shown };
}

export interface CapabilityVerdict {
  capability: Capability;
  declared: boolean;
  state: CapabilityState;
  message: string;
}

const NAMES: Record<Capability, string> = {
  streaming: 'streaming',
  pushNotifications: 'pushNotifications',
  extendedAgentCard: 'extendedAgentCard',
};

/**
 * Judges one answer against the claim. Served: TaskNotFound (the method looked the task up) or a
 * result; for the extended card also an auth answer (the method is there, behind credentials).
 * Not served: UnsupportedOperation, PushNotificationNotSupported, ExtendedAgentCardNotConfigured,
 * or no such method.
 */
export function capabilityVerdict(
  capability: Capability,
  declared: boolean,
  answer: CapabilityAnswer,
  ctx: { what: string; request: string },
): CapabilityVerdict {
  const claim = `${NAMES[capability]}: ${declared}`;
  const said = `${ctx.what}: ${ctx.request} answered ${answer.shown}`;
  const served =
    answer.signal === S.TaskNotFound ||
    answer.signal === S.Success ||
    (capability === 'extendedAgentCard' && answer.signal === S.Auth);
  const notServed =
    answer.signal === S.Unsupported ||
    answer.signal === S.PushNotSupported ||
    answer.signal === S.NotConfigured ||
    answer.signal === S.MethodMissing;
  const out = (state: CapabilityState, message: string): CapabilityVerdict => ({
    capability,
    declared,
    state,
    message,
  });
  if (served) {
    return declared
      ? out(CapabilityState.Verified, `${said}: served, as the card claims (${claim})`)
      : out(
          CapabilityState.Undeclared,
          `${said}: served although the card claims ${claim}; clients that trust the card will not use it (declare it, or turn it off in the server)`,
        );
  }
  if (notServed) {
    return declared
      ? out(
          CapabilityState.NotServed,
          `${said}: not served although the card claims ${claim}; enable it in the server (SDK capability settings), or set ${NAMES[capability]}: false in the card`,
        )
      : out(CapabilityState.Absent, `${said}: not served, as the card says (${claim})`);
  }
  return out(
    CapabilityState.Inconclusive,
    `${said}: proves neither way (${claim})${answer.signal === S.Auth ? '; configure a probe token' : ''}`,
  );
}
