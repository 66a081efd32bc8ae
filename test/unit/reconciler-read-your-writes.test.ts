// Regression (found by test/faults/operator-sigkill.test.ts, not by a kill): the same transition
// Event was recorded twice ~25 ms apart by one operator. A reconcile that started right after a
// status write (queued by the pod readiness-gate patch of the same reconcile) read the agent from
// a cache that had not yet seen the write, decided against the older status and recorded the
// transition again. The reconciler now reads its own status writes until the cache catches up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { AgentReconciler } from '../../src/controller/reconciler.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import type { ApiRequest, KubeClient } from '../../src/kube/client.js';
import { ApiError } from '../../src/kube/errors.js';
import type { EventRecorder } from '../../src/kube/events.js';
import { agentObject, oneInterfaceCard, readyPod } from './reconcile-fixtures.js';

const card = oneInterfaceCard;

function fixture() {
  let rv = 10;
  const agent = agentObject({ routing: { mode: 'Observe' } }, String(rv));
  const pod = readyPod();
  const statusWrites: unknown[] = [];
  const client = {
    request: (req: ApiRequest) => {
      if (req.path.endsWith('/status') && req.path.includes('a2aagents')) {
        statusWrites.push(req.body);
        // The write reaches the API server; the cache (below) never sees it in this test.
        return Promise.resolve({
          ...agent,
          metadata: { ...agent.metadata, resourceVersion: String(++rv) },
          status: (req.body as { status: unknown }).status,
        });
      }
      if (req.method === 'GET') return Promise.reject(new ApiError(404, 'NotFound', 'not found', 'GET'));
      return Promise.resolve({});
    },
  } as unknown as KubeClient;
  const recorded: string[] = [];
  const events = {
    record: (_r: unknown, _t: string, reason: string) => recorded.push(reason),
  } as unknown as EventRecorder;
  const backend: ProbeBackend = {
    fetchCard: () => Promise.resolve({ kind: 'ok', body: card }),
    probe: () =>
      Promise.resolve({
        state: 'Verified',
        reason: 'TaskNotFound',
        message: 'answered as served',
        durationMs: 1,
      }),
  };
  const none = { get: () => undefined, list: () => [] };
  const reconciler = new AgentReconciler({
    client,
    agents: { get: () => agent, list: () => [agent] },
    pods: { get: () => pod, list: () => [pod] },
    owned: { services: none, slices: none, configMaps: none },
    backend,
    events,
    log: pino({ level: 'silent' }),
  });
  return { reconciler, recorded, statusWrites };
}

void test('a reconcile right after a status write, with the cache behind, records no Event again', async () => {
  const { reconciler, recorded, statusWrites } = fixture();
  const signal = new AbortController().signal;
  await reconciler.reconcile('ns/a', signal);
  const first = [...recorded];
  assert.ok(first.includes('Succeeded'), first.join(','));
  const writes = statusWrites.length;
  await reconciler.reconcile('ns/a', signal);
  assert.deepEqual(recorded, first, 'the second reconcile recorded the same transitions again');
  assert.equal(statusWrites.length, writes, 'and wrote the same status again');
});
