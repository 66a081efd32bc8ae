/**
 * The routing in place for one agent, read from the owned-object caches: its EndpointSlices and
 * the card its ConfigMap publishes. Input of the shrink rule and of the make-before-break order
 * (decide.ts), and of the hysteresis seed after a restart (probe-memory.ts).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { CardParseError, parseCard } from '../card/index.js';
import { CARD_KEY, cardConfigMapName, SLICE_MANAGED_BY, type Owner } from '../routing/objects.js';
import { ownedCandidates, type OwnedCaches } from './apply-routing.js';
import type { CurrentRouting } from './decide.js';

function ownedBy(obj: KubernetesObject | undefined, uid: string): boolean {
  return Boolean(obj?.metadata?.ownerReferences?.some((r) => r.uid === uid && r.controller));
}

export function currentRouting(caches: OwnedCaches, owner: Owner, serviceName: string): CurrentRouting {
  const slices = ownedCandidates(caches.slices, owner.namespace, owner.name).filter((s) => {
    const labels = s.metadata?.labels ?? {};
    return (
      labels['kubernetes.io/service-name'] === serviceName &&
      labels['endpointslice.kubernetes.io/managed-by'] === SLICE_MANAGED_BY &&
      ownedBy(s, owner.uid)
    );
  });
  const cm = caches.configMaps.get(owner.namespace, cardConfigMapName(owner.name));
  const text = ownedBy(cm, owner.uid) ? cm?.data?.[CARD_KEY] : undefined;
  if (!text) return { slices };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { slices }; // not a card we wrote: nothing to reason about
  }
  const card = parseCard(raw);
  return card instanceof CardParseError ? { slices } : { slices, card };
}
