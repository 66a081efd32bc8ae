/** Events for interface state transitions (previous status → new status), bounded per reconcile. */
import type { InterfaceStatus } from '../api/a2aagent.js';
import { InterfaceReason, InterfaceState } from '../api/conditions.js';
import { displayUrl } from '../text/display-url.js';
import { clip } from './aggregate.js';
import type { AgentEvent } from './decide.js';
import { interfaceKey } from './observed.js';

export function interfaceEvents(
  previous: InterfaceStatus[] | undefined,
  next: InterfaceStatus[],
): AgentEvent[] {
  const before = new Map((previous ?? []).map((i) => [interfaceKey(i), i.state]));
  const events: AgentEvent[] = [];
  for (const i of next) {
    const was = before.get(interfaceKey(i));
    if (was === i.state || i.state === InterfaceState.Pending) continue;
    const verified = i.state === InterfaceState.Verified;
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
