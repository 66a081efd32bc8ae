// Dual-stack pods (issue 11 item 4): the operator reads status.podIPs, probes every interface at
// every address a pod has, and routes each address in the EndpointSlice of its family (one
// slice per port per family). A dual-stack pod (10.244.x.y + fd00:a2a::n) and an IPv6-only pod
// (fd00:a2a::m) run real SDK agents; an IPv6-only pod was silently left out of routing before.
// A pod is routed for an interface only when every one of its addresses serves it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';

let cluster: Cluster;
let ns: string;
let operator: OperatorProcess;
let dual: AgentPod;
let v6only: AgentPod;

interface SliceView {
  addressType: string;
  endpoints?: { addresses: string[]; targetRef: { name: string } }[];
}

/** `name=address` of every endpoint of the slice, or undefined when there is no such slice. */
async function slice(name: string): Promise<{ addressType: string; endpoints: string[] } | undefined> {
  const r = await cluster.kubectl(['get', 'endpointslice', name, '-n', ns, '-o', 'json']);
  if (r.code !== 0) return undefined;
  const s = JSON.parse(r.stdout) as SliceView;
  return {
    addressType: s.addressType,
    endpoints: (s.endpoints ?? []).map((e) => `${e.targetRef.name}=${e.addresses.join(',')}`).sort(),
  };
}

const v6 = (p: AgentPod) => p.ips.find((a) => a.includes(':'))!;
const v4 = (p: AgentPod) => p.ips.find((a) => !a.includes(':'))!;

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('dual');
  const svc = `dual.${ns}.svc`;
  dual = await startAgentPod(cluster, {
    namespace: ns,
    name: 'dual-stack',
    labels: { app: 'dual' },
    config: healthyAgentConfig(svc),
    families: 'dual',
  });
  v6only = await startAgentPod(cluster, {
    namespace: ns,
    name: 'ipv6-only',
    labels: { app: 'dual' },
    config: healthyAgentConfig(svc),
    families: 'IPv6',
  });
  await apply(
    cluster,
    agentManifest(ns, 'dual', healthySpec('dual', { periodSeconds: 4, timeoutSeconds: 2 })),
  );
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
});

after(async () => {
  await operator?.stop();
  await Promise.all([dual, v6only].filter(Boolean).map((p) => p.destroy()));
});

describe('dual-stack and IPv6-only pods', () => {
  test('the pods carry the addresses the test gave them', () => {
    assert.deepEqual(
      dual.ips.map((a) => (a.includes(':') ? 'IPv6' : 'IPv4')),
      ['IPv4', 'IPv6'],
    );
    assert.deepEqual(
      v6only.ips.map((a) => (a.includes(':') ? 'IPv6' : 'IPv4')),
      ['IPv6'],
    );
  });

  test('both pods verify every interface (the IPv6-only one over IPv6), and each port has a slice per family', async () => {
    const a = await waitAgent(
      cluster,
      ns,
      'dual',
      'all three interfaces verified on both pods',
      (x) =>
        x.status?.interfaces?.length === 3 &&
        x.status.interfaces.every(
          (i) => i.state === 'Verified' && i.verifiedPods === '2/2' && i.advertised,
        ) &&
        condition(x, 'Reconciling')?.status === 'False',
      90_000,
    );
    assert.equal(a.status?.advertised?.interfaces, 3);
    for (const port of ['http', 'grpc']) {
      await waitFor(`${port} slices per family`, async () => {
        const four = await slice(`dual-${port}`);
        const six = await slice(`dual-${port}-ipv6`);
        return (
          four?.addressType === 'IPv4' &&
          six?.addressType === 'IPv6' &&
          JSON.stringify(four.endpoints) === JSON.stringify([`dual-stack=${v4(dual)}`]) &&
          JSON.stringify(six.endpoints) ===
            JSON.stringify([`dual-stack=${v6(dual)}`, `ipv6-only=${v6(v6only)}`].sort())
        );
      });
    }
  });

  test("the dual-stack pod's IPv6 address is probed too: when it stops serving, the pod leaves both families' slices", async () => {
    // The card is still fetched over IPv4 and IPv4 still serves everything; only IPv6 breaks.
    dual.host.removeAddress(v6(dual));
    await waitFor(
      'the dual-stack pod withdrawn from every slice, the IPv6-only pod kept',
      async () => {
        const slices = await Promise.all(
          ['dual-http', 'dual-http-ipv6', 'dual-grpc', 'dual-grpc-ipv6'].map((n) => slice(n)),
        );
        return (
          slices.every((s) => s !== undefined && !s.endpoints.some((e) => e.startsWith('dual-stack='))) &&
          slices[1]!.endpoints.includes(`ipv6-only=${v6(v6only)}`) &&
          slices[3]!.endpoints.includes(`ipv6-only=${v6(v6only)}`)
        );
      },
      60_000,
    );
    const a = await waitAgent(cluster, ns, 'dual', 'one pod of two verifies', (x) =>
      (x.status?.interfaces ?? []).every((i) => i.verifiedPods === '1/2' && i.advertised),
    );
    assert.equal(a.status?.advertised?.interfaces, 3, 'still advertised: the IPv6-only pod serves them all');
  });
});
