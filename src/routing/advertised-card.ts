/**
 * The card clients are told about: the pods' card with every unverified interface removed,
 * order kept (the owner's preference survives), v0.3 fields made to agree with what is served,
 * and signatures removed when the content changed (a signature over the original no longer
 * holds; see signing.ts for re-signing).
 */
import {
  canonicalBinding,
  canonicalJson,
  type Capability,
  type CardInterface,
  type ParsedCard,
} from '../card/index.js';
import { interfaceKey } from '../observation/observed.js';

export type SignatureFate = 'Unchanged' | 'Removed' | 'None';

export interface AdvertisedCard {
  card: Record<string, unknown>;
  changed: boolean;
  signatures: SignatureFate;
}

/**
 * Makes the v0.3 fields name only served interfaces. In a hybrid card they describe the 0.3
 * interfaces, so only verified 0.3 interfaces count there; with none left, the v0.3 fields are
 * dropped (v1.0 clients still have supportedInterfaces). Fields that already agree are left
 * exactly as written, so an unchanged card keeps its signatures.
 */
function rewriteLegacy(out: Record<string, unknown>, card: ParsedCard, kept: CardInterface[]): void {
  const legacy = card.legacy;
  if (!legacy) return;
  const eligible = card.shape === 'hybrid' ? kept.filter((i) => i.protocolVersion === '0.3') : kept;
  const primary = eligible[0];
  if (!primary) {
    delete out.url;
    delete out.preferredTransport;
    delete out.additionalInterfaces;
    return;
  }
  const primaryServed = eligible.some(
    (i) => i.url === legacy.url && i.protocolBinding === legacy.preferredTransport,
  );
  if (!primaryServed) {
    out.url = primary.url;
    out.preferredTransport = primary.protocolBinding;
  }
  if (Array.isArray(out.additionalInterfaces)) {
    const served = new Set(eligible.map((i) => `${i.url}|${i.protocolBinding}`));
    out.additionalInterfaces = out.additionalInterfaces.filter((entry: unknown) => {
      if (typeof entry !== 'object' || entry === null) return false;
      const e = entry as { url?: unknown; transport?: unknown };
      return typeof e.url === 'string' && typeof e.transport === 'string'
        ? served.has(`${e.url}|${canonicalBinding(e.transport)}`)
        : false;
    });
  }
}

/**
 * Claimed capabilities found not served are set false (spec.probe.capabilities: Enforce), so
 * clients that trust the card do not call what is not there. v0.3's extended-card flag is
 * `supportsAuthenticatedExtendedCard`. A flag already false (or absent) is left as written.
 */
function capabilitiesOff(out: Record<string, unknown>, off: readonly Capability[]): void {
  const caps = out.capabilities;
  for (const c of off) {
    if (typeof caps === 'object' && caps !== null && !Array.isArray(caps)) {
      const record = caps as Record<string, unknown>;
      if (record[c] === true) record[c] = false;
    }
    if (c === 'extendedAgentCard' && out.supportsAuthenticatedExtendedCard === true)
      out.supportsAuthenticatedExtendedCard = false;
  }
}

/**
 * The last few answers per card object. A reconcile asks up to three times (shrink, plan,
 * interim) with the same card, and in steady state every reconcile asks again with the same
 * answer: each was a deep clone and two canonical serialisations of the card (3 % of the
 * operator's steady CPU at 100 agents). Cards are parsed once per distinct body and kept
 * (probe memory, current routing), so their identity is a sound key; a WeakMap lets a card
 * no longer held take its answers with it.
 */
const answers = new WeakMap<ParsedCard, Map<string, AdvertisedCard | undefined>>();
const ANSWERS_PER_CARD = 4;

/**
 * undefined when nothing is advertised: there is no truthful card to publish. The answer may be
 * shared with other callers asking the same: read it, never change it.
 */
export function advertisedCard(
  card: ParsedCard,
  advertised: ReadonlySet<string>,
  notServed: readonly Capability[] = [],
): AdvertisedCard | undefined {
  // JSON, not a join: keys hold card strings, which may hold any separator.
  const key = JSON.stringify([[...advertised].sort(), notServed]);
  let held = answers.get(card);
  if (held?.has(key)) return held.get(key);
  const answer = computeAdvertisedCard(card, advertised, notServed);
  if (!held) answers.set(card, (held = new Map()));
  if (held.size >= ANSWERS_PER_CARD) held.delete(held.keys().next().value!);
  held.set(key, answer);
  return answer;
}

function computeAdvertisedCard(
  card: ParsedCard,
  advertised: ReadonlySet<string>,
  notServed: readonly Capability[],
): AdvertisedCard | undefined {
  const kept = card.interfaces.filter((i) => advertised.has(interfaceKey(i)));
  if (kept.length === 0) return undefined;
  const out = structuredClone(card.raw);
  capabilitiesOff(out, notServed);
  if (card.shape !== 'v0.3' && Array.isArray(out.supportedInterfaces)) {
    const list = out.supportedInterfaces as unknown[];
    out.supportedInterfaces = list.filter((_, i) => {
      const parsed = card.interfaces[i];
      return parsed !== undefined && advertised.has(interfaceKey(parsed));
    });
  }
  if (card.shape !== 'v1.0') rewriteLegacy(out, card, kept);
  const original = { ...card.raw };
  delete original.signatures;
  const candidate = { ...out };
  delete candidate.signatures;
  const changed = canonicalJson(candidate) !== canonicalJson(original);
  const hadSignatures = Array.isArray(card.raw.signatures) && card.raw.signatures.length > 0;
  if (changed && hadSignatures) delete out.signatures;
  return {
    card: out,
    changed,
    signatures: !hadSignatures ? 'None' : changed ? 'Removed' : 'Unchanged',
  };
}
