/**
 * What the static checks and every probe of one card interface compute from its URL alone: where
 * it points (a URL parse under the eligibility rules) and how messages show it (credentials
 * redacted, printable, bounded). Both are pure functions of the URL and binding, and the operator
 * checks and probes the same interface object every period while the card's bytes do not change
 * (observe-pods.ts), so they are kept per object instead of recomputed on each check and probe
 * (2-3 linear scans and a URL parse; about 5 % of the Prober's CPU per probe in a profile,
 * docs/benchmarks.md).
 */
import { interfaceEndpoint, type EndpointViolation, type InterfaceEndpoint } from './interface-endpoint.js';
import type { CardInterface } from './parsed-card.js';
import { displayUrl } from '../text/display-url.js';

export interface InterfaceFacts {
  endpoint: InterfaceEndpoint | EndpointViolation;
  /** `displayUrl(iface.url)`. */
  shownUrl: string;
}

interface Held extends InterfaceFacts {
  url: string;
  binding: string;
}

// Weak: the facts live as long as the parsed card holding the interface, and no longer.
const held = new WeakMap<CardInterface, Held>();

export function interfaceFacts(iface: CardInterface): InterfaceFacts {
  const h = held.get(iface);
  // The URL and binding are compared too: a caller that edits an interface object in place
  // gets facts about what it holds now, never stale ones.
  if (h && h.url === iface.url && h.binding === iface.protocolBinding) return h;
  const facts: Held = {
    url: iface.url,
    binding: iface.protocolBinding,
    endpoint: interfaceEndpoint(iface.url, iface.protocolBinding),
    shownUrl: displayUrl(iface.url),
  };
  held.set(iface, facts);
  return facts;
}
