// What the reconciler reports to the metrics (OperatorMetrics wired as in src/operator/manager.ts)
// agrees with the status it writes: after an apply failure (the status is rewritten), after the
// agent is deleted while a reconcile still ran (no series come back), and the last-probe time
// moves only when an interface was probed (card fetches alone do not keep an agent "fresh").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { AgentReconciler, type AgentObject } from '../../src/controller/reconciler.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import type { ApiRequest, KubeClient } from '../../src/kube/client.js';
import { ApiError } from '../../src/kube/errors.js';
import type { EventRecorder } from '../../src/kube/events.js';
import { OperatorMetrics } from '../../src/operator/metrics.js';
import { agentObject, oneInterfaceCard, readyPod } from './reconcile-fixtures.js';

const card = oneInterfaceCard;

interface Options {
  /** Non-GET requests to this resource are refused with 403. */
  forbid?: string;
  cardFails?: boolean;
}

function fixture(opts: Options = {}) {
  let rv = 10;
  let agent: AgentObject | undefined = agentObject(
    { routing: { mode: 'Enforce' }, probe: { failureThreshold: 1 } },
    String(rv),
  );
  const pod = readyPod();
  const request = (req: ApiRequest): Promise<unknown> => {
    if (req.path.endsWith('/status') && req.path.includes('a2aagents')) {
      return Promise.resolve({
        ...agent,
        metadata: { ...agent?.metadata, resourceVersion: String(++rv) },
        status: (req.body as { status: unknown }).status,
      });
    }
    if (req.method === 'GET') return Promise.reject(new ApiError(404, 'NotFound', 'not found', 'GET'));
    if (opts.forbid && req.path.includes(opts.forbid))
      return Promise.reject(new ApiError(403, 'Forbidden', 'forbidden', req.method));
    return Promise.resolve({});
  };
  const client = {
    request,
    get: (path: string) => request({ method: 'GET', path }),
  } as unknown as KubeClient;
  const events = { record: () => undefined } as unknown as EventRecorder;
  let onFetch: () => void = () => undefined;
  const backend: ProbeBackend = {
    fetchCard: () => {
      onFetch();
      return Promise.resolve(
        opts.cardFails
          ? { kind: 'error', reason: 'CardFetchFailed', message: 'connect ECONNREFUSED' }
          : { kind: 'ok', body: card },
      );
    },
    probe: () =>
      Promise.resolve({ state: 'Verified', reason: 'TaskNotFound', message: 'served', durationMs: 1 }),
  };
  const metrics = new OperatorMetrics();
  const none = { get: () => undefined, list: () => [] };
  const reconciler = new AgentReconciler({
    client,
    agents: { get: () => agent, list: () => (agent ? [agent] : []) },
    pods: { get: () => pod, list: () => [pod] },
    owned: { services: none, slices: none, configMaps: none },
    backend,
    events,
    log: pino({ level: 'silent' }),
    observer: {
      decided: (key, d, enforce) => metrics.agentDecided(key, d, enforce),
      probeRound: (key, n, period) => metrics.probeRound(key, n, period),
      removed: (key) => metrics.agentRemoved(key),
    },
  });
  return {
    reconciler,
    metrics,
    deleteAgent: () => (agent = undefined),
    duringFetch: (f: () => void) => (onFetch = f),
  };
}

async function series(metrics: OperatorMetrics, name: string): Promise<{ labels: object; value: number }[]> {
  const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === name);
  return (m?.values ?? []) as { labels: object; value: number }[];
}

const run = (r: AgentReconciler) => r.reconcile('ns/a', new AbortController().signal).catch(() => undefined);

void test('an apply refused with 403: agent_ready and interface_advertised follow the final status (not ready)', async () => {
  const { reconciler, metrics } = fixture({ forbid: 'endpointslices' });
  await run(reconciler);
  assert.deepEqual(
    (await series(metrics, 'a2a_operator_agent_ready')).map((s) => s.value),
    [0],
    'Ready=False/Forbidden in status, so the gauge says 0',
  );
  const advertised = (await series(metrics, 'a2a_operator_interface_advertised')).map((s) => s.value);
  assert.ok(advertised.length > 0, 'a series per interface');
  assert.deepEqual(
    advertised.filter((v) => v !== 0),
    [],
    'no interface counted as advertised',
  );
});

void test('an agent deleted while its reconcile probed: the next reconcile removes every series it left', async () => {
  const { reconciler, metrics, deleteAgent, duringFetch } = fixture();
  // The informer's delete handler removes the series while the reconcile fetches; the probes
  // in flight set theirs again.
  duringFetch(() => (deleteAgent(), metrics.agentRemoved('ns/a')));
  await run(reconciler);
  // Its probes ran, so their series are set again; its verdict is dropped (the agent is gone),
  // so the verdict's series are not.
  const count = async (name: string) => (await series(metrics, name)).length;
  assert.equal(
    await count('a2a_operator_last_probe_timestamp_seconds'),
    1,
    'set again by the probes in flight',
  );
  assert.equal(await count('a2a_operator_agent_ready'), 0, 'no verdict for a deleted agent');
  await run(reconciler); // queued by the delete: the agent is gone
  for (const name of [
    'a2a_operator_agent_ready',
    'a2a_operator_last_probe_timestamp_seconds',
    'a2a_operator_agent_probe_period_seconds',
    'a2a_operator_interface_state',
  ])
    assert.deepEqual(await series(metrics, name), [], name);
});

void test('card fetches without an interface probe do not move the last-probe time', async () => {
  const { reconciler, metrics } = fixture({ cardFails: true });
  await run(reconciler);
  assert.deepEqual(await series(metrics, 'a2a_operator_last_probe_timestamp_seconds'), []);
  assert.equal((await series(metrics, 'a2a_operator_agent_probe_period_seconds')).length, 1);
  const ok = fixture();
  await run(ok.reconciler);
  assert.equal((await series(ok.metrics, 'a2a_operator_last_probe_timestamp_seconds')).length, 1);
});
