// Watch expiry: the operator's resourceVersions are made too old (410 Gone) and it must relist,
// missing nothing. A private control plane: the API server is stopped; meanwhile changes are
// written straight into etcd, as another API server of the cluster would (custom resources are
// stored as JSON): one agent's spec changes (new generation), a new agent appears; then etcd is
// compacted to its current revision and the API server started again. Its fresh watch cache
// starts after every resourceVersion the operator holds, so re-watching gets 410; only a relist
// shows the changes. Evidence of the relist: more LISTs of a2aagents in the operator's metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Cluster } from '../harness/cluster.js';
import { startHealthyPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';
import {
  compactEtcd,
  etcdGetJson,
  etcdPutJson,
  log,
  metricSum,
  privateCluster,
  stopApiserverFor,
} from './support.js';

const TAG = 'watch-expiry';
const PROBE = { periodSeconds: 4, timeoutSeconds: 1, failureThreshold: 2 };
let cluster: Cluster | undefined;
let ns: string;
let operator: OperatorProcess;
const pods: AgentPod[] = [];

before(async () => {
  cluster = await privateCluster();
  if (!cluster) return;
  ns = await cluster.createNamespace('expiry');
  for (const app of ['alpha', 'beta']) {
    pods.push(await startHealthyPod(cluster, ns, app));
  }
  await apply(cluster, agentManifest(ns, 'alpha', healthySpec('alpha', PROBE)));
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
  await waitAgent(cluster, ns, 'alpha', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
});

after(async () => {
  await operator?.stop();
  await Promise.all(pods.map((p) => p.destroy(false)));
});

function agentLists(metrics: string): number {
  return metricSum(metrics, 'a2a_operator_api_requests_total', { method: 'GET', resource: 'a2aagents' });
}

describe('watch expiry (410 after etcd compaction)', () => {
  test('relists and misses no change', async (t) => {
    if (!cluster) return t.skip('needs a control plane this process owns (not USE_EXISTING_CLUSTER)');
    const cp = cluster.controlPlane!;
    const pid = operator.proc.child.pid;
    const listsBefore = agentLists(await operator.metrics());
    const key = (name: string) => `/registry/a2a.dev/a2aagents/${ns}/${name}`;

    const { back } = await stopApiserverFor(cluster, 4_000);
    const alpha = await etcdGetJson(cp.etcdEndpoint, key('alpha'));
    assert.ok(alpha, 'alpha is stored as JSON in etcd');
    const meta = alpha.metadata as Record<string, unknown>;
    const changed = {
      ...alpha,
      metadata: { ...meta, generation: (meta.generation as number) + 1 },
      spec: { ...(alpha.spec as object), probe: { ...PROBE, periodSeconds: 5 } },
    };
    await etcdPutJson(cp.etcdEndpoint, key('alpha'), changed);
    const { status: _s, ...withoutStatus } = alpha;
    const beta = {
      ...withoutStatus,
      metadata: {
        name: 'beta',
        namespace: ns,
        uid: randomUUID(),
        generation: 1,
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
      spec: { ...(alpha.spec as object), selector: { matchLabels: { app: 'beta' } } },
    };
    await etcdPutJson(cp.etcdEndpoint, key('beta'), beta);
    const revision = await compactEtcd(cp.etcdEndpoint);
    log(TAG, `changes written to etcd while the API server was down; compacted at revision ${revision}`);
    await back;

    const a = await waitAgent(
      cluster,
      ns,
      'alpha',
      'the generation written while down',
      (x) => condition(x, 'Ready')?.status === 'True',
      60_000,
    );
    assert.equal(a.metadata.generation, (meta.generation as number) + 1);
    await waitAgent(
      cluster,
      ns,
      'beta',
      'the agent created while down',
      (x) => condition(x, 'Ready')?.status === 'True',
      60_000,
    );
    const listsAfter = agentLists(await operator.metrics());
    assert.ok(listsAfter > listsBefore, `no relist of a2aagents (${listsBefore} → ${listsAfter} LISTs)`);
    assert.equal(operator.proc.child.exitCode, null);
    assert.equal(operator.proc.child.pid, pid);
  });
});
