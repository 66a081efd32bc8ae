/**
 * Pod objects for pod hosts. With no kubelet, tests write what a kubelet would: the pod is
 * created with a fake node name, then its status (phase, podIP, Ready) is set through the
 * status subresource.
 */
import * as k8s from '@kubernetes/client-node';
import type { Cluster } from './cluster.js';

export interface PodSpecInput {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  ip: string;
  /** Every address (status.podIPs, `ip` first); default `[ip]`. A dual-stack pod has one per family. */
  ips?: string[];
  containerPorts?: { name?: string; containerPort: number }[];
  ready?: boolean;
  readinessGates?: string[];
}

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

function readyConditions(ready: boolean): k8s.V1PodCondition[] {
  const now = new Date();
  const status = ready ? 'True' : 'False';
  return [
    { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
    { type: 'Initialized', status: 'True', lastTransitionTime: now },
    { type: 'ContainersReady', status, lastTransitionTime: now },
    { type: 'Ready', status, lastTransitionTime: now },
  ];
}

export async function createPod(cluster: Cluster, input: PodSpecInput): Promise<k8s.V1Pod> {
  const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedPod({
    namespace: input.namespace,
    body: {
      metadata: { name: input.name, labels: input.labels },
      spec: {
        nodeName: 'a2a-test-node',
        readinessGates: input.readinessGates?.map((conditionType) => ({ conditionType })),
        containers: [{ name: 'agent', image: 'a2a-test/agent:local', ports: input.containerPorts }],
      },
    },
  });
  return setPodStatus(cluster, input.namespace, input.name, {
    ip: input.ip,
    ips: input.ips,
    ready: input.ready ?? true,
  });
}

export async function setPodStatus(
  cluster: Cluster,
  namespace: string,
  name: string,
  opts: { ip?: string; ips?: string[]; ready: boolean },
): Promise<k8s.V1Pod> {
  const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  const status: Record<string, unknown> = { phase: 'Running', conditions: readyConditions(opts.ready) };
  if (opts.ip) {
    status.podIP = opts.ip;
    status.podIPs = (opts.ips ?? [opts.ip]).map((ip) => ({ ip }));
    status.hostIP = '10.244.0.1';
  }
  return core.patchNamespacedPodStatus({ name, namespace, body: { status } }, mergePatch);
}

export async function deletePod(cluster: Cluster, namespace: string, name: string): Promise<void> {
  const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
}
