/**
 * The checks a card must pass before any socket is opened (docs/conditions.md, "Card reasons"). Each finding names a
 * stable reason from `CardReason` and says what to change in the card. The same rules decide
 * which interfaces may be probed at all: an ineligible one is never dialled.
 */
import { CardReason } from '../api/conditions.js';
import { clipText } from '../text/display-text.js';
import { redactUrlCredentials } from '../text/redact-credentials.js';
import { isKnownBinding, isKnownVersion, ProtocolBinding } from './bindings.js';
import {
  isEndpointViolation,
  isLoopbackHost,
  trimTrailingSlashes,
  type InterfaceEndpoint,
} from './interface-endpoint.js';
import { interfaceFacts } from './interface-facts.js';
import type { CardInterface, ParsedCard } from './parsed-card.js';

export interface Finding {
  reason: string;
  message: string;
  /** Set when the finding is about one interface (`ParsedCard.interfaces[i]`). */
  interfaceIndex?: number;
}

export interface StaticCheckOptions {
  /** Scheme the card itself was served over: an `https` card must not downgrade to plaintext. */
  cardScheme?: 'http' | 'https';
  /** When set, URL hosts outside this list (case-insensitive) are `ForeignHost`. */
  allowedHosts?: readonly string[];
  /**
   * Accept a plaintext interface on an HTTPS card when its host is loopback (`localhost`,
   * 127.0.0.0/8, ::1): a developer's `check` against a local agent. Off by default, and always off
   * in the operator, which dials the pod IP whatever host the URL names, so a loopback URL would
   * buy an agent plaintext probes that carry its token.
   */
  allowLoopbackPlaintext?: boolean;
}

export type InterfaceEligibility =
  | { index: number; eligible: true; endpoint: InterfaceEndpoint }
  | { index: number; eligible: false; reason: CardReason; message: string };

/**
 * How much of a URL a finding quotes: enough to find it in the card, short enough that the reason
 * after it survives the 512-character clip of a status message.
 */
const QUOTED_CHARS = 160;

const shownUrl = (url: string): string => clipText(redactUrlCredentials(url), QUOTED_CHARS);
const shown = (text: string): string => clipText(text, 64);

function describe(i: CardInterface): string {
  return `${shown(i.protocolBinding)} ${shownUrl(i.url)} (v${shown(i.protocolVersion)}, ${i.declaredAt})`;
}

/** Whether each interface may be probed, and if not, the rule it breaks (first one wins). */
export function interfaceEligibility(
  card: ParsedCard,
  opts: StaticCheckOptions = {},
): InterfaceEligibility[] {
  const allowed = opts.allowedHosts?.map((h) => h.toLowerCase());
  return card.interfaces.map((iface): InterfaceEligibility => {
    const no = (reason: CardReason, message: string): InterfaceEligibility => ({
      index: iface.index,
      eligible: false,
      reason,
      message,
    });
    if (!isKnownBinding(iface.protocolBinding)) {
      return no(
        CardReason.UnsupportedBinding,
        `${describe(iface)}: binding ${JSON.stringify(shown(iface.protocolBinding))} is not one of JSONRPC, HTTP+JSON, GRPC, so no client can use it; remove it or fix its spelling`,
      );
    }
    if (!isKnownVersion(iface.protocolVersion)) {
      return no(
        CardReason.UnsupportedProtocolVersion,
        `${describe(iface)}: protocol version ${JSON.stringify(shown(iface.protocolVersion))} is not supported (1.x or 0.3, written Major.Minor)`,
      );
    }
    const { endpoint } = interfaceFacts(iface);
    if (isEndpointViolation(endpoint)) return no(endpoint.reason, `${describe(iface)}: ${endpoint.message}`);
    const loopbackExempt = opts.allowLoopbackPlaintext === true && isLoopbackHost(endpoint.host);
    if (opts.cardScheme === 'https' && !endpoint.tls && !loopbackExempt) {
      return no(
        CardReason.InsecureDowngrade,
        `${describe(iface)}: the card is served over HTTPS but this interface is plaintext; use https:// (or a bare host:port for gRPC, which means TLS)`,
      );
    }
    if (allowed && !allowed.includes(endpoint.host)) {
      return no(
        CardReason.ForeignHost,
        `${describe(iface)}: host ${endpoint.host} is not one of this agent's hosts (${allowed.join(', ')}); add it to spec.hosts or fix the URL`,
      );
    }
    return { index: iface.index, eligible: true, endpoint };
  });
}

/** Two declarations are the same interface when these are equal (a key, so duplicates are found in one pass). */
function identity(i: CardInterface): string {
  return JSON.stringify([i.url, i.protocolBinding, i.protocolVersion, i.tenant ?? '']);
}

/** The URL a client would dial, without a trailing slash, for comparing declarations. */
function urlKey(url: string): string {
  return trimTrailingSlashes(url.trim()).toLowerCase();
}

function preferredTransportFindings(card: ParsedCard): Finding[] {
  const legacy = card.legacy;
  if (!legacy) return [];
  const primary = urlKey(legacy.url);
  const primaryShown = shownUrl(legacy.url);
  const preferredShown = shown(legacy.preferredTransport);
  const atPrimary = legacy.additionalInterfaces.filter((a) => urlKey(a.url) === primary);
  const declaredThere = [...new Set(atPrimary.map((a) => a.transport))];
  if (atPrimary.length > 0 && !declaredThere.includes(legacy.preferredTransport)) {
    return [
      {
        reason: CardReason.PreferredTransportMismatch,
        message:
          `preferredTransport ${preferredShown} is not what the card declares at its primary url ${primaryShown} ` +
          `(additionalInterfaces say ${declaredThere.map(shown).join(', ')} there); clients honouring the hint will dial ` +
          `${preferredShown} at ${primaryShown}. Set preferredTransport to ${shown(declaredThere[0]!)} or point url at the ${preferredShown} endpoint`,
        interfaceIndex: 0,
      },
    ];
  }
  if (card.shape === 'hybrid') {
    const listed = card.interfaces.some(
      (i) => urlKey(i.url) === primary && i.protocolBinding === legacy.preferredTransport,
    );
    if (!listed) {
      return [
        {
          reason: CardReason.PreferredTransportMismatch,
          message: `the v0.3 fields (url ${primaryShown}, preferredTransport ${preferredShown}) name an interface that supportedInterfaces does not declare; v0.3 and v1.0 clients would be sent to different endpoints`,
        },
      ];
    }
  }
  return [];
}

function conflictingBindingFindings(card: ParsedCard, skipUrls: Set<string>): Finding[] {
  const byUrl = new Map<string, CardInterface[]>();
  for (const i of card.interfaces) {
    const key = urlKey(i.url);
    const list = byUrl.get(key);
    if (list) list.push(i);
    else byUrl.set(key, [i]);
  }
  const findings: Finding[] = [];
  for (const [key, list] of byUrl) {
    if (skipUrls.has(key)) continue;
    const grpc = list.find((i) => i.protocolBinding === ProtocolBinding.GRPC);
    const http = list.find(
      (i) => i.protocolBinding !== ProtocolBinding.GRPC && isKnownBinding(i.protocolBinding),
    );
    if (grpc && http) {
      findings.push({
        reason: CardReason.ConflictingBindings,
        message: `${shownUrl(grpc.url)} is declared both as GRPC (${grpc.declaredAt}) and as ${http.protocolBinding} (${http.declaredAt}); one address serves one of them, give each binding its own URL`,
        interfaceIndex: grpc.index,
      });
    }
  }
  return findings;
}

/** Every card-level finding, in a stable order: interface rules in card order, then cross-checks. */
export function staticChecks(card: ParsedCard, opts: StaticCheckOptions = {}): Finding[] {
  const findings: Finding[] = [];
  if (card.interfaces.length === 0) {
    findings.push({
      reason: CardReason.NoInterfaces,
      message: 'supportedInterfaces is empty: the card declares no endpoint, so no client can call the agent',
    });
  }
  for (const e of interfaceEligibility(card, opts)) {
    if (!e.eligible) findings.push({ reason: e.reason, message: e.message, interfaceIndex: e.index });
  }
  const seen = new Map<string, CardInterface>();
  card.interfaces.forEach((iface) => {
    const key = identity(iface);
    const first = seen.get(key);
    if (!first) seen.set(key, iface);
    else {
      findings.push({
        reason: CardReason.DuplicateInterface,
        message: `${describe(iface)} repeats ${first.declaredAt}; remove the duplicate`,
        interfaceIndex: iface.index,
      });
    }
  });
  const preferred = preferredTransportFindings(card);
  findings.push(...preferred);
  const skip = new Set(preferred.length > 0 && card.legacy ? [urlKey(card.legacy.url)] : []);
  findings.push(...conflictingBindingFindings(card, skip));
  return findings;
}
