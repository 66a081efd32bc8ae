/** Reduces a Pod to what the decision needs (observed.ts ObservedPod). */
import type { V1Pod } from '@kubernetes/client-node';
import type { ObservedPod } from '../observation/observed.js';

export const CARD_VERIFIED_GATE = 'a2a.dev/card-verified';

function conditionStatus(pod: V1Pod, type: string): string | undefined {
  return pod.status?.conditions?.find((c) => c.type === type)?.status;
}

/**
 * A pod is probed when it runs, has an IP (at each of its addresses), its containers are ready and it is not terminating.
 * ContainersReady, not Ready: a pod that lists our readiness gate is not Ready until we say so.
 */
export function observePod(pod: V1Pod): ObservedPod {
  const terminating = Boolean(pod.metadata?.deletionTimestamp);
  const containersReady = conditionStatus(pod, 'ContainersReady') ?? conditionStatus(pod, 'Ready');
  // status.podIPs lists one address per family, the primary (podIP) first; older API servers
  // and hand-written objects may set podIP alone.
  const ips: string[] = [];
  for (const a of [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p) => p.ip)]) {
    if (a && !ips.includes(a)) ips.push(a);
  }
  const ip = ips[0];
  // No prototype: a lookup by a spec's port name (`constructor`) finds only the pod's own ports.
  const containerPorts: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name) containerPorts[p.name] = p.containerPort;
  }
  const gateCond = pod.status?.conditions?.find((c) => c.type === CARD_VERIFIED_GATE);
  return {
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    ip,
    ips,
    candidate: pod.status?.phase === 'Running' && Boolean(ip) && containersReady === 'True' && !terminating,
    ready: conditionStatus(pod, 'Ready') === 'True' && !terminating,
    terminating,
    containerPorts,
    gateListed: (pod.spec?.readinessGates ?? []).some((g) => g.conditionType === CARD_VERIFIED_GATE),
    gate: gateCond
      ? {
          status: gateCond.status as 'True' | 'False' | 'Unknown',
          reason: gateCond.reason,
          message: gateCond.message,
        }
      : undefined,
    nodeName: pod.spec?.nodeName,
  };
}
