/**
 * Events for interface state transitions (previous status → new status), bounded per reconcile.
 * When the whole agent comes up (its Ready event says every interface is verified), the
 * interfaces seen Verified for the first time get no Event of their own: one Event per agent
 * transition, not one per interface, so a cold start of N agents records N Events, not 4N.
 */
import type { InterfaceStatus } from '../api/a2aagent.js';
import { InterfaceReason, InterfaceState } from '../api/conditions.js';
import { displayUrl } from '../text/display-url.js';
import { clip } from './aggregate.js';
import type { AgentEvent } from './decide.js';
import { interfaceKey } from '../observation/observed.js';

export function interfaceEvents(
  previous: InterfaceStatus[] | undefined,
  next: InterfaceStatus[],
  agentCameUp = false,
): AgentEvent[] {
  const before = new Map((previous ?? []).map((i) => [interfaceKey(i), i.state]));
  const events: AgentEvent[] = [];
  for (const i of next) {
    const was = before.get(interfaceKey(i));
    if (was === i.state || i.state === InterfaceState.Pending) continue;
    const verified = i.state === InterfaceState.Verified;
    if (verified && agentCameUp && (was === undefined || was === InterfaceState.Pending)) continue;
    events.push({
      type: verified ? 'Normal' : 'Warning',
      reason: verified
        ? 'InterfaceVerified'
        : InterfaceReason[i.state as Exclude<InterfaceState, 'Verified'>],
      message: clip(
        `${i.protocolBinding} ${displayUrl(i.url)} (v${i.protocolVersion}): ${was ?? 'new'} → ${i.state}: ${i.message}`,
      ),
    });
  }
  return events.slice(0, 10);
}
