/**
 * For each interface of a card: may it be probed, and at which agent port? The reconciler
 * uses this to decide what to dial; decide() uses the same answer for status and routing.
 */
import type { A2AAgentSpec, AgentPort } from '../api/a2aagent.js';
import { CardReason, InterfaceReason, InterfaceState } from '../api/conditions.js';
import {
  interfaceEligibility,
  type CardInterface,
  type InterfaceEndpoint,
  type ParsedCard,
  type StaticCheckOptions,
} from '../card/index.js';
import { clipText } from '../text/display-text.js';
import { redactUrlCredentials } from '../text/redact-credentials.js';
import { interfaceKey } from './observed.js';
import { allowedHosts, portForEndpoint } from './port-mapping.js';

/** Interfaces past this index are not probed: status stays bounded and one card cannot flood the prober. */
export const MAX_INTERFACES = 64;

export type MappedInterface =
  | { iface: CardInterface; key: string; mapped: true; endpoint: InterfaceEndpoint; port: AgentPort }
  | {
      iface: CardInterface;
      key: string;
      mapped: false;
      state: typeof InterfaceState.Unmapped | typeof InterfaceState.Ineligible;
      reason: string;
      message: string;
    };

/** Binding and URL as messages quote them: credentials redacted, bounded (a URL may be 8 KiB). */
function shownInterface(iface: CardInterface): string {
  return `${clipText(iface.protocolBinding, 64)} ${clipText(redactUrlCredentials(iface.url), 160)}`;
}

export interface MapContext {
  spec: A2AAgentSpec;
  namespace: string;
  serviceName: string;
}

/**
 * The static-check options of the operator, for status findings and for what may be dialled
 * alike. No loopback exemption: the operator dials the pod IP whatever host a URL names, so a
 * plaintext `http://localhost` interface on an HTTPS card is a downgrade like any other.
 */
export function operatorCheckOptions(ctx: MapContext): StaticCheckOptions {
  return {
    cardScheme: ctx.spec.card.scheme === 'HTTPS' ? 'https' : 'http',
    allowedHosts: allowedHosts(ctx.spec, ctx.serviceName, ctx.namespace),
    allowLoopbackPlaintext: false,
  };
}

/**
 * The last mapping of each card object. mapInterfaces is pure in (card, spec, namespace,
 * serviceName) and a reconcile asks it for the same card up to five times (observe, shrink,
 * decide, apply), then again each visit while the card is unchanged (fetch-card keeps the parsed
 * card of unchanged bytes; the published card is parsed once per ConfigMap object). The spec is
 * compared by identity: a cached agent's parsed spec is one object until the agent changes
 * (agent-spec.ts). Results are frozen: every caller shares them.
 */
const lastMapping = new WeakMap<
  ParsedCard,
  { spec: A2AAgentSpec; namespace: string; serviceName: string; mapped: readonly MappedInterface[] }
>();

export function mapInterfaces(card: ParsedCard, ctx: MapContext): readonly MappedInterface[] {
  const held = lastMapping.get(card);
  if (
    held &&
    held.spec === ctx.spec &&
    held.namespace === ctx.namespace &&
    held.serviceName === ctx.serviceName
  )
    return held.mapped;
  const mapped = Object.freeze(mapEach(card, ctx).map((m) => Object.freeze(m)));
  lastMapping.set(card, { spec: ctx.spec, namespace: ctx.namespace, serviceName: ctx.serviceName, mapped });
  return mapped;
}

function mapEach(card: ParsedCard, ctx: MapContext): MappedInterface[] {
  const eligibility = interfaceEligibility(card, operatorCheckOptions(ctx));
  return card.interfaces.map((iface, i): MappedInterface => {
    const key = interfaceKey(iface);
    const e = eligibility[i];
    if (i >= MAX_INTERFACES) {
      return {
        iface,
        key,
        mapped: false,
        state: InterfaceState.Ineligible,
        reason: InterfaceReason.Ineligible,
        message: `${shownInterface(iface)}: interface #${i + 1} is past the ${MAX_INTERFACES} the operator probes per card; never dialled`,
      };
    }
    if (!e || !e.eligible) {
      const foreign = e?.reason === CardReason.ForeignHost;
      return {
        iface,
        key,
        mapped: false,
        state: foreign ? InterfaceState.Unmapped : InterfaceState.Ineligible,
        reason: foreign ? InterfaceReason.Unmapped : InterfaceReason.Ineligible,
        message: `${e?.message ?? 'ineligible'}; never dialled`,
      };
    }
    const port = portForEndpoint(ctx.spec, e.endpoint);
    if (!port) {
      return {
        iface,
        key,
        mapped: false,
        state: InterfaceState.Unmapped,
        reason: InterfaceReason.Unmapped,
        message: `${shownInterface(iface)}: port ${e.endpoint.port} is not one of spec.ports (${ctx.spec.ports
          .map((p) => `${p.name}=${p.port}`)
          .join(', ')}); never dialled`,
      };
    }
    return { iface, key, mapped: true, endpoint: e.endpoint, port };
  });
}
