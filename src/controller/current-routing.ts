/**
 * The routing in place for one agent, read from the owned-object caches: its EndpointSlices and
 * the card its ConfigMap publishes. Input of the shrink rule and of the make-before-break order
 * (decide.ts), and of the hysteresis seed after a restart (probe-memory.ts).
 */
import { CardParseError, parseCard, type ParsedCard } from '../card/index.js';
import { CARD_KEY, cardConfigMapName, type Owner } from '../routing/objects.js';
import { controlledBy } from '../routing/inventory.js';
import { ownSlices, type OwnedCaches } from './apply-routing.js';
import type { CurrentRouting } from './decide.js';

/**
 * The published card parsed, per ConfigMap object of the cache (a changed ConfigMap is a new
 * object). A reconcile reads the routing in place up to three times, and in steady state every
 * reconcile reads the same ConfigMap again: parsing it each time was 2 % of the operator's
 * steady CPU at 100 agents. Keeping the parsed card also keeps its identity, which lets
 * advertisedCard answer again from memory. The text is compared too, in case an object was
 * changed in place.
 */
const parsedCards = new WeakMap<object, { text: string; card: ParsedCard | undefined }>();

function publishedCard(cm: object, text: string): ParsedCard | undefined {
  const held = parsedCards.get(cm);
  if (held?.text === text) return held.card;
  let card: ParsedCard | undefined;
  try {
    const parsed = parseCard(JSON.parse(text));
    card = parsed instanceof CardParseError ? undefined : parsed;
  } catch {
    card = undefined; // not a card we wrote: nothing to reason about
  }
  parsedCards.set(cm, { text, card });
  return card;
}

export function currentRouting(caches: OwnedCaches, owner: Owner, serviceName: string): CurrentRouting {
  const slices = ownSlices(caches, owner, serviceName);
  const cm = caches.configMaps.get(owner.namespace, cardConfigMapName(owner.name));
  const text = controlledBy(cm, owner.uid) ? cm?.data?.[CARD_KEY] : undefined;
  if (!cm || !text) return { slices };
  const card = publishedCard(cm, text);
  return card ? { slices, card } : { slices };
}
