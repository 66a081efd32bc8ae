// Capability truth through the operator (issue 13 item 6), on both runtimes: an agent pod whose
// card claims streaming it does not serve and push notifications it does serve. With the
// default (Report) it is Ready, status.capabilities and CapabilitiesVerified say what was
// found; with spec.probe.capabilities: Enforce, Ready fails with CapabilityNotServed and the
// advertised card says streaming: false (interfaces stay advertised).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';
import { RUNTIMES } from '../harness/local-agent.js';

const lying = {
  capabilities: { streaming: true, pushNotifications: true },
  servedCapabilities: { streaming: false },
};

const s = scenario('capabilities', {
  async setup({ cluster, ns, pods }) {
    for (const rt of RUNTIMES) {
      for (const mode of ['report', 'enforce']) {
        const app = `caps-${rt}-${mode}`;
        pods.push(
          await startAgentPod(cluster, {
            namespace: ns,
            name: `${app}-0`,
            labels: { app },
            config: healthyAgentConfig(`${app}.${ns}.svc`, lying),
            runtime: rt,
          }),
        );
      }
    }
  },
});

async function advertisedCard(name: string): Promise<Record<string, unknown>> {
  const cm = JSON.parse(
    (await s.cluster.kubectl(['get', 'configmap', `${name}-agent-card`, '-n', s.ns, '-o', 'json'])).stdout,
  ) as { data: Record<string, string> };
  return JSON.parse(cm.data['agent-card.json']!) as Record<string, unknown>;
}

for (const rt of RUNTIMES) {
  void test(`[${rt}] Report: Ready, status.capabilities says streaming NotServed, push Verified`, async () => {
    const name = `caps-${rt}-report`;
    await apply(s.cluster, agentManifest(s.ns, name, healthySpec(name)));
    const a = await waitAgent(s.cluster, s.ns, name, 'CapabilitiesVerified written', (x) =>
      ['True', 'False'].includes(condition(x, 'CapabilitiesVerified')?.status ?? ''),
    );
    assert.equal(condition(a, 'Ready')?.status, 'True', s.operator.proc.tail(20));
    assert.equal(condition(a, 'CapabilitiesVerified')?.reason, 'CapabilityNotServed');
    assert.deepEqual(
      a.status?.capabilities?.map((c) => [c.name, c.declared, c.state, c.interfaces]),
      [
        ['streaming', true, 'NotServed', '0/3'],
        ['pushNotifications', true, 'Verified', '3/3'],
        ['extendedAgentCard', false, 'Absent', '3/3'],
      ],
    );
    assert.match(a.status!.capabilities![0]!.message, /not served although the card claims streaming: true/);
    const card = await advertisedCard(name);
    assert.equal((card.capabilities as Record<string, unknown>).streaming, true);
  });

  void test(`[${rt}] Enforce: Ready=False CapabilityNotServed, advertised card streaming: false, interfaces advertised`, async () => {
    const name = `caps-${rt}-enforce`;
    await apply(
      s.cluster,
      agentManifest(s.ns, name, {
        ...healthySpec(name),
        probe: { periodSeconds: 5, timeoutSeconds: 2, capabilities: 'Enforce' },
      }),
    );
    const a = await waitAgent(
      s.cluster,
      s.ns,
      name,
      'Ready=False CapabilityNotServed',
      (x) => condition(x, 'Ready')?.reason === 'CapabilityNotServed',
    );
    assert.deepEqual(
      a.status?.interfaces?.map((i) => [i.protocolBinding, i.state, i.advertised]),
      [
        ['JSONRPC', 'Verified', true],
        ['HTTP+JSON', 'Verified', true],
        ['GRPC', 'Verified', true],
      ],
    );
    const card = await advertisedCard(name);
    assert.deepEqual(
      [
        (card.capabilities as Record<string, unknown>).streaming,
        (card.capabilities as Record<string, unknown>).pushNotifications,
      ],
      [false, true],
    );
  });
}
