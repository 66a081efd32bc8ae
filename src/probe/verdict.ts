/**
 * Builds a Verdict with the reason that belongs to its state. Everything a verdict says may
 * quote the card or the answer (attacker-controlled), and it ends up in status, Events, logs
 * and the CLI's output: `verdict` makes the message and every evidence string printable and
 * bounded, so no caller can forget.
 */
import { InterfaceReason, InterfaceState } from '../api/conditions.js';
import { clipText, displayText, printable } from '../text/display-text.js';
import type { ProbeEvidence, Verdict } from './probe-result.js';

/** Longest verdict message; status shortens further (aggregate, decide). */
export const MAX_VERDICT_MESSAGE = 1024;
/** ErrorInfo reasons are UPPER_SNAKE_CASE of at most 63 characters (google.rpc.ErrorInfo). */
export const MAX_ERROR_INFO_REASON = 64;
const MAX_EVIDENCE_FIELD = 256;

export function reasonFor(state: InterfaceState): string {
  return state === InterfaceState.Verified ? 'Verified' : InterfaceReason[state];
}

function shownEvidence(evidence: ProbeEvidence): ProbeEvidence {
  const out: ProbeEvidence = { ...evidence };
  for (const k of ['request', 'contentType', 'errorCode', 'detail', 'grpcCodeName'] as const) {
    const v = out[k];
    if (typeof v === 'string') out[k] = displayText(v, MAX_EVIDENCE_FIELD);
  }
  if (out.errorInfoReason !== undefined) out.errorInfoReason = errorInfoReason(out.errorInfoReason);
  return out;
}

export function verdict(state: InterfaceState, message: string, evidence: ProbeEvidence): Verdict {
  return {
    state,
    reason: reasonFor(state),
    message: clipText(printable(message), MAX_VERDICT_MESSAGE),
    evidence: shownEvidence(evidence),
  };
}

// A UUID in server text is a request or task id, new on every probe: quoted verbatim it would
// change the message, hence status, on every probe period. Fixed length, no backtracking.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
export const ID_PLACEHOLDER = '<id>';

/**
 * A server-provided string as a message shows it: on one line, ids normalised (above), control
 * and bidi characters escaped (`printable`), cut to a length fit for a status message.
 */
export function clip(text: string, max = 160): string {
  return displayText(text.replace(/\s+/g, ' ').trim().replace(UUID, ID_PLACEHOLDER), max);
}

/** An ErrorInfo reason from an answer, as a message or evidence shows it. */
export function errorInfoReason(reason: string): string {
  return displayText(reason, MAX_ERROR_INFO_REASON);
}
