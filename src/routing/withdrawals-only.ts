/**
 * The part of a full routing's slices that only withdraws. Full routing writes the card that
 * drops interfaces before the slices that grow because of it (make before break, docs/routing.md);
 * when that card (or the Service) cannot be written, the slices may still shrink, never grow:
 * the published card names what it named, so every endpoint routed now keeps the violations it
 * had and no new endpoint can add one.
 *
 * An endpoint is kept when the same pod at the same address is routed now on the same port
 * (name, number and protocol) in any of the agent's slices: an endpoint moving between a port's
 * chunks, or to a slice renamed because the port's numbers changed, stays. Its `ready` and
 * `serving` are only as true as both the desired and the current entry say. A slice that does
 * not exist now is created only to carry such endpoints.
 */
import type { V1Endpoint, V1EndpointSlice } from '@kubernetes/client-node';

const portOf = (s: V1EndpointSlice): string => {
  const p = s.ports?.[0];
  return `${p?.name ?? ''}/${p?.port ?? ''}/${p?.protocol ?? 'TCP'}`;
};
const idOf = (e: V1Endpoint): string => `${e.targetRef?.uid ?? ''}/${e.addresses.join(',')}`;

export function withdrawalsOnly(
  desired: readonly V1EndpointSlice[],
  current: readonly V1EndpointSlice[],
): V1EndpointSlice[] {
  const routed = new Map<string, Map<string, V1Endpoint>>();
  for (const s of current) {
    const port = routed.get(portOf(s)) ?? new Map<string, V1Endpoint>();
    for (const e of s.endpoints ?? []) port.set(idOf(e), e);
    routed.set(portOf(s), port);
  }
  const exists = new Set(current.map((s) => s.metadata?.name));
  const out: V1EndpointSlice[] = [];
  for (const s of desired) {
    const now = routed.get(portOf(s));
    const endpoints: V1Endpoint[] = [];
    for (const e of s.endpoints ?? []) {
      const was = now?.get(idOf(e));
      if (!was) continue;
      // Unset means ready (EndpointSlice API): only an explicit false holds one back.
      const ready = (e.conditions?.ready ?? true) && (was.conditions?.ready ?? true);
      const serving = (e.conditions?.serving ?? true) && (was.conditions?.serving ?? true);
      endpoints.push({ ...e, conditions: { ...e.conditions, ready, serving } });
    }
    if (endpoints.length > 0 || exists.has(s.metadata?.name)) out.push({ ...s, endpoints });
  }
  return out;
}
