// Fail static (docs/routing.md): when the operator stops, routing stays as it was; an agent broken
// meanwhile is withdrawn only after the operator is back and has probed it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod } from '../harness/agent-pod.js';
import { startOperator } from '../harness/operator.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';

async function snapshot(): Promise<string> {
  const get = async (kind: string, name: string) => {
    const o = JSON.parse(
      (await s.cluster.kubectl(['get', kind, name, '-n', s.ns, '-o', 'json'])).stdout,
    ) as Record<string, unknown> & {
      metadata: { resourceVersion: string };
    };
    return `${kind}/${name}@${o.metadata.resourceVersion}:${JSON.stringify(o.endpoints ?? o.data ?? '')}`;
  };
  return (
    await Promise.all([
      get('endpointslice', 'steady-grpc'),
      get('endpointslice', 'steady-http'),
      get('configmap', 'steady-agent-card'),
      get('service', 'steady'),
    ])
  ).join('\n');
}

const s = scenario('failstatic', {
  async setup({ cluster, ns, pods }) {
    for (const i of [0, 1]) {
      pods.push(
        await startAgentPod(cluster, {
          namespace: ns,
          name: `steady-${i}`,
          labels: { app: 'steady' },
          config: healthyAgentConfig(`steady.${ns}.svc`),
        }),
      );
    }
    await apply(
      cluster,
      agentManifest(ns, 'steady', healthySpec('steady', { periodSeconds: 4, timeoutSeconds: 2 })),
    );
  },
  async ready({ cluster, ns }) {
    await waitAgent(cluster, ns, 'steady', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
  },
});

describe('fail static', () => {
  test('operator down: nothing is wiped; after restart the broken binding is withdrawn', async () => {
    const before = await snapshot();
    await s.operator.stop('SIGTERM');
    assert.equal(s.operator.proc.child.exitCode, 0, 'graceful shutdown exits 0');
    // Break gRPC on every pod while the operator is down.
    for (const p of s.pods) await p.control('/grpc', { running: false });
    await new Promise((r) => setTimeout(r, 10_000));
    assert.equal(await snapshot(), before, 'routing stayed exactly as it was while the operator was down');

    s.operator = await startOperator({ kubeconfig: s.cluster.kubeconfigPath, namespaces: [s.ns] });
    await s.operator.waitReady();
    await waitFor(
      'gRPC withdrawn after restart',
      async () => {
        const slice = JSON.parse(
          (await s.cluster.kubectl(['get', 'endpointslice', 'steady-grpc', '-n', s.ns, '-o', 'json'])).stdout,
        ) as { endpoints?: unknown[] };
        return (slice.endpoints ?? []).length === 0;
      },
      40_000,
    );
    const http = JSON.parse(
      (await s.cluster.kubectl(['get', 'endpointslice', 'steady-http', '-n', s.ns, '-o', 'json'])).stdout,
    ) as { endpoints: unknown[] };
    assert.equal(http.endpoints.length, 2, 'the http port kept both pods through the restart');
    const card = JSON.parse(
      JSON.parse(
        (await s.cluster.kubectl(['get', 'configmap', 'steady-agent-card', '-n', s.ns, '-o', 'json'])).stdout,
      ).data['agent-card.json'] as string,
    ) as { supportedInterfaces: { protocolBinding: string }[] };
    assert.deepEqual(
      card.supportedInterfaces.map((i) => i.protocolBinding),
      ['JSONRPC', 'HTTP+JSON'],
    );
  });

  test('heal: gRPC comes back only after a fresh verification', async () => {
    for (const p of s.pods) await p.control('/grpc', { running: true });
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'steady',
      'Ready again',
      (x) => condition(x, 'Ready')?.status === 'True',
      30_000,
    );
    assert.equal(a.status?.interfaces?.[2]?.state, 'Verified');
    const slice = JSON.parse(
      (await s.cluster.kubectl(['get', 'endpointslice', 'steady-grpc', '-n', s.ns, '-o', 'json'])).stdout,
    ) as { endpoints: unknown[] };
    assert.equal(slice.endpoints.length, 2);
  });
});
