// The operator against agent pods on the official Go SDK (test/agents/go, runtime 'go'): a healthy
// one is Ready with every binding verified; one that requires auth is AuthRequired on every
// binding and, with the default `routing.authRequired: Advertise`, every interface stays
// advertised (a2a-go answers JSON-RPC auth failures with HTTP 200 + -31401, which must not be
// judged differently from its REST 401 and gRPC UNAUTHENTICATED twins).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';

const s = scenario('goagent', {
  async setup({ cluster, ns, pods }) {
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'weather-go-0',
        labels: { app: 'weather-go' },
        config: healthyAgentConfig(`weather-go.${ns}.svc`),
        runtime: 'go',
      }),
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'secure-go-0',
        labels: { app: 'secure-go' },
        config: healthyAgentConfig(`secure-go.${ns}.svc`, { authToken: 's3cret' }),
        runtime: 'go',
      }),
    );
  },
});

test('a2a-go agent: Ready=True, every binding verified', async () => {
  await apply(s.cluster, agentManifest(s.ns, 'weather-go', healthySpec('weather-go')));
  const a = await waitAgent(
    s.cluster,
    s.ns,
    'weather-go',
    'Ready=True',
    (x) => condition(x, 'Ready')?.status === 'True',
  );
  assert.deepEqual(
    a.status?.interfaces?.map((i) => [i.protocolBinding, i.state, i.advertised]),
    [
      ['JSONRPC', 'Verified', true],
      ['HTTP+JSON', 'Verified', true],
      ['GRPC', 'Verified', true],
    ],
    s.operator.proc.tail(20),
  );
});

test('a2a-go agent requiring auth: AuthRequired on every binding, all three still advertised', async () => {
  await apply(s.cluster, agentManifest(s.ns, 'secure-go', healthySpec('secure-go')));
  const a = await waitAgent(
    s.cluster,
    s.ns,
    'secure-go',
    'every interface probed',
    (x) =>
      (x.status?.interfaces ?? []).length === 3 &&
      (x.status?.interfaces ?? []).every((i) => i.state !== undefined && i.state !== 'Pending'),
  );
  assert.deepEqual(
    a.status?.interfaces?.map((i) => [i.protocolBinding, i.state, i.advertised]),
    [
      ['JSONRPC', 'AuthRequired', true],
      ['HTTP+JSON', 'AuthRequired', true],
      ['GRPC', 'AuthRequired', true],
    ],
    s.operator.proc.tail(20),
  );
});
