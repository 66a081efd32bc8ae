// Two operator processes with Lease leader election: exactly one reconciles; both serve cards
// and health (hot standby); SIGKILL the leader and the standby takes over within the lease
// duration (15 s) plus a few seconds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';

const LEASE_SECONDS = 15;
let cluster: Cluster;
let ns: string;
const ops: Record<string, OperatorProcess> = {};
const pods: AgentPod[] = [];

async function reconciles(op: OperatorProcess): Promise<number> {
  const text = await op.metrics();
  return [...text.matchAll(/^a2a_operator_reconcile_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
}

async function holder(): Promise<string> {
  return (
    await cluster.kubectl(['get', 'lease', 'a2a-operator', '-n', ns, '-o', 'jsonpath={.spec.holderIdentity}'])
  ).stdout;
}

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('leader');
  pods.push(
    await startAgentPod(cluster, {
      namespace: ns,
      name: 'elected-0',
      labels: { app: 'elected' },
      config: healthyAgentConfig(`elected.${ns}.svc`),
    }),
  );
  for (const id of ['op-a', 'op-b']) {
    ops[id] = await startOperator({
      kubeconfig: cluster.kubeconfigPath,
      namespaces: [ns],
      leaderElect: true,
      leaseNamespace: ns,
      identity: id,
    });
  }
  await Promise.all(Object.values(ops).map((o) => o.waitReady()));
});

after(async () => {
  await Promise.all(Object.values(ops).map((o) => o.stop('SIGKILL')));
  await Promise.all(pods.map((p) => p.destroy()));
});

describe('leader election', () => {
  let leader = '';
  let standby = '';

  test('exactly one replica reconciles; both serve cards', async () => {
    leader = await waitFor('a lease holder', async () => (await holder()) || undefined);
    standby = leader === 'op-a' ? 'op-b' : 'op-a';
    await apply(cluster, agentManifest(ns, 'elected', healthySpec('elected')));
    await waitAgent(cluster, ns, 'elected', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
    assert.ok((await reconciles(ops[leader]!)) > 0, 'the leader reconciles');
    assert.equal(await reconciles(ops[standby]!), 0, 'the standby does not');
    for (const op of Object.values(ops)) {
      const card = await fetch(`${op.cardsUrl}/cards/${ns}/elected`);
      assert.equal(card.status, 200, 'every replica serves the advertised card');
    }
  });

  test('SIGKILL the leader: the standby takes over within the lease duration plus a few seconds', async () => {
    await ops[leader]!.stop('SIGKILL');
    const killed = Date.now();
    // A spec change only the new leader can observe.
    await apply(
      cluster,
      agentManifest(ns, 'elected', healthySpec('elected', { periodSeconds: 6, timeoutSeconds: 2 })),
    );
    const a = await waitAgent(
      cluster,
      ns,
      'elected',
      'new generation observed',
      (x) => condition(x, 'Ready')?.status === 'True',
      (LEASE_SECONDS + 15) * 1000,
    );
    const tookOver = Date.now() - killed;
    assert.equal(await holder(), standby);
    assert.ok((await reconciles(ops[standby]!)) > 0);
    assert.ok(tookOver < (LEASE_SECONDS + 8) * 1000, `takeover took ${tookOver}ms`);
    assert.equal(a.status?.observedGeneration, a.metadata.generation);
    process.stderr.write(
      `[leader] standby took over and reconciled ${tookOver}ms after the leader was killed\n`,
    );
  });
});
