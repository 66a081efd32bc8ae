// Two operator processes with Lease leader election: exactly one reconciles; both serve cards
// and health (hot standby); SIGKILL the leader and the standby takes over within the lease
// duration (15 s) plus a few seconds; a leader paused past its lease (SIGSTOP) wakes up to a
// new leader and writes nothing before it exits.
import { readFileSync } from 'node:fs';
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

  test('a leader paused past its lease writes nothing after it wakes, and exits', async () => {
    const paused = standby; // the leader since the previous test
    ops['op-c'] = await startOperator({
      kubeconfig: cluster.kubeconfigPath,
      namespaces: [ns],
      leaderElect: true,
      leaseNamespace: ns,
      identity: 'op-c',
    });
    await ops['op-c'].waitReady();
    const old = ops[paused]!;
    assert.ok(
      writesIn(old.logFile).length > 0,
      'the leader logged its writes (the check below can see them)',
    );
    old.proc.child.kill('SIGSTOP');
    let woke = 0;
    try {
      await waitFor(
        'op-c to take the lease',
        async () => ((await holder()) === 'op-c' ? true : undefined),
        (LEASE_SECONDS + 20) * 1000,
      );
      // Break gRPC while it sleeps: the new leader confirms the failure and withdraws it. The
      // paused replica remembers gRPC as verified, so on waking its own decision (a first
      // failure, still advertised) differs from what is written: without the write guard it
      // would write slices and status back.
      await pods[0]!.control('/grpc', { running: false });
      await waitAgent(
        cluster,
        ns,
        'elected',
        'the new leader withdrew gRPC',
        (x) =>
          x.status?.observedGeneration === x.metadata.generation &&
          x.status.interfaces?.some((i) => i.protocolBinding === 'GRPC' && !i.advertised) === true,
        90_000,
      );
    } finally {
      woke = Date.now();
      old.proc.child.kill('SIGCONT');
    }
    const code = await Promise.race([
      old.proc.exited,
      new Promise((r) => setTimeout(() => r('still running'), 30_000)),
    ]);
    assert.equal(code, 1, 'the old leader exits on the lost lease');
    // A request is logged when its answer arrives: count those sent after waking.
    const after = writesIn(old.logFile).filter((w) => w.time - w.seconds * 1000 >= woke);
    assert.deepEqual(after, [], 'no API write after waking');
    assert.match(readFileSync(old.logFile, 'utf8'), /lost the lease/);
    await pods[0]!.control('/grpc', { running: true });
  });
});

/** The API writes an operator logged (debug level: method, path, time). */
function writesIn(logFile: string): { time: number; seconds: number; method: string; path: string }[] {
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"api write"'))
    .map((l) => JSON.parse(l) as { time: number; seconds: number; method: string; path: string });
}
