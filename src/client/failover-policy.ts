/**
 * What a failed call means for this call and for the calls after it (seeds/003, seeds/000).
 * Pure: the verdict comes from the probes' classifiers (src/probe/call-failure.ts), which also
 * say whether the request may have reached the agent (`requestSent`).
 *
 * | verdict                                   | requestSent | class     | unary              | stream       |
 * | ----------------------------------------- | ----------- | --------- | ------------------ | ------------ |
 * | Verified (an A2A error from the handler)  | -           | answered  | AgentError         | AgentError   |
 * | AuthRequired                              | -           | auth      | AuthRequired       | AuthRequired |
 * | Unimplemented, VersionNotSupported        | -           | unserved  | next candidate     | StreamFailed |
 * | WrongBinding (*)                          | -           | unserved  | next candidate     | StreamFailed |
 * | anything else (Unreachable, TLSError, …)  | false       | unserved  | next candidate     | StreamFailed |
 * | anything else (reset, Timeout, 5xx, …)    | true        | ambiguous | Ambiguous          | StreamFailed |
 *
 * (*) call-failure.ts keeps WrongBinding after the request was sent only where the answer
 * proves no handler read it: HTTP 415, an answer that is not HTTP/1 at all
 * (HPE_INVALID_CONSTANT, an HTTP/2 SETTINGS frame), ALPN h2 refused, gRPC's diagnosis dial
 * finding HTTP/1.1. Any 2xx (empty, non-JSON or over-cap body), a malformed header or chunk,
 * or an HTTP/2 answer without a gRPC status is Inconclusive, hence ambiguous: never replayed.
 *
 * Why: an endpoint that cannot serve the operation, or was never reached, cannot have started
 * work; an auth refusal would only spread to the agent's other interfaces (which want the same
 * credentials); a request that may have reached the agent could create a second task if
 * replayed; a stream is never replayed. Every class but answered/auth moves later calls to the
 * next candidate (wrapping around); an answer from the handler, or an auth refusal, keeps the
 * selection.
 */
import { InterfaceState } from '../api/conditions.js';

/** How a call ended, as `FailoverCallError.outcome` and the call report say it. */
export const CallOutcome = {
  /** An interface served the call. */
  Served: 'Served',
  /** The handler answered with an A2A error (TaskNotFound, TaskNotCancelable, …): the caller's to handle. */
  AgentError: 'AgentError',
  /** 401/403, UNAUTHENTICATED/PERMISSION_DENIED: not retried on another binding. */
  AuthRequired: 'AuthRequired',
  /** The request may have reached the agent: returned with the task id if one is known, never replayed. */
  Ambiguous: 'Ambiguous',
  /** A stream failed: never replayed, even before its first event. */
  StreamFailed: 'StreamFailed',
  /** Every candidate was tried once and none could serve the operation. */
  Exhausted: 'Exhausted',
  /** The card has no interface this client may call. */
  NoCandidate: 'NoCandidate',
} as const;
export type CallOutcome = (typeof CallOutcome)[keyof typeof CallOutcome];

export type FailureClass = 'answered' | 'auth' | 'unserved' | 'ambiguous';

const cannotServe = new Set<InterfaceState>([
  InterfaceState.Unimplemented,
  InterfaceState.WrongBinding,
  InterfaceState.VersionNotSupported,
]);

export function failureClass(state: InterfaceState, requestSent: boolean): FailureClass {
  if (state === InterfaceState.Verified) return 'answered';
  if (state === InterfaceState.AuthRequired) return 'auth';
  if (cannotServe.has(state) || !requestSent) return 'unserved';
  return 'ambiguous';
}

export interface Decision {
  /** Try the next candidate within this call. */
  tryNext: boolean;
  /** Move later calls past the interface that failed. */
  advance: boolean;
  /** When the call ends here: how. */
  outcome: CallOutcome;
}

export function decide(cls: FailureClass, streaming: boolean): Decision {
  switch (cls) {
    case 'answered':
      return { tryNext: false, advance: false, outcome: CallOutcome.AgentError };
    case 'auth':
      return { tryNext: false, advance: false, outcome: CallOutcome.AuthRequired };
    case 'unserved':
      return streaming
        ? { tryNext: false, advance: true, outcome: CallOutcome.StreamFailed }
        : { tryNext: true, advance: true, outcome: CallOutcome.Exhausted };
    case 'ambiguous':
      return {
        tryNext: false,
        advance: true,
        outcome: streaming ? CallOutcome.StreamFailed : CallOutcome.Ambiguous,
      };
  }
}

/** Candidates in the order one call tries them: the selected one, then on around the list, each once. */
export function attemptOrder(selected: number, count: number): number[] {
  const order: number[] = [];
  for (let k = 0; k < count; k++) order.push((selected + k) % count);
  return order;
}

/** Whether a failure suggests the card names a stale address, worth a (throttled) card refresh. */
export function suggestsStaleCard(cls: FailureClass): boolean {
  return cls === 'unserved';
}
