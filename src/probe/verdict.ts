/** Builds a Verdict with the reason that belongs to its state. */
import { InterfaceReason, InterfaceState } from '../api/conditions.js';
import type { ProbeEvidence, Verdict } from './probe-result.js';

export function reasonFor(state: InterfaceState): string {
  return state === InterfaceState.Verified ? 'Verified' : InterfaceReason[state];
}

export function verdict(state: InterfaceState, message: string, evidence: ProbeEvidence): Verdict {
  return { state, reason: reasonFor(state), message, evidence };
}

/** A server-provided string, cut to a length fit for a status message. */
export function clip(text: string, max = 160): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
