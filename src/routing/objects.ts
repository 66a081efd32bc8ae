/**
 * The objects Enforce mode owns, built from a routing decision: a selector-less Service, one
 * EndpointSlice per port (per resolved pod port number when a named targetPort differs
 * between pods) and address family (pods' IPv4 and IPv6 addresses), and the advertised-card
 * ConfigMap. Pure builders; apply lives in the controller.
 */
import type { V1ConfigMap, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import type { A2AAgentSpec } from '../api/a2aagent.js';
import { API_VERSION, KIND } from '../api/a2aagent.js';
import type { MappedInterface } from '../controller/interface-map.js';
import { podAddresses, type PodObservation } from '../controller/observed.js';
import { podPort } from '../controller/port-mapping.js';
import type { AdvertisedCard } from './advertised-card.js';
import { endpointConditions, type RoutingPlan } from './plan.js';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'a2a-operator';
export const AGENT_LABEL = 'a2a.dev/agent';
// A label value cannot contain '/', so not the 'a2a.dev/operator' DESIGN names; this is the closest valid form.
export const SLICE_MANAGED_BY = 'operator.a2a.dev';
export const CARD_KEY = 'agent-card.json';
export const UNAVAILABLE_ANNOTATION = 'a2a.dev/unavailable';

export interface Owner {
  name: string;
  namespace: string;
  uid: string;
}

export function ownerReference(owner: Owner) {
  return { apiVersion: API_VERSION, kind: KIND, name: owner.name, uid: owner.uid, controller: true };
}

function meta(owner: Owner, name: string, labels: Record<string, string> = {}) {
  return {
    name,
    namespace: owner.namespace,
    labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [AGENT_LABEL]: owner.name, ...labels },
    ownerReferences: [ownerReference(owner)],
  };
}

/** appProtocol from the bindings a port carries (the card's declared interfaces on it). */
export function appProtocolFor(mapped: readonly MappedInterface[], portName: string): string | undefined {
  const on = mapped.filter(
    (m): m is Extract<MappedInterface, { mapped: true }> => m.mapped && m.port.name === portName,
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
        const appProtocol = appProtocolFor(mapped, p.name);
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
    const appProtocol = appProtocolFor(mapped, port.name);
    for (const [number, list] of [...groups.entries()].sort((a, b) => a[0] - b[0])) {
      const base =
        groups.size === 1 ? `${serviceName}-${port.name}` : `${serviceName}-${port.name}-${number}`;
      // A slice holds one address family. IPv4 keeps the plain name (always written, empty
      // when no pod qualifies); IPv6 gets its own slice, written only while a pod has such an
      // address. A dual-stack pod is in both, with the address of each family.
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
        slices.push({
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: meta(owner, family === 'IPv4' ? base : `${base}-ipv6`, {
            'kubernetes.io/service-name': serviceName,
            'endpointslice.kubernetes.io/managed-by': SLICE_MANAGED_BY,
          }),
          addressType: family,
          ports: [
            { name: port.name, port: number, protocol: 'TCP', ...(appProtocol ? { appProtocol } : {}) },
          ],
          endpoints,
        });
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
        'kubernetes.io/service-name': serviceName,
        'endpointslice.kubernetes.io/managed-by': SLICE_MANAGED_BY,
      }),
      ...(observed.metadata?.resourceVersion ? { resourceVersion: observed.metadata.resourceVersion } : {}),
    },
    addressType: observed.addressType,
    ports: observed.ports ?? [],
    endpoints: endpoints ?? [],
  };
}

export function cardConfigMapName(agentName: string): string {
  return `${agentName}-agent-card`;
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
    data: card ? { [CARD_KEY]: `${JSON.stringify(card.card, null, 2)}\n` } : {},
  };
}
