// Spec changes and spec problems: observedGeneration follows the spec; a missing Secret
// stalls the agent with a clear reason (no hot loop) until it appears; kstatus reads an agent
// whose failures are still being confirmed as InProgress.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startAgentPod } from '../harness/agent-pod.js';
import { binaryPath } from '../harness/binaries.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';

function kstatus(json: string): string {
  return execFileSync(binaryPath('kstatus-check'), { input: json, encoding: 'utf8' }).trim();
}

const s = scenario('spec', {
  async setup({ cluster, ns, pods }) {
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'tuned-0',
        labels: { app: 'tuned' },
        config: healthyAgentConfig(`tuned.${ns}.svc`),
      }),
    );
  },
});

describe('spec changes', () => {
  test('a spec change bumps observedGeneration in status and in every condition', async () => {
    await apply(s.cluster, agentManifest(s.ns, 'tuned', healthySpec('tuned')));
    const first = await waitAgent(
      s.cluster,
      s.ns,
      'tuned',
      'Ready',
      (a) => condition(a, 'Ready')?.status === 'True',
    );
    assert.equal(first.status?.observedGeneration, first.metadata.generation);
    assert.match(kstatus(JSON.stringify(first)), new RegExp(`^${s.ns}/tuned Current`));
    await apply(
      s.cluster,
      agentManifest(s.ns, 'tuned', healthySpec('tuned', { periodSeconds: 7, timeoutSeconds: 2 })),
    );
    const second = await waitAgent(
      s.cluster,
      s.ns,
      'tuned',
      'Ready at the new generation',
      (a) => condition(a, 'Ready')?.status === 'True',
    );
    assert.equal(second.metadata.generation, first.metadata.generation + 1);
    assert.equal(second.status?.observedGeneration, second.metadata.generation);
    for (const c of second.status?.conditions ?? [])
      assert.equal(c.observedGeneration, second.metadata.generation, c.type);
  });

  test('a missing Secret stalls the agent with SecretNotFound, and it recovers when the Secret appears', async () => {
    const spec = {
      ...healthySpec('tuned'),
      auth: { bearerToken: { secretKeyRef: { name: 'probe-token', key: 'token' } } },
    };
    await apply(s.cluster, agentManifest(s.ns, 'tuned', spec));
    const stalled = await waitAgent(
      s.cluster,
      s.ns,
      'tuned',
      'Stalled',
      (a) => condition(a, 'Stalled')?.status === 'True',
    );
    assert.equal(condition(stalled, 'Stalled')?.reason, 'SecretNotFound');
    assert.match(
      condition(stalled, 'Stalled')!.message,
      new RegExp(`Secret ${s.ns}/probe-token not found \\(spec.auth.bearerToken\\)`),
    );
    assert.equal(condition(stalled, 'Ready')?.status, 'False');
    assert.equal(condition(stalled, 'Reconciling')?.status, 'False');
    assert.match(kstatus(JSON.stringify(stalled)), new RegExp(`^${s.ns}/tuned Failed`));
    // No hot loop: a few seconds of a stalled agent cost a bounded number of reconciles.
    const count = async () => {
      const m = await s.operator.metrics();
      return [...m.matchAll(/^a2a_operator_reconcile_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce(
        (n, x) => n + Number(x[1]),
        0,
      );
    };
    const before = await count();
    await new Promise((r) => setTimeout(r, 3000));
    assert.ok((await count()) - before <= 3, 'a stalled agent is not reconciled in a loop');
    await apply(s.cluster, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'probe-token', namespace: s.ns, labels: { 'a2a.dev/credential': 'true' } },
      stringData: { token: 's3cret-token-value' },
    });
    // The agent has no auth in front, so the token is simply sent and ignored; it becomes Ready.
    await waitAgent(
      s.cluster,
      s.ns,
      'tuned',
      'Ready after the Secret appeared',
      (a) => condition(a, 'Ready')?.status === 'True',
      30_000,
    );
    const logs = s.operator.proc.tail(100000);
    assert.ok(!logs.includes('s3cret-token-value'), 'the credential must never be logged');
  });

  test('kstatus: an agent whose failures are still being confirmed is InProgress', async () => {
    // gRPC declared on a port nothing listens on, with a high failureThreshold: failing, not yet confirmed.
    const cfg = healthyAgentConfig(`tuned.${s.ns}.svc`);
    s.pods.push(
      await startAgentPod(s.cluster, {
        namespace: s.ns,
        name: 'probing-0',
        labels: { app: 'probing' },
        config: {
          ...cfg,
          grpc: false,
          interfaces: [
            ...cfg.interfaces!.slice(0, 2),
            { url: `http://tuned.${s.ns}.svc:9090`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
          ],
        },
      }),
    );
    await apply(
      s.cluster,
      agentManifest(
        s.ns,
        'probing',
        healthySpec('probing', { periodSeconds: 60, timeoutSeconds: 2, failureThreshold: 100 }),
      ),
    );
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'probing',
      'probed',
      (x) => x.status?.interfaces?.[2]?.state === 'Unreachable',
    );
    assert.equal(condition(a, 'Reconciling')?.status, 'True');
    assert.equal(condition(a, 'Stalled')?.status, 'False');
    assert.match(kstatus(JSON.stringify(a)), new RegExp(`^${s.ns}/probing InProgress`));
  });
});
