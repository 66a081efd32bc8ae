// Rollout skew: two ready pods serve different cards → PodsConsistent=False (CardDiverged)
// naming both digests, and the agent is Reconciling (a rollout in progress), not Stalled.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { observeOwnedRouting } from '../harness/routing-observer.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';

const s = scenario('skew', {
  async setup({ cluster, ns, pods }) {
    const svc = `skewed.${ns}.svc`;
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'skewed-old',
        labels: { app: 'skewed' },
        config: healthyAgentConfig(svc),
      }),
    );
    // The "new version": the same agent, but its card drops the REST interface.
    const v2 = healthyAgentConfig(svc);
    v2.interfaces = v2.interfaces!.filter((i) => i.protocolBinding !== 'HTTP+JSON');
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'skewed-new',
        labels: { app: 'skewed' },
        config: v2,
      }),
    );
    await apply(cluster, agentManifest(ns, 'skewed', healthySpec('skewed')));
  },
});

describe('rollout skew', () => {
  test('CardDiverged names both digests; Reconciling, not Stalled', async () => {
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'skewed',
      'CardDiverged',
      (x) => condition(x, 'PodsConsistent')?.reason === 'CardDiverged',
    );
    const pc = condition(a, 'PodsConsistent')!;
    assert.equal(pc.status, 'False');
    const digests = pc.message.match(/sha256:[0-9a-f]{64}/g) ?? [];
    assert.equal(new Set(digests).size, 2, pc.message);
    assert.match(pc.message, /skewed-old/);
    assert.match(pc.message, /skewed-new/);
    assert.equal(condition(a, 'Ready')?.status, 'False');
    assert.equal(condition(a, 'Reconciling')?.status, 'True');
    assert.equal(condition(a, 'Stalled')?.status, 'False');
    assert.equal(a.status?.card?.podsConsistent, '1/2');
    // Every interface of both cards is served where declared, so routing keeps what both verify:
    // gRPC (on both cards) to both pods; HTTP to the new pod too unless the advertised card (the
    // reference, on a tie not the listing order's) keeps the REST interface only the old declares.
    const [old, neu] = [s.pods[0]!.ip, s.pods[1]!.ip];
    let seen = '';
    await waitFor(
      'routing to what each pod verifies',
      async () => {
        const o = await observeOwnedRouting(s.cluster, s.ns, 'skewed');
        seen = `card ${o.cardBindings.join(',')}; http ${o.http.join(',')}; grpc ${o.grpc.join(',')}`;
        const wantHttp = o.cardBindings.includes('HTTP+JSON') ? [old] : [old, neu].sort();
        return (
          o.cardHasGrpc &&
          JSON.stringify(o.http) === JSON.stringify(wantHttp) &&
          JSON.stringify(o.grpc) === JSON.stringify([old, neu].sort())
        );
      },
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last seen: ${seen}`);
    });
  });

  test('the rollout finishes (old pod replaced): consistent and Ready again', async () => {
    await s.pods[0]!.destroy();
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'skewed',
      'Ready',
      (x) => condition(x, 'Ready')?.status === 'True',
    );
    assert.equal(condition(a, 'PodsConsistent')?.status, 'True');
    assert.equal(a.status?.card?.podsConsistent, '1/1');
    assert.equal(a.status?.verified, '2/2');
  });
});
