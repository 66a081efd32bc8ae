// Routing with mixed pods and the readiness gate (docs/routing.md): gRPC verified on two of three
// pods → the grpc slice lists exactly those two; the a2a.dev/card-verified pod condition follows
// each pod's verification; a new pod whose card lies never gets True.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';

const GATE = 'a2a.dev/card-verified';
let cluster: Cluster;
let ns: string;
let operator: OperatorProcess;
const pods: AgentPod[] = [];

async function sliceIps(port: string): Promise<string[]> {
  const s = JSON.parse(
    (await cluster.kubectl(['get', 'endpointslice', `mixed-${port}`, '-n', ns, '-o', 'json'])).stdout,
  ) as {
    endpoints?: {
      addresses: string[];
      conditions: { ready: boolean; serving: boolean; terminating: boolean };
      targetRef: { name: string };
    }[];
  };
  for (const e of s.endpoints ?? [])
    assert.deepEqual(e.conditions, { ready: true, serving: true, terminating: false });
  return (s.endpoints ?? []).map((e) => e.addresses[0]!).sort();
}

async function gate(name: string): Promise<{ status: string; reason?: string } | undefined> {
  const pod = JSON.parse((await cluster.kubectl(['get', 'pod', name, '-n', ns, '-o', 'json'])).stdout) as {
    status: { conditions?: { type: string; status: string; reason?: string }[] };
  };
  return pod.status.conditions?.find((c) => c.type === GATE);
}

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('mixed');
  const svc = `mixed.${ns}.svc`;
  for (const i of [0, 1, 2]) {
    const config = healthyAgentConfig(svc);
    if (i === 2) config.grpc = { port: 9090, register: false }; // gRPC handler never registered on this pod
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: `mixed-${i}`,
        labels: { app: 'mixed' },
        config,
        readinessGates: [GATE],
      }),
    );
  }
  await apply(
    cluster,
    agentManifest(ns, 'mixed', healthySpec('mixed', { periodSeconds: 4, timeoutSeconds: 2 })),
  );
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
  await waitAgent(
    cluster,
    ns,
    'mixed',
    'gRPC confirmed failing on one pod and verified on the other two',
    // On a busy machine a healthy pod's probe can time out once (2 s): wait for the steady state.
    (a) =>
      a.status?.interfaces?.[2]?.state === 'Unimplemented' &&
      a.status.interfaces[2].verifiedPods === '2/3' &&
      condition(a, 'Reconciling')?.status === 'False',
    120_000,
  );
});

after(async () => {
  await operator?.stop();
  await Promise.all(pods.map((p) => p.destroy()));
});

describe('mixed pods', () => {
  test('the grpc slice lists exactly the two pods where gRPC is verified; http lists all three', async () => {
    assert.deepEqual(await sliceIps('grpc'), [pods[0]!.ip, pods[1]!.ip].sort());
    assert.deepEqual(await sliceIps('http'), pods.map((p) => p.ip).sort());
    const svc = JSON.parse(
      (await cluster.kubectl(['get', 'service', 'mixed', '-n', ns, '-o', 'json'])).stdout,
    ) as {
      spec: { selector?: unknown; ports: { name: string; port: number; appProtocol?: string }[] };
      metadata: { ownerReferences: { kind: string; name: string; controller: boolean }[] };
    };
    assert.equal(svc.spec.selector, undefined, 'selector-less: only our slices route');
    assert.deepEqual(
      svc.spec.ports.map((p) => `${p.name}:${p.port}:${p.appProtocol}`),
      ['http:8080:http', 'grpc:9090:kubernetes.io/h2c'],
    );
    assert.deepEqual(
      svc.metadata.ownerReferences.map((r) => `${r.kind}/${r.name}/${r.controller}`),
      ['A2AAgent/mixed/true'],
    );
    const a = await waitAgent(cluster, ns, 'mixed', 'status', () => true);
    assert.equal(a.status?.interfaces?.[2]?.verifiedPods, '2/3');
    assert.equal(a.status?.interfaces?.[2]?.advertised, true, 'gRPC stays advertised: two pods verify it');
  });

  test('the readiness gate is True on verified pods and False on the lying one', async () => {
    assert.equal((await gate('mixed-0'))?.status, 'True');
    assert.equal((await gate('mixed-1'))?.status, 'True');
    const lying = await gate('mixed-2');
    assert.equal(lying?.status, 'False');
    assert.equal(lying?.reason, 'InterfaceUnimplemented');
  });

  test('the gate follows verification: break gRPC on a pod → False; heal → True', async () => {
    await pods[1]!.control('/grpc', { running: false });
    await waitFor('gate False on mixed-1', async () => (await gate('mixed-1'))?.status === 'False', 40_000);
    assert.deepEqual(await sliceIps('grpc'), [pods[0]!.ip]);
    await pods[1]!.control('/grpc', { running: true });
    await waitFor('gate True on mixed-1', async () => (await gate('mixed-1'))?.status === 'True', 40_000);
    assert.deepEqual(await sliceIps('grpc'), [pods[0]!.ip, pods[1]!.ip].sort());
  });

  test('a new pod whose card lies never gets True and never enters the grpc slice', async () => {
    const config = healthyAgentConfig(`mixed.${ns}.svc`);
    config.grpc = false; // the card still declares gRPC on :9090; nothing listens
    const liar = await startAgentPod(cluster, {
      namespace: ns,
      name: 'mixed-new',
      labels: { app: 'mixed' },
      config,
      readinessGates: [GATE],
    });
    pods.push(liar);
    const seen: string[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const g = await gate('mixed-new');
      seen.push(g?.status ?? 'absent');
      assert.notEqual(g?.status, 'True', 'the lying pod must never be marked verified');
      assert.ok(!(await sliceIps('grpc')).includes(liar.ip), 'the lying pod must never be routed for gRPC');
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.equal(seen.at(-1), 'False', `gate history: ${[...new Set(seen)].join(' → ')}`);
    assert.ok(
      (await sliceIps('http')).includes(liar.ip),
      'its JSON-RPC and REST are verified, so http routes to it',
    );
  });
});
