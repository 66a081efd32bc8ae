/**
 * spec.probe.taskContinuity: Off (default) sends nothing and writes no TaskContinuity condition;
 * Once runs the check once per card digest on one pod: TaskShared for one agent process behind
 * every binding, TaskNotShared for two processes behind one card (JSON-RPC on the first, REST
 * and gRPC on the second, same pod). Neither changes Ready. Messages are counted agent-side.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod, startCompanionAgent } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';

const s = scenario('continuity', {
  async setup({ cluster, ns, pods }) {
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'shared-0',
        labels: { app: 'shared' },
        config: healthyAgentConfig(`shared.${ns}.svc`, { replyWithTask: true }),
      }),
    );
    const svc = `split.${ns}.svc`;
    const split = await startAgentPod(cluster, {
      namespace: ns,
      name: 'split-0',
      labels: { app: 'split' },
      config: {
        http: { port: 8080 },
        replyWithTask: true,
        interfaces: [
          { url: `http://${svc}:8080/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: `http://${svc}:8081/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          { url: `http://${svc}:9091`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
        ],
      },
    });
    pods.push(split);
    // The second process: REST and gRPC, its own task store.
    await startCompanionAgent(split, { http: { port: 8081 }, grpc: { port: 9091 }, replyWithTask: true });
  },
});

const sends = (calls: string[]) => calls.filter((c) => c === 'SendMessage').length;

test('Off (the default): no message, no TaskContinuity condition; Once: TaskShared for one process, sent once', async () => {
  await apply(s.cluster, agentManifest(s.ns, 'shared', healthySpec('shared')));
  const off = await waitAgent(
    s.cluster,
    s.ns,
    'shared',
    'Ready=True',
    (x) => condition(x, 'Ready')?.status === 'True',
  );
  assert.equal(condition(off, 'TaskContinuity'), undefined);
  assert.equal(sends((await s.pods[0]!.state()).calls), 0);

  await apply(
    s.cluster,
    agentManifest(s.ns, 'shared', {
      ...healthySpec('shared'),
      probe: { periodSeconds: 5, timeoutSeconds: 2, taskContinuity: 'Once' },
    }),
  );
  const once = await waitAgent(
    s.cluster,
    s.ns,
    'shared',
    'TaskContinuity decided',
    (x) =>
      ['True', 'False'].includes(condition(x, 'TaskContinuity')?.status ?? '') ||
      condition(x, 'TaskContinuity')?.reason === 'TaskContinuityUnknown',
  );
  const c = condition(once, 'TaskContinuity')!;
  assert.equal(c.reason, 'TaskShared', `${c.message}\n${s.operator.proc.tail(20)}`);
  assert.equal(c.status, 'True');
  assert.match(c.message, /^card sha256:/);
  assert.equal(condition(once, 'Ready')?.status, 'True');
  // Probe periods later, still one message for this card.
  await new Promise((r) => setTimeout(r, 12_000));
  assert.equal(sends((await s.pods[0]!.state()).calls), 1);
});

test('Once with two processes behind one card: TaskNotShared, and Ready stays True', async () => {
  await apply(
    s.cluster,
    agentManifest(s.ns, 'split', {
      selector: { matchLabels: { app: 'split' } },
      ports: [
        { name: 'http', port: 8080 },
        { name: 'rest', port: 8081 },
        { name: 'grpc', port: 9091 },
      ],
      card: { port: 'http' },
      probe: { periodSeconds: 5, timeoutSeconds: 2, taskContinuity: 'Once' },
    }),
  );
  const a = await waitAgent(
    s.cluster,
    s.ns,
    'split',
    'TaskContinuity decided',
    (x) =>
      condition(x, 'TaskContinuity') !== undefined &&
      condition(x, 'TaskContinuity')?.reason !== 'TaskContinuityPending',
  );
  const c = condition(a, 'TaskContinuity')!;
  assert.equal(c.reason, 'TaskNotShared', `${c.message}\n${s.operator.proc.tail(20)}`);
  assert.equal(c.status, 'False');
  assert.match(c.message, /HTTP\+JSON .*GRPC|GRPC .*HTTP\+JSON/);
  assert.equal(condition(a, 'Ready')?.status, 'True', 'TaskContinuity is not part of Ready');
  assert.equal(sends((await s.pods[1]!.state()).calls), 1);
});
