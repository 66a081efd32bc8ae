/**
 * Maps a card interface to one of the agent's ports (docs/api.md, `spec.ports`): by the URL's port number
 * (443/80 when it names none), and, when spec.hosts is set, only for hosts that belong to the
 * agent. Only mapped interfaces are ever dialled, and only at the agent's own pods.
 */
import type { A2AAgentSpec, AgentPort } from '../api/a2aagent.js';
import type { InterfaceEndpoint } from '../card/index.js';
import type { ObservedPod } from './observed.js';

/** Every in-cluster DNS form of the managed Service's name. */
export function serviceHostNames(serviceName: string, namespace: string): string[] {
  const base = `${serviceName}.${namespace}`;
  return [serviceName, base, `${base}.svc`, `${base}.svc.cluster.local`];
}

/** Hosts card URLs may use, or undefined when any host is accepted (spec.hosts unset). */
export function allowedHosts(
  spec: A2AAgentSpec,
  serviceName: string,
  namespace: string,
): string[] | undefined {
  if (!spec.hosts || spec.hosts.length === 0) return undefined;
  return [...serviceHostNames(serviceName, namespace), ...spec.hosts];
}

export function portForEndpoint(spec: A2AAgentSpec, endpoint: InterfaceEndpoint): AgentPort | undefined {
  return spec.ports.find((p) => p.port === endpoint.port);
}

/** The pod port number behind an agent port, or undefined when a named targetPort is not on the pod. */
export function podPort(port: AgentPort, pod: Pick<ObservedPod, 'containerPorts'>): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  // Own properties only: `targetPort: constructor` is a valid port name, not Object.prototype's.
  return Object.hasOwn(pod.containerPorts, target) ? pod.containerPorts[target] : undefined;
}
