// The API server restarted mid-run, etcd and its data kept (a private control plane: the shared
// one serves the other tests). The operator is not restarted: its watches must recover by
// themselves. While the API server is down an agent's pod breaks its gRPC binding (the operator
// can probe but not write); right after it is back: a spec change, a new agent, a pod deleted.
// None of these may be missed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '../harness/cluster.js';
import { startHealthyPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthySpec } from '../harness/manifests.js';
import { deletePod } from '../harness/pods.js';
import { condition, waitAgent } from '../harness/wait.js';
import { log, observeRouting, privateCluster, stopApiserverFor } from './support.js';

const TAG = 'apiserver-restart';
const PROBE = { periodSeconds: 4, timeoutSeconds: 1, failureThreshold: 2 };
let cluster: Cluster | undefined;
let ns: string;
let operator: OperatorProcess;
const pods: Record<string, AgentPod> = {};

async function pod(app: string, i: number): Promise<AgentPod> {
  const p = await startHealthyPod(cluster!, ns, app, i);
  pods[p.name] = p;
  return p;
}

before(async () => {
  cluster = await privateCluster();
  if (!cluster) return;
  ns = await cluster.createNamespace('apirestart');
  await Promise.all([pod('alpha', 0), pod('alpha', 1), pod('beta', 0), pod('gamma', 0)]);
  await apply(
    cluster,
    agentManifest(ns, 'alpha', healthySpec('alpha', PROBE)),
    agentManifest(ns, 'beta', healthySpec('beta', PROBE)),
  );
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
  for (const n of ['alpha', 'beta'])
    await waitAgent(cluster, ns, n, 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
});

after(async () => {
  await operator?.stop();
  await Promise.all(Object.values(pods).map((p) => p.destroy(false)));
});

describe('API server restart', () => {
  test('watches recover without an operator restart; changes during and right after are seen', async (t) => {
    if (!cluster) return t.skip('needs a control plane this process owns (not USE_EXISTING_CLUSTER)');
    const pid = operator.proc.child.pid;
    // Down, then break a binding the operator can still probe.
    const { back } = await stopApiserverFor(cluster, 5_000);
    await pods['alpha-0']!.control('/grpc', { running: false });
    await back;
    log(TAG, 'API server back');
    // Right after: a spec change, a new agent, a deleted pod.
    await apply(
      cluster,
      agentManifest(ns, 'beta', healthySpec('beta', { ...PROBE, periodSeconds: 5 })),
      agentManifest(ns, 'gamma', healthySpec('gamma', PROBE)),
    );
    await deletePod(cluster, ns, 'alpha-1');

    const alpha = await waitAgent(
      cluster,
      ns,
      'alpha',
      'gRPC withdrawn, alpha-1 gone',
      (a) =>
        a.status?.interfaces?.find((i) => i.protocolBinding === 'GRPC')?.advertised === false &&
        a.status?.card?.podsConsistent === '1/1',
      60_000,
    );
    assert.equal(condition(alpha, 'Ready')?.status, 'False');
    const routing = await observeRouting(cluster, ns, 'alpha');
    assert.deepEqual(routing.slices.get('alpha-grpc') ?? [], [], 'the broken pod is not routed for gRPC');
    assert.deepEqual(
      routing.slices.get('alpha-http'),
      [pods['alpha-0']!.ip],
      'the deleted pod left the slice',
    );
    const beta = await waitAgent(
      cluster,
      ns,
      'beta',
      'new generation',
      (a) => condition(a, 'Ready')?.status === 'True',
    );
    assert.equal(beta.metadata.generation, 2);
    await waitAgent(cluster, ns, 'gamma', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
    assert.equal(operator.proc.child.exitCode, null, 'the operator kept running');
    assert.equal(operator.proc.child.pid, pid);
  });
});
