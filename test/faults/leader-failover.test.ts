// Leader failover under load: three agents of two pods each, pods breaking and healing gRPC at
// random, two operators with Lease leader election. The leader is SIGKILLed while reconciles are
// in flight (FAILOVERS times, the killed one coming back as the new standby). Throughout, an
// outside watcher checks the routing invariant of every agent against the time some leader
// held the lease (between a kill and the takeover, routing stays as it was: fail static); only
// the lease holder reconciles; spec changes made while no leader runs are picked up; at the end
// every agent is Ready with gRPC routed to all its pods.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startHealthyPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';
import {
  BindingHistory,
  churnGrpc,
  FULL,
  healGrpc,
  log,
  observeRouting,
  reconcileCount,
  seeded,
  seedFromEnv,
  sleep,
  Uptime,
} from './support.js';
import { repeat } from '../harness/repeat.js';

const TAG = 'leader-failover';
const AGENTS = ['fa', 'fb', 'fc'];
const PERIOD = 3;
const TIMEOUT = 1;
const THRESHOLD = 2;
const D_MS = (PERIOD + 1 + 2 + THRESHOLD * TIMEOUT + 3) * 1000;
const FAILOVERS = FULL ? 4 : 2;

let cluster: Cluster;
let ns: string;
const ops = new Map<string, OperatorProcess>();
const pods: AgentPod[] = [];
const grpc = new BindingHistory();
const leading = new Uptime();
let generation = 1;

function probe(period: number) {
  return { periodSeconds: period, timeoutSeconds: TIMEOUT, failureThreshold: THRESHOLD };
}

async function holder(): Promise<string> {
  return (
    await cluster.kubectl(['get', 'lease', 'a2a-operator', '-n', ns, '-o', 'jsonpath={.spec.holderIdentity}'])
  ).stdout;
}

async function operator(id: string): Promise<OperatorProcess> {
  const op = await startOperator({
    kubeconfig: cluster.kubeconfigPath,
    namespaces: [ns],
    leaderElect: true,
    leaseNamespace: ns,
    identity: id,
  });
  await op.waitReady();
  ops.set(id, op);
  return op;
}

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('failover');
  const started = await Promise.all(
    AGENTS.flatMap((app) => [0, 1].map((i) => startHealthyPod(cluster, ns, app, i))),
  );
  for (const p of started) {
    pods.push(p);
    grpc.set(p.ip, true);
  }
  await apply(cluster, ...AGENTS.map((a) => agentManifest(ns, a, healthySpec(a, probe(PERIOD)))));
  await Promise.all([operator('op-0'), operator('op-1')]);
  await waitFor('a lease holder', async () => (await holder()) || undefined);
  leading.up();
  for (const a of AGENTS)
    await waitAgent(cluster, ns, a, 'Ready', (x) => condition(x, 'Ready')?.status === 'True');
});

after(async () => {
  await Promise.all([...ops.values()].map((o) => o.stop('SIGKILL')));
  await Promise.all(pods.map((p) => p.destroy()));
});

describe('leader failover under load', () => {
  test('the standby takes over; invariant kept; nothing missed', async () => {
    const random = seeded(seedFromEnv(TAG, 20261202));
    const churn = churnGrpc(pods, grpc, random, () => 500 + random() * 2000);
    const violations: string[] = [];
    let observations = 0;
    const watcher = repeat(async () => {
      for (const a of AGENTS) {
        const o = await observeRouting(cluster, ns, a).catch(() => undefined);
        if (!o) continue;
        observations++;
        const from = leading.windowStart(o.at, D_MS);
        for (const ip of o.slices.get(`${a}-grpc`) ?? [])
          if (!grpc.upDuring(ip, from, o.at))
            violations.push(`${o.at}: ${a} routes gRPC to ${ip}, down since ${from}`);
        if ((o.slices.get(`${a}-http`) ?? []).length !== 2)
          violations.push(`${o.at}: ${a} http routes to ${(o.slices.get(`${a}-http`) ?? []).length}/2`);
      }
    });
    try {
      for (let f = 0; f < FAILOVERS; f++) {
        await sleep(3_000 + random() * 3_000); // under load: probes and reconciles in flight
        const leader = await holder();
        const standby = [...ops.keys()].find((id) => id !== leader)!;
        assert.equal(reconcileCount(await ops.get(standby)!.metrics()), 0, `standby ${standby} reconciled`);
        await ops.get(leader)!.stop('SIGKILL');
        ops.delete(leader);
        leading.down();
        // A change only the next leader can pick up.
        generation++;
        await apply(
          cluster,
          ...AGENTS.map((a) => agentManifest(ns, a, healthySpec(a, probe(PERIOD + 1 + (f % 2))))),
        );
        await waitFor(`${standby} to take the lease`, async () => (await holder()) === standby, 45_000, 250);
        leading.up();
        log(TAG, `failover ${f + 1}: ${leader} killed, ${standby} leads`);
        await operator(leader); // back as the new standby
      }
      await churn.stop();
      await healGrpc(pods, grpc);
      for (const a of AGENTS) {
        const x = await waitAgent(
          cluster,
          ns,
          a,
          'Ready at the end',
          (y) => condition(y, 'Ready')?.status === 'True',
          60_000,
        );
        assert.equal(x.metadata.generation, generation, `${a} generation`);
      }
      await watcher.stop();
    } finally {
      // A failure above must not leave the watcher or the churn running: the file would never exit.
      await Promise.allSettled([churn.stop(), watcher.stop()]);
    }
    for (const a of AGENTS) {
      const o = await observeRouting(cluster, ns, a);
      assert.deepEqual(
        o.slices.get(`${a}-grpc`),
        pods
          .filter((p) => p.name.startsWith(`${a}-`))
          .map((p) => p.ip)
          .sort(),
      );
    }
    log(TAG, `${FAILOVERS} failovers, ${observations} observations, ${violations.length} violations`);
    assert.deepEqual(violations, []);
  });
});
