// The seed scenario (shared/seeds/000) end to end on a real control plane: a v0.3 card whose
// preferredTransport GRPC names the JSON-RPC url, and a gRPC server on :9443 without the A2A
// service registered. Two pods serve it, over TLS with a private CA.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { createTestCa, type TestCa } from '../agents/test-certs.js';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { condition, waitAgent, type AgentView } from '../harness/wait.js';
import { binaryPath } from '../harness/binaries.js';
import type { seedCard } from '../harness/manifests.js';
import { seedAgentConfig } from '../harness/manifests.js';
import { execFileSync } from 'node:child_process';

let ca: TestCa;
let settled: AgentView;

const s = scenario('seed', {
  async setup({ cluster, ns, pods }) {
    ca = createTestCa();
    const cert = ca.issue(['agent.internal']);
    for (const i of [0, 1]) {
      pods.push(
        await startAgentPod(cluster, {
          namespace: ns,
          name: `seed-${i}`,
          labels: { app: 'seed' },
          readinessGates: ['a2a.dev/card-verified'],
          config: seedAgentConfig(cert),
        }),
      );
    }
    const caMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'seed-ca', namespace: ns },
      data: { 'ca.crt': ca.caCert },
    };
    const agent = {
      apiVersion: 'a2a.dev/v1alpha1',
      kind: 'A2AAgent',
      metadata: { name: 'seed', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'seed' } },
        ports: [
          { name: 'https', port: 8443 },
          { name: 'grpc', port: 9443 },
        ],
        card: { port: 'https', scheme: 'HTTPS' },
        hosts: ['agent.internal'],
        tls: { caBundle: { configMapKeyRef: { name: 'seed-ca', key: 'ca.crt' } } },
        probe: { periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 2 },
      },
    };
    const applied = await cluster.kubectl(['apply', '-f', '-'], {
      input: `${stringify(caMap)}---\n${stringify(agent)}`,
    });
    assert.equal(applied.code, 0, applied.stderr);
  },
  async ready({ cluster, ns, operator }) {
    // Wait for the final verdicts themselves (a card fetch that times out on a loaded machine
    // stalls the agent for a period first, and that is not the state under test).
    settled = await waitAgent(
      cluster,
      ns,
      'seed',
      'failures confirmed',
      (a) =>
        condition(a, 'Stalled')?.reason === 'FailureConfirmed' &&
        condition(a, 'CardValid')?.reason === 'PreferredTransportMismatch' &&
        (a.status?.interfaces ?? []).map((x) => x.state).join() === 'WrongBinding,Verified,Unimplemented',
      90_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${operator.proc.tail(40)}`);
    });
  },
});

after(() => ca?.dispose());

describe('seed scenario', () => {
  test('status names each interface truthfully', () => {
    assert.equal(settled.status?.card?.shape, 'v0.3');
    assert.deepEqual(
      settled.status?.interfaces?.map(
        (i) => `${i.protocolBinding}@${i.url}=${i.state} ${i.verifiedPods} advertised=${i.advertised}`,
      ),
      [
        'GRPC@https://agent.internal:8443=WrongBinding 0/2 advertised=false',
        'JSONRPC@https://agent.internal:8443=Verified 2/2 advertised=true',
        'GRPC@https://agent.internal:9443=Unimplemented 0/2 advertised=false',
      ],
    );
    assert.match(settled.status!.interfaces![2]!.message, /UNIMPLEMENTED/);
    assert.equal(condition(settled, 'Ready')?.status, 'False');
    assert.equal(condition(settled, 'Ready')?.reason, 'PreferredTransportMismatch');
    assert.equal(condition(settled, 'CardValid')?.reason, 'PreferredTransportMismatch');
    assert.equal(condition(settled, 'InterfacesVerified')?.reason, 'WrongBinding');
    assert.equal(condition(settled, 'Stalled')?.reason, 'FailureConfirmed');
    assert.equal(condition(settled, 'Reconciling')?.status, 'False');
    assert.equal(settled.status?.verified, '1/3');
    assert.equal(settled.status?.advertised?.preferred?.protocolBinding, 'JSONRPC');
  });

  test('kubectl get shows READY False with the reason; describe shows every interface', async () => {
    const get = await s.cluster.kubectl(['get', 'a2aagents', '-n', s.ns]);
    assert.match(get.stdout, /seed\s+False\s+PreferredTransportMismatch\s+1\/3\s+JSONRPC\s+2\/2/);
    const describe = await s.cluster.kubectl(['describe', 'a2a', 'seed', '-n', s.ns]);
    assert.equal(describe.code, 0, describe.stderr);
    for (const state of ['WrongBinding', 'Unimplemented', 'Verified'])
      assert.match(describe.stdout, new RegExp(`State:\\s+${state}`));
    assert.match(describe.stdout, /Message:\s+.*UNIMPLEMENTED/);
    assert.match(describe.stdout, /Events:/);
    assert.match(describe.stdout, /Warning\s+InterfaceUnimplemented/);
  });

  test('Events were recorded for the transitions', async () => {
    const ev = await s.cluster.kubectl([
      'get',
      'events',
      '-n',
      s.ns,
      '--field-selector',
      'involvedObject.name=seed',
      '-o',
      'json',
    ]);
    const items = (
      JSON.parse(ev.stdout) as { items: { reason: string; type: string; message?: string; note?: string }[] }
    ).items;
    const reasons = new Set(items.map((e) => e.reason));
    for (const r of [
      'PreferredTransportMismatch',
      'WrongBinding',
      'InterfaceUnimplemented',
      'InterfaceVerified',
    ]) {
      assert.ok(reasons.has(r), `missing event ${r}; have ${[...reasons].join(', ')}`);
    }
  });

  test('kubectl wait for Ready times out; kstatus judges it Failed', async () => {
    const wait = await s.cluster.kubectl([
      'wait',
      '--for=condition=Ready',
      '--timeout=3s',
      '-n',
      s.ns,
      'a2a/seed',
    ]);
    assert.notEqual(wait.code, 0);
    const json = (await s.cluster.kubectl(['get', 'a2a', 'seed', '-n', s.ns, '-o', 'json'])).stdout;
    const out = execFileSync(binaryPath('kstatus-check'), { input: json, encoding: 'utf8' });
    assert.match(out, new RegExp(`^${s.ns}/seed Failed `));
  });

  test('routing: the grpc slice is empty, the https slice lists both pods, the card advertises JSON-RPC only', async () => {
    const slices = JSON.parse(
      (
        await s.cluster.kubectl([
          'get',
          'endpointslices',
          '-n',
          s.ns,
          '-l',
          'kubernetes.io/service-name=seed',
          '-o',
          'json',
        ])
      ).stdout,
    ) as { items: { metadata: { name: string }; endpoints?: { addresses: string[] }[] }[] };
    const byName = Object.fromEntries(
      slices.items.map((s) => [s.metadata.name, (s.endpoints ?? []).map((e) => e.addresses[0]).sort()]),
    );
    assert.deepEqual(byName, { 'seed-grpc': [], 'seed-https': s.pods.map((p) => p.ip).sort() });
    const cm = JSON.parse(
      (await s.cluster.kubectl(['get', 'configmap', 'seed-agent-card', '-n', s.ns, '-o', 'json'])).stdout,
    ) as {
      data: Record<string, string>;
    };
    const card = JSON.parse(cm.data['agent-card.json']!) as typeof seedCard;
    assert.equal(card.url, 'https://agent.internal:8443');
    assert.equal(card.preferredTransport, 'JSONRPC');
    assert.deepEqual(card.additionalInterfaces, [
      { url: 'https://agent.internal:8443', transport: 'JSONRPC' },
    ]);
    const served = await fetch(`${s.operator.cardsUrl}/cards/${s.ns}/seed`);
    assert.equal(served.status, 200);
    assert.deepEqual(await served.json(), card);
  });

  test('the readiness gate condition is False on both pods', async () => {
    for (const p of s.pods) {
      const pod = JSON.parse(
        (await s.cluster.kubectl(['get', 'pod', p.name, '-n', s.ns, '-o', 'json'])).stdout,
      ) as {
        status: { conditions: { type: string; status: string; reason?: string }[] };
      };
      const gate = pod.status.conditions.find((c) => c.type === 'a2a.dev/card-verified');
      assert.equal(gate?.status, 'False', JSON.stringify(pod.status.conditions));
      assert.equal(gate?.reason, 'WrongBinding');
    }
  });
});
