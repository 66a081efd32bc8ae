/**
 * The objects Enforce mode owns, built from a routing decision: a selector-less Service, one
 * EndpointSlice per port (per resolved pod port number when a named targetPort differs
 * between pods), address family (pods' IPv4 and IPv6 addresses) and chunk of at most
 * MAX_ENDPOINTS_PER_SLICE endpoints, and the advertised-card ConfigMap. Pure builders; apply
 * lives in the controller.
 *
 * Names always fit (docs/routing.md, "Names"): the Service is `routing.serviceName` or the
 * agent's name, which the CRD requires to be a DNS-1035 label when serviceName is unset. A
 * slice is `<service>-<port>[-<number>][-ipv6]` when that is unambiguous (the port name has no
 * '-', is not `ipv6` and not all digits), else `<service>-<port>.<hash>`: a dot never occurs in the plain form,
 * and the hash covers (service, port, number, family, chunk), so no two agents' slices share a
 * name (`billing` + port `grpc-v1` and `billing-grpc` + port `v1`). Label values and the card
 * ConfigMap's name are shortened with a hash when the agent's name is too long for them.
 */
import { createHash } from 'node:crypto';
import type { V1ConfigMap, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import type { A2AAgentSpec } from '../api/a2aagent.js';
import { API_VERSION, KIND } from '../api/a2aagent.js';
import type { MappedInterface } from '../observation/interface-map.js';
import { podAddresses, type PodObservation } from '../observation/observed.js';
import { podPort } from '../observation/port-mapping.js';
import type { AdvertisedCard } from './advertised-card.js';
import { endpointConditions, type RoutingPlan } from './plan.js';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'a2a-operator';
export const AGENT_LABEL = 'a2a.dev/agent';
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** The slice label the EndpointSlice controller reads to leave a slice to its owner. */
export const SLICE_MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
// A label value cannot contain '/', so not the operator's name 'a2a.dev/operator' (REPORTING_CONTROLLER); this is the closest valid form.
export const SLICE_MANAGED_BY = 'operator.a2a.dev';
export const CARD_KEY = 'agent-card.json';
export const UNAVAILABLE_ANNOTATION = 'a2a.dev/unavailable';

export interface Owner {
  name: string;
  namespace: string;
  uid: string;
  /** The agent's creationTimestamp (routing/inventory.ts tells a predecessor's objects by it). */
  created?: string;
}

export function ownerReference(owner: Owner) {
  return { apiVersion: API_VERSION, kind: KIND, name: owner.name, uid: owner.uid, controller: true };
}

/** A short, stable hash (10 hex digits, 40 bits) of the given parts. */
export function shortHash(...parts: readonly (string | number)[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 10);
}

/** `text` cut to `max` characters, without a trailing '.' or '-' (names and label values must end alphanumeric). */
function cut(text: string, max: number): string {
  return text.slice(0, max).replace(/[.-]+$/, '');
}

/**
 * A label value (at most 63 characters) for a name: itself when it fits, else a prefix and a
 * hash. Agent names are DNS subdomains (up to 253), so only the length can be wrong.
 */
export function labelValue(name: string): string {
  return name.length <= 63 ? name : `${cut(name, 52)}-${shortHash(name)}`;
}

/**
 * Endpoints per EndpointSlice. The API allows 1000; the EndpointSlice controller writes 100 by
 * default (--max-endpoints-per-slice). 100 as well: a pod change rewrites one small object rather
 * than one near the 1.5 MiB etcd limit, and consumers that assume the controller's sizes
 * (kube-proxy, gateways) see what they are used to.
 */
export const MAX_ENDPOINTS_PER_SLICE = 100;

/**
 * The name of an agent's EndpointSlice (see the top of this file). `number` is set when a named
 * targetPort resolves to more than one pod port number; `chunk` counts from 0.
 */
export function endpointSliceName(
  serviceName: string,
  portName: string,
  family: 'IPv4' | 'IPv6',
  number?: number,
  chunk = 0,
): string {
  // Parsed from the end, a plain name is unambiguous: '-ipv6' only for the family, a numeric
  // segment only for the number, then the port, then the Service.
  const plain = !portName.includes('-') && portName !== 'ipv6' && !/^[0-9]+$/.test(portName) && chunk === 0;
  if (plain) {
    return `${serviceName}-${portName}${number === undefined ? '' : `-${number}`}${family === 'IPv6' ? '-ipv6' : ''}`;
  }
  return `${serviceName}-${portName}.${shortHash(serviceName, portName, number ?? '', family, chunk)}`;
}

function meta(owner: Owner, name: string, labels: Record<string, string> = {}) {
  return {
    name,
    namespace: owner.namespace,
    labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [AGENT_LABEL]: labelValue(owner.name), ...labels },
    ownerReferences: [ownerReference(owner)],
  };
}

/**
 * appProtocol from the bindings a port carries: the interfaces advertised on it, when `advertised`
 * is given (the routing plan's keys), else every interface the card maps to it. A binding the card
 * declares on a port but the pods do not serve there (gRPC declared on the JSON-RPC port) must not
 * make a mesh treat the port as gRPC and break the traffic that is routed.
 */
export function appProtocolFor(
  mapped: readonly MappedInterface[],
  portName: string,
  advertised?: ReadonlySet<string>,
): string | undefined {
  const on = mapped.filter(
    (m): m is Extract<MappedInterface, { mapped: true }> =>
      m.mapped && m.port.name === portName && (!advertised || advertised.has(m.key)),
  );
  const grpc = on.find((m) => m.iface.protocolBinding === 'GRPC');
  if (grpc) return grpc.endpoint.tls ? 'grpc' : 'kubernetes.io/h2c';
  const http = on[0];
  if (http) return http.endpoint.tls ? 'https' : 'http';
  return undefined;
}

export function buildService(
  owner: Owner,
  serviceName: string,
  spec: A2AAgentSpec,
  mapped: readonly MappedInterface[],
  /** Interface keys advertised (the routing plan's): each port's appProtocol follows them. */
  advertised?: ReadonlySet<string>,
): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(owner, serviceName),
    spec: {
      type: 'ClusterIP',
      // A ClusterIP of each family the cluster has: pods may be IPv6-only or dual-stack, and
      // kube-proxy routes a family's ClusterIP to that family's EndpointSlices only.
      ipFamilyPolicy: 'PreferDualStack',
      ports: spec.ports.map((p) => {
        const appProtocol = appProtocolFor(mapped, p.name, advertised);
        return {
          name: p.name,
          port: p.port,
          protocol: 'TCP',
          targetPort: p.targetPort ?? p.port,
          ...(appProtocol ? { appProtocol } : {}),
        };
      }),
    },
  };
}

/** The EndpointSlice addressType of a pod IP. */
export function addressFamily(address: string): 'IPv4' | 'IPv6' {
  return address.includes(':') ? 'IPv6' : 'IPv4';
}

export function buildEndpointSlices(
  owner: Owner,
  serviceName: string,
  spec: A2AAgentSpec,
  plan: RoutingPlan,
  pods: readonly PodObservation[],
  mapped: readonly MappedInterface[],
): V1EndpointSlice[] {
  const byUid = new Map(pods.map((p) => [p.pod.uid, p.pod]));
  const slices: V1EndpointSlice[] = [];
  for (const port of spec.ports) {
    const uids = plan.endpoints.get(port.name) ?? [];
    const groups = new Map<number, typeof uids>();
    for (const uid of uids) {
      const pod = byUid.get(uid);
      const n = pod && podPort(port, pod);
      if (!pod || podAddresses(pod).length === 0 || n === undefined) continue;
      groups.set(n, [...(groups.get(n) ?? []), uid]);
    }
    const fixed =
      typeof (port.targetPort ?? port.port) === 'number'
        ? ((port.targetPort ?? port.port) as number)
        : undefined;
    if (groups.size === 0) groups.set(fixed ?? port.port, []);
    const appProtocol = appProtocolFor(mapped, port.name, new Set(plan.advertised));
    for (const [number, list] of [...groups.entries()].sort((a, b) => a[0] - b[0])) {
      // A slice holds one address family. IPv4 is always written (empty when no pod
      // qualifies); IPv6 only while a pod has such an address. A dual-stack pod is in both,
      // with the address of each family.
      for (const family of ['IPv4', 'IPv6'] as const) {
        const endpoints = list.flatMap((uid) => {
          const pod = byUid.get(uid)!;
          return podAddresses(pod)
            .filter((a) => addressFamily(a) === family)
            .slice(0, 1)
            .map((address) => ({
              addresses: [address],
              conditions: endpointConditions(pod.ready),
              targetRef: { kind: 'Pod', namespace: owner.namespace, name: pod.name, uid: pod.uid },
              ...(pod.nodeName ? { nodeName: pod.nodeName } : {}),
            }));
        });
        if (family === 'IPv6' && endpoints.length === 0) continue;
        const chunks = Math.max(1, Math.ceil(endpoints.length / MAX_ENDPOINTS_PER_SLICE));
        for (let chunk = 0; chunk < chunks; chunk++) {
          slices.push({
            apiVersion: 'discovery.k8s.io/v1',
            kind: 'EndpointSlice',
            metadata: meta(
              owner,
              endpointSliceName(
                serviceName,
                port.name,
                family,
                groups.size === 1 ? undefined : number,
                chunk,
              ),
              {
                [SERVICE_NAME_LABEL]: serviceName,
                [SLICE_MANAGED_BY_LABEL]: SLICE_MANAGED_BY,
              },
            ),
            addressType: family,
            ports: [
              { name: port.name, port: number, protocol: 'TCP', ...(appProtocol ? { appProtocol } : {}) },
            ],
            endpoints: endpoints.slice(
              chunk * MAX_ENDPOINTS_PER_SLICE,
              (chunk + 1) * MAX_ENDPOINTS_PER_SLICE,
            ),
          });
        }
      }
    }
  }
  return slices;
}

/**
 * The apply body for an owned slice as observed, with its endpoints replaced: only the fields
 * this operator sets (server-set metadata and foreign labels are left out of the apply). The
 * observed resourceVersion is a precondition: a body built from a cache that lags a newer write
 * (one that removed a pod for a reason this shrink does not know) must fail with a conflict and
 * be retried from the fresh object, not put that pod back.
 */
export function sliceWithEndpoints(
  owner: Owner,
  serviceName: string,
  observed: V1EndpointSlice,
  endpoints: V1EndpointSlice['endpoints'],
): V1EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...meta(owner, observed.metadata?.name ?? '', {
        [SERVICE_NAME_LABEL]: serviceName,
        [SLICE_MANAGED_BY_LABEL]: SLICE_MANAGED_BY,
      }),
      ...(observed.metadata?.resourceVersion ? { resourceVersion: observed.metadata.resourceVersion } : {}),
    },
    addressType: observed.addressType,
    ports: observed.ports ?? [],
    endpoints: endpoints ?? [],
  };
}

/** `<agent>-agent-card`; an agent name too long for that (over 242) is cut and hashed to fit 253. */
export function cardConfigMapName(agentName: string): string {
  const suffix = '-agent-card';
  if (agentName.length + suffix.length <= 253) return `${agentName}${suffix}`;
  return `${cut(agentName, 253 - suffix.length - 11)}-${shortHash(agentName)}${suffix}`;
}

export function buildCardConfigMap(
  owner: Owner,
  card: AdvertisedCard | undefined,
  unavailable: string,
): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      ...meta(owner, cardConfigMapName(owner.name)),
      annotations: card ? {} : { [UNAVAILABLE_ANNOTATION]: unavailable },
    },
    data: card ? { [CARD_KEY]: cardText(card.card) } : {},
  };
}

/** The API server's limit on a ConfigMap's keys and values together. */
export const MAX_CONFIGMAP_DATA_BYTES = 1024 * 1024;

/**
 * The card as the ConfigMap holds it: indented for people reading it with kubectl, unless that
 * would not fit, then compact. Indenting a card of many short items multiplies its size (a
 * 400 KB card of small skills took 2.2 MB), and a card under the 1 MiB the probes read must not
 * become a ConfigMap the API server refuses.
 */
export function cardText(card: unknown): string {
  const pretty = `${JSON.stringify(card, null, 2)}\n`;
  if (Buffer.byteLength(pretty) + CARD_KEY.length <= MAX_CONFIGMAP_DATA_BYTES) return pretty;
  return `${JSON.stringify(card)}\n`;
}
