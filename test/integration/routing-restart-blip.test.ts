// Hysteresis survives restarts (docs/routing.md, "Hysteresis across restarts"): a new operator process starts with an empty
// probe memory. "Was verified" is seeded from what is advertised and routed now, so one failed
// probe right after the restart is a first failure (reprobed fast), not a withdrawal: under a
// one-probe blip nothing leaves the slices or the card.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';
import { repeat } from '../harness/repeat.js';
import { observeOwnedRouting } from '../harness/routing-observer.js';

let cluster: Cluster;
let ns: string;
let operator: OperatorProcess | undefined;
const pods: AgentPod[] = [];

/** The addresses blip's http and grpc slices route to, from one read of the operator's slices. */
async function routed(): Promise<{ http: string[]; grpc: string[] }> {
  const v = await observeOwnedRouting(cluster, ns, 'blip');
  return { http: v.http, grpc: v.grpc };
}

async function grpcProbes(op: OperatorProcess, failed: boolean): Promise<number> {
  const text = await op.metrics();
  let n = 0;
  for (const m of text.matchAll(/^a2a_operator_probes_total\{([^}]*)\} (\d+)/gm)) {
    const labels = m[1]!;
    if (!labels.includes('binding="GRPC"')) continue;
    if (labels.includes('state="Verified"') !== failed) n += Number(m[2]);
  }
  return n;
}

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('blip');
  for (const i of [0, 1]) {
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: `blip-${i}`,
        labels: { app: 'blip' },
        config: healthyAgentConfig(`blip.${ns}.svc`),
      }),
    );
  }
  // A high threshold leaves seconds between the first failure and its confirmation.
  await apply(
    cluster,
    agentManifest(
      ns,
      'blip',
      healthySpec('blip', { periodSeconds: 8, timeoutSeconds: 2, failureThreshold: 5 }),
    ),
  );
});

after(async () => {
  await operator?.stop();
  await Promise.all(pods.map((p) => p.destroy()));
});

test('an operator restarted under a one-probe blip withdraws nothing', async () => {
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
  await waitAgent(cluster, ns, 'blip', 'Ready', (a) => condition(a, 'Ready')?.status === 'True', 60_000);
  const all = pods.map((p) => p.ip).sort();
  assert.deepEqual((await routed()).grpc, all);
  await operator.stop();

  // gRPC on pod 0 is down when the new process probes it first, and back right after.
  await pods[0]!.control('/grpc', { running: false });
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  const op = operator;
  const seen: string[] = [];
  const watcher = repeat(async () => {
    const ips = (await routed().catch(() => ({ grpc: all }))).grpc;
    if (JSON.stringify(ips) !== JSON.stringify(all)) seen.push(`grpc slice ${ips.join(',') || '(empty)'}`);
    await new Promise((r) => setTimeout(r, 100));
  });
  try {
    await op.waitReady();
    await waitFor('the first failed gRPC probe', async () => (await grpcProbes(op, true)) > 0, 60_000, 100);
    await pods[0]!.control('/grpc', { running: true });
    const before = await grpcProbes(op, false);
    await waitFor(
      'gRPC verified again on both pods',
      async () => (await grpcProbes(op, false)) >= before + 1,
      60_000,
    );
    const a = await waitAgent(cluster, ns, 'blip', 'status', () => true);
    assert.equal(a.status?.interfaces?.[2]?.advertised, true, 'gRPC stays advertised');
    assert.equal(a.status?.interfaces?.[2]?.state, 'Verified');
  } finally {
    await watcher.stop();
  }
  assert.deepEqual(seen, [], 'the grpc slice kept both pods throughout');
});

// The card has no seed: a memory that began after routing holds no good card to keep through a
// failed fetch. A routed pod's first failed fetch is a pending verdict, not a withdrawal
// (docs/routing.md, "Hysteresis across restarts"): neither slice loses it.
test('an operator restarted while a pod fails its first card fetch withdraws nothing', async () => {
  const all = pods.map((p) => p.ip).sort();
  await waitFor('both pods routed on both ports', async () => {
    const { http, grpc } = await routed();
    return JSON.stringify(http) === JSON.stringify(all) && JSON.stringify(grpc) === JSON.stringify(all);
  });
  await operator!.stop();

  // Pod 0's card trickles past the probe timeout (2 s) when the new process fetches it first.
  await pods[0]!.control('/card', { serve: 'slow', intervalMs: 500 });
  const streams = async () => (await pods[0]!.state()).cardStreams.length;
  const streamsBefore = await streams();
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  const op = operator;
  const seen: string[] = [];
  const watcher = repeat(async () => {
    const now = await routed().catch(() => ({ http: all, grpc: all }));
    for (const port of ['http', 'grpc'] as const) {
      const ips = now[port];
      if (JSON.stringify(ips) !== JSON.stringify(all))
        seen.push(`${port} slice ${ips.join(',') || '(empty)'}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  });
  try {
    await op.waitReady();
    await waitFor(
      'the first card fetch of pod 0 given up',
      async () => (await streams()) > streamsBefore,
      60_000,
      100,
    );
    await pods[0]!.control('/card', { serve: 'sdk' });
    // Both pods' gRPC verified by this process: pod 1's at once, pod 0's after its card came back.
    await waitFor('gRPC verified on both pods', async () => (await grpcProbes(op, false)) >= 2, 60_000);
    const a = await waitAgent(cluster, ns, 'blip', 'Ready', (x) => condition(x, 'Ready')?.status === 'True');
    assert.equal(
      a.status?.interfaces?.every((i) => i.advertised),
      true,
      'every interface stays advertised',
    );
  } finally {
    await watcher.stop();
  }
  assert.deepEqual(seen, [], 'both slices kept both pods throughout');
});
