/**
 * The real single-node cluster does what the simulated pods only pretend: the kubelet computes
 * Ready from a readiness gate, kube-proxy routes the `kubernetes` Service's ClusterIP from a pod
 * to the API server, and the garbage collector deletes dependents. The ground the other e2e
 * tests stand on.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { waitFor } from '../harness/wait.js';
import { createPodNamespace, deleteNamespace, useRealCluster, type E2ECluster } from './fixture.js';

const GATE = 'a2a.dev/card-verified';
const TIMEOUT = 120_000;

let cluster: E2ECluster;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let ns: string;

function cond(pod: k8s.V1Pod, type: string): k8s.V1PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

async function kubectlOk(args: string[], input?: string): Promise<string> {
  const r = await cluster.kubectl(args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function setGate(pod: string, status: 'True' | 'False'): Promise<void> {
  const patch = {
    status: { conditions: [{ type: GATE, status, reason: 'E2E', message: `set ${status} by the test` }] },
  };
  await kubectlOk(['-n', ns, 'patch', 'pod', pod, '--subresource=status', '-p', JSON.stringify(patch)]);
}

async function gone(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return true;
    throw err;
  }
}

before(async () => {
  cluster = await useRealCluster();
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  apps = cluster.kc.makeApiClient(k8s.AppsV1Api);
  ns = await createPodNamespace(cluster, 'e2e-cluster');
});

after(async () => {
  if (ns) await deleteNamespace(cluster, ns);
});

describe('real single-node cluster', () => {
  test('a readiness gate holds a Running pod not-Ready until its condition is True (the kubelet computes Ready)', async () => {
    const deployment: k8s.V1Deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gated', namespace: ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'gated' } },
        template: {
          metadata: { labels: { app: 'gated' } },
          spec: {
            readinessGates: [{ conditionType: GATE }],
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'pause', image: cluster.pauseImage, imagePullPolicy: 'Never' }],
          },
        },
      },
    };
    await apps.createNamespacedDeployment({ namespace: ns, body: deployment });
    // the Deployment and ReplicaSet controllers make the pod, the scheduler binds it, the
    // kubelet runs it: its containers become ready, the pod does not
    const pod = await waitFor(
      'the gated pod running with its containers ready',
      async () => {
        const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=gated' });
        return pods.items.find(
          (p) => p.status?.phase === 'Running' && cond(p, 'ContainersReady')?.status === 'True',
        );
      },
      TIMEOUT,
    );
    const name = pod.metadata!.name!;
    assert.equal(pod.spec?.nodeName, cluster.nodeName);
    const ready = cond(pod, 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.reason, 'ReadinessGatesNotReady');
    const dep = await apps.readNamespacedDeployment({ name: 'gated', namespace: ns });
    assert.equal(dep.status?.availableReplicas ?? 0, 0);

    await setGate(name, 'True');
    await waitFor(
      'the kubelet to mark the pod Ready',
      async () => cond(await core.readNamespacedPod({ name, namespace: ns }), 'Ready')?.status === 'True',
      TIMEOUT,
    );
    await waitFor(
      'the Deployment to count the pod available',
      async () =>
        (await apps.readNamespacedDeployment({ name: 'gated', namespace: ns })).status?.availableReplicas ===
        1,
      TIMEOUT,
    );

    // and back: the gate is the kubelet's input, not a one-way latch
    await setGate(name, 'False');
    const notReady = await waitFor(
      'the kubelet to mark the pod not Ready again',
      async () => {
        const c = cond(await core.readNamespacedPod({ name, namespace: ns }), 'Ready');
        return c?.status === 'False' ? c : undefined;
      },
      TIMEOUT,
    );
    assert.equal(notReady.reason, 'ReadinessGatesNotReady');
  });

  test('a pod reaches the API server through the `kubernetes` Service ClusterIP (kube-proxy) with its token', async () => {
    const svc = await core.readNamespacedService({ name: 'kubernetes', namespace: 'default' });
    const clusterIP = svc.spec?.clusterIP;
    assert.ok(clusterIP, 'the kubernetes Service has a ClusterIP');
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'whoami' },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'kubectl',
              image: cluster.kubectlImage,
              imagePullPolicy: 'Never',
              // in-cluster config: KUBERNETES_SERVICE_HOST (the ClusterIP) and the projected token
              args: ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}{"\\n"}', '--v=6'],
            },
          ],
        },
      },
    });
    const phase = await waitFor(
      'the whoami pod to finish',
      async () => {
        const p = (await core.readNamespacedPod({ name: 'whoami', namespace: ns })).status?.phase;
        return p === 'Succeeded' || p === 'Failed' ? p : undefined;
      },
      TIMEOUT,
    );
    // kubectl logs: the API server reaches the kubelet with its client certificate
    const logs = await kubectlOk(['-n', ns, 'logs', 'whoami']);
    assert.equal(phase, 'Succeeded', logs);
    assert.match(logs, new RegExp(`https://${clusterIP.replace(/\./g, '\\.')}:443/`));
    assert.match(logs, new RegExp(`^system:serviceaccount:${ns}:default$`, 'm'));
  });

  test('the garbage collector deletes dependents: a ConfigMap owned by another, a Deployment’s ReplicaSet and pods', async () => {
    const owner = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'owner' } },
    });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'dependent',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! },
          ],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: ns });
    await waitFor(
      'the dependent ConfigMap to be garbage-collected',
      () => gone(() => core.readNamespacedConfigMap({ name: 'dependent', namespace: ns })),
      TIMEOUT,
    );

    const rs = await apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=gated' });
    assert.equal(rs.items.length, 1, 'the gated Deployment has its ReplicaSet');
    await apps.deleteNamespacedDeployment({ name: 'gated', namespace: ns });
    await waitFor(
      'the ReplicaSet and pods of the deleted Deployment to be garbage-collected',
      async () =>
        (await apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=gated' })).items.length ===
          0 &&
        (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=gated' })).items.length === 0,
      TIMEOUT,
    );
  });
});
