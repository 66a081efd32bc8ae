// A competing writer (kubectl, another field manager) changes what the operator owns: a Service
// port, an EndpointSlice's endpoints, the advertised card in the ConfigMap, a status condition.
// Each is restored, with a bounded number of writes, and afterwards the operator is quiet: no
// hot loop (reconciles at about the probe rate, zero writes), counted from its own metrics.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, getAgent, waitAgent, waitFor } from '../harness/wait.js';
import { apiWrites, log, metricSum, reconcileCount, sleep } from './support.js';

const TAG = 'competing-writer';
const PERIOD = 5;
const QUIET_MS = 12_000;
const s = scenario('competing', {
  async setup({ cluster, ns, pods }) {
    for (const i of [0, 1]) {
      pods.push(
        await startAgentPod(cluster, {
          namespace: ns,
          name: `owned-${i}`,
          labels: { app: 'owned' },
          config: healthyAgentConfig(`owned.${ns}.svc`),
        }),
      );
    }
    await apply(
      cluster,
      agentManifest(ns, 'owned', healthySpec('owned', { periodSeconds: PERIOD, timeoutSeconds: 2 })),
    );
  },
  async ready({ cluster, ns }) {
    await waitAgent(cluster, ns, 'owned', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
  },
});

async function kubectlJson<T>(args: string[]): Promise<T> {
  const r = await s.cluster.kubectl([...args, '-n', s.ns, '-o', 'json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as T;
}

async function patch(args: string[]): Promise<void> {
  const r = await s.cluster.kubectl(['patch', ...args, '-n', s.ns, '--field-manager=competitor']);
  assert.equal(r.code, 0, r.stderr);
}

/** Writes that are not Events or the Lease (those are not routing or status). */
async function objectWrites(): Promise<number> {
  const m = await s.operator.metrics();
  return apiWrites(m) - apiWrites(m, 'events') - apiWrites(m, 'leases');
}

async function quietPeriod(label: string): Promise<{ reconciles: number; writes: number }> {
  const m0 = await s.operator.metrics();
  const w0 = await objectWrites();
  await sleep(QUIET_MS);
  const m1 = await s.operator.metrics();
  const out = { reconciles: reconcileCount(m1) - reconcileCount(m0), writes: (await objectWrites()) - w0 };
  log(TAG, `${label}: ${out.reconciles} reconciles and ${out.writes} writes in ${QUIET_MS}ms`);
  return out;
}

describe('a competing writer changes what the operator owns', () => {
  test('restored each time; no hot loop', async () => {
    const steady = await quietPeriod('steady before');
    assert.equal(steady.writes, 0, 'a steady agent causes no writes');
    const w0 = await objectWrites();
    const r0 = reconcileCount(await s.operator.metrics());

    await patch([
      'service',
      'owned',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/spec/ports/0/port","value":18080}]',
    ]);
    await waitFor('Service port restored', async () => {
      const s = await kubectlJson<{ spec: { ports: { name: string; port: number }[] } }>([
        'get',
        'service',
        'owned',
      ]);
      return s.spec.ports.find((p) => p.name === 'http')?.port === 8080;
    });

    await patch([
      'endpointslice',
      'owned-http',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/endpoints","value":[]}]',
    ]);
    await waitFor('EndpointSlice endpoints restored', async () => {
      const s = await kubectlJson<{ endpoints?: unknown[] }>(['get', 'endpointslice', 'owned-http']);
      return (s.endpoints ?? []).length === 2;
    });

    await patch([
      'configmap',
      'owned-agent-card',
      '--type=merge',
      '-p',
      '{"data":{"agent-card.json":"{\\"name\\":\\"hijacked\\"}"}}',
    ]);
    await waitFor('advertised card restored', async () => {
      const cm = await kubectlJson<{ data: Record<string, string> }>([
        'get',
        'configmap',
        'owned-agent-card',
      ]);
      const card = JSON.parse(cm.data['agent-card.json'] ?? '{}') as { supportedInterfaces?: unknown[] };
      return card.supportedInterfaces?.length === 3;
    });

    const agent = await getAgent(s.cluster, s.ns, 'owned');
    const conditions = agent.status!.conditions!.map((c) =>
      c.type === 'Ready' ? { ...c, status: 'False', reason: 'Hijacked', message: 'set by a competitor' } : c,
    );
    const r = await s.cluster.kubectl([
      'patch',
      'a2a',
      'owned',
      '-n',
      s.ns,
      '--subresource=status',
      '--type=merge',
      '--field-manager=competitor',
      '-p',
      JSON.stringify({ status: { conditions } }),
    ]);
    assert.equal(r.code, 0, r.stderr);
    await waitAgent(
      s.cluster,
      s.ns,
      'owned',
      'Ready restored',
      (a) => condition(a, 'Ready')?.reason === 'Succeeded',
    );

    const restoreWrites = (await objectWrites()) - w0;
    const restoreReconciles = reconcileCount(await s.operator.metrics()) - r0;
    log(TAG, `restoring 4 changes took ${restoreWrites} writes and ${restoreReconciles} reconciles`);
    // One write per change (plus one status write per routing change at most).
    assert.ok(restoreWrites >= 4 && restoreWrites <= 8, `${restoreWrites} writes to restore 4 changes`);

    const after = await quietPeriod('steady after');
    assert.equal(after.writes, 0, 'no writes once restored');
    // At most one reconcile per due item (each pod's card and its 3 interfaces, jittered
    // apart) per probe period; a loop would requeue every 200 ms or on its own writes.
    const dueItems = s.pods.length * (3 + 1);
    const bound = dueItems * (Math.ceil(QUIET_MS / (PERIOD * 1000)) + 1);
    assert.ok(
      after.reconciles <= bound,
      `${after.reconciles} reconciles in ${QUIET_MS}ms after (bound ${bound})`,
    );
    assert.equal(metricSum(await s.operator.metrics(), 'a2a_operator_reconcile_errors_total'), 0);
  });
});
