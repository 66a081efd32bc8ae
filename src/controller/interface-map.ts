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

export function mapInterfaces(card: ParsedCard, ctx: MapContext): MappedInterface[] {
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
