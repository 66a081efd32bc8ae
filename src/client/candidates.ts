/**
 * Which declared interfaces a client may call, in which order (seeds/003): eligible interfaces
 * only, highest protocol version first, equal versions in card order. On a v0.3 card,
 * `preferredTransport` is a hint over `additionalInterfaces`, never a binding for the primary
 * `url` (seeds/000): a client that dials `url` with the hinted transport reproduces the seed's
 * failure.
 */
import {
  interfaceEligibility,
  type CardInterface,
  type InterfaceEndpoint,
  type ParsedCard,
  type StaticCheckOptions,
} from '../card/index.js';

export interface Candidate {
  /** Position in the card's normalised interface list. */
  index: number;
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
  /** Where the card declares it: `supportedInterfaces[1]`, `additionalInterfaces[0]`. */
  declaredAt: string;
  endpoint: InterfaceEndpoint;
}

/** A declared interface the client will not call, and why (for logs and metrics). */
export interface SkippedInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  declaredAt: string;
  reason: string;
  message: string;
}

export interface CandidateList {
  candidates: Candidate[];
  skipped: SkippedInterface[];
}

/** Numeric `Major.Minor` order; a version that is not one sorts last (it is ineligible anyway). */
export function compareVersionsDescending(a: string, b: string): number {
  const parse = (v: string): [number, number] => {
    const m = /^(\d{1,6})\.(\d{1,6})$/.exec(v);
    return m ? [Number(m[1]), Number(m[2])] : [-1, -1];
  };
  const [am, an] = parse(a);
  const [bm, bn] = parse(b);
  return bm - am || bn - an;
}

export const PreferredTransportNotDeclared = 'PreferredTransportNotDeclared';

/** The interfaces of a v0.3 card a client may call: the declared ones, the hinted transport first. */
function legacyOrder(card: ParsedCard): { ordered: CardInterface[]; hintOnly: CardInterface[] } {
  const legacy = card.legacy!;
  if (legacy.additionalInterfaces.length === 0) return { ordered: [...card.interfaces], hintOnly: [] };
  const declared: CardInterface[] = [];
  for (const a of legacy.additionalInterfaces) {
    const iface = card.interfaces.find(
      (i) => i.url === a.url && i.protocolBinding === a.transport && !declared.includes(i),
    );
    if (iface) declared.push(iface);
  }
  const hinted = declared.filter((i) => i.protocolBinding === legacy.preferredTransport);
  const others = declared.filter((i) => i.protocolBinding !== legacy.preferredTransport);
  return {
    ordered: [...hinted, ...others],
    hintOnly: card.interfaces.filter((i) => !declared.includes(i)),
  };
}

export function candidatesOf(card: ParsedCard, opts: StaticCheckOptions = {}): CandidateList {
  const eligibility = interfaceEligibility(card, opts);
  const skipped: SkippedInterface[] = [];
  const describe = (i: CardInterface) => ({
    url: i.url,
    protocolBinding: i.protocolBinding,
    protocolVersion: i.protocolVersion,
    declaredAt: i.declaredAt,
  });
  let ordered = card.interfaces;
  if (card.shape === 'v0.3') {
    const legacy = legacyOrder(card);
    ordered = legacy.ordered;
    for (const i of legacy.hintOnly) {
      skipped.push({
        ...describe(i),
        reason: PreferredTransportNotDeclared,
        message: `${i.protocolBinding} at ${i.url} comes only from preferredTransport + url, which additionalInterfaces does not declare; the hint chooses among declared interfaces, it does not declare one`,
      });
    }
  }
  const candidates: Candidate[] = [];
  for (const iface of ordered) {
    const e = eligibility[iface.index]!;
    if (!e.eligible) {
      skipped.push({ ...describe(iface), reason: e.reason, message: e.message });
      continue;
    }
    candidates.push({
      ...describe(iface),
      index: iface.index,
      ...(iface.tenant ? { tenant: iface.tenant } : {}),
      endpoint: e.endpoint,
    });
  }
  // Array.prototype.sort is stable: equal versions keep the order built above.
  candidates.sort((a, b) => compareVersionsDescending(a.protocolVersion, b.protocolVersion));
  return { candidates, skipped };
}

/** The same interface on a refreshed card: selection follows it there. */
export function sameInterface(a: Candidate, b: Candidate): boolean {
  return (
    a.url === b.url &&
    a.protocolBinding === b.protocolBinding &&
    a.protocolVersion === b.protocolVersion &&
    (a.tenant ?? '') === (b.tenant ?? '')
  );
}
