// Task continuity's pure parts: a GetTask verdict for the real task id -> shared or not, the
// report -> one verdict for the card, and the operator's once-per-digest rule (the check sends
// a real message, so a digest judged once, by this replica or one before it, is never re-run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { A2AAgentSpec, Condition } from '../../src/api/a2aagent.js';
import { continuityOf, continuitySummary, type ContinuityReport } from '../../src/client/task-continuity.js';
import type { AgentMemory } from '../../src/controller/agent-memory.js';
import {
  outcomeCondition,
  taskContinuityCondition,
  type ContinuityBackend,
  type ContinuityStep,
} from '../../src/controller/task-continuity.js';

void test('a GetTask verdict for the created task: found is TaskShared, TaskNotFound is TaskNotShared, else Unknown', () => {
  const cases: [Parameters<typeof continuityOf>[0], string][] = [
    [{ state: 'Verified', message: 'm', evidence: { httpStatus: 200 } }, 'TaskShared'],
    [
      { state: 'Verified', message: 'm', evidence: { httpStatus: 200, jsonRpcCode: -32001 } },
      'TaskNotShared',
    ],
    [
      { state: 'Verified', message: 'm', evidence: { httpStatus: 404, errorInfoReason: 'TASK_NOT_FOUND' } },
      'TaskNotShared',
    ],
    [{ state: 'Verified', message: 'm', evidence: { grpcCode: 0 } }, 'TaskShared'],
    [
      { state: 'Verified', message: 'm', evidence: { grpcCode: 5, errorInfoReason: 'TASK_NOT_FOUND' } },
      'TaskNotShared',
    ],
    [{ state: 'AuthRequired', message: 'm', evidence: { httpStatus: 401 } }, 'TaskContinuityUnknown'],
    [{ state: 'Inconclusive', message: 'm', evidence: { httpStatus: 500 } }, 'TaskContinuityUnknown'],
  ];
  for (const [verdict, want] of cases)
    assert.equal(continuityOf(verdict).result, want, JSON.stringify(verdict));
});

const report = (results: string[], problem?: string): ContinuityReport => ({
  createsTask: true,
  note: 'n',
  origin: { url: 'http://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ...(problem ? { problem } : { taskId: 't' }),
  interfaces: results.map((result, i) => ({
    url: `http://a/${i}`,
    protocolBinding: i === 0 ? 'HTTP+JSON' : 'GRPC',
    protocolVersion: '1.0',
    result: result as never,
    message: 'm',
  })),
  cancel: { result: 'NotCancelable', message: 'm' },
});

void test('one verdict for the card: any TaskNotShared wins, then Unknown, else TaskShared', () => {
  assert.equal(continuitySummary(report(['TaskShared', 'TaskShared'])).result, 'TaskShared');
  assert.equal(continuitySummary(report(['TaskShared', 'TaskNotShared'])).result, 'TaskNotShared');
  assert.equal(continuitySummary(report(['TaskContinuityUnknown', 'TaskNotShared'])).result, 'TaskNotShared');
  assert.equal(
    continuitySummary(report(['TaskShared', 'TaskContinuityUnknown'])).result,
    'TaskContinuityUnknown',
  );
  assert.equal(continuitySummary(report([], 'no task id')).result, 'TaskContinuityUnknown');
});

const spec = (taskContinuity: 'Off' | 'Once') =>
  ({
    selector: {},
    ports: [{ name: 'http', port: 8080 }],
    card: { port: 'http', path: '/.well-known/agent-card.json', scheme: 'HTTP' },
    probe: { periodSeconds: 30, timeoutSeconds: 3, failureThreshold: 2, taskContinuity },
    routing: { mode: 'Enforce', authRequired: 'Advertise' },
  }) as unknown as A2AAgentSpec;

const card = {
  supportedInterfaces: [
    { url: 'http://svc:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://svc:8080/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
};

async function stepWith(
  taskContinuity: 'Off' | 'Once',
  memory: AgentMemory,
  previous: Condition[] | undefined,
  verifiedCount: number,
  /** null: no card this round. */
  digest: string | null = 'sha256:abc',
  extra: Partial<ContinuityStep> = {},
): Promise<{ condition: Awaited<ReturnType<typeof taskContinuityCondition>>; calls: number }> {
  const { parseCard } = await import('../../src/card/index.js');
  const { interfaceKey } = await import('../../src/observation/observed.js');
  const parsed = parseCard(card);
  if (!('interfaces' in parsed)) throw new Error('card');
  let calls = 0;
  const backend: ContinuityBackend = {
    check: () => {
      calls++;
      return Promise.resolve({ reason: 'TaskShared', message: 'found' });
    },
  };
  const verdicts = new Map(
    parsed.interfaces
      .slice(0, verifiedCount)
      .map((i) => [
        interfaceKey(i),
        { state: 'Verified' as const, reason: 'Verified', message: '', failures: 0, confirmed: false },
      ]),
  );
  const step: ContinuityStep = {
    key: 'ns/a',
    spec: spec(taskContinuity),
    memory,
    previous,
    digest: digest ?? undefined,
    observations: [
      {
        pod: {
          name: 'p',
          uid: 'u',
          ip: '10.0.0.1',
          candidate: true,
          terminating: false,
          containerPorts: {},
          gateListed: false,
        },
        card: { ok: true, card: parsed, digest: 'sha256:abc', findings: [] },
        verdicts,
      },
    ],
    mapContext: { spec: spec(taskContinuity), namespace: 'ns', serviceName: 'svc' },
    credentials: {},
    backend,
    ...extra,
  };
  return { condition: await taskContinuityCondition(step), calls };
}

void test('operator: an aborted reconcile (lease lost) sends no message and remembers nothing', async () => {
  const memory: AgentMemory = { pods: new Map() };
  const aborted = AbortSignal.abort();
  const r = await stepWith('Once', memory, undefined, 2, 'sha256:abc', { signal: aborted });
  assert.equal(r.calls, 0);
  assert.equal(r.condition?.reason, 'TaskContinuityPending');
  assert.equal(memory.continuity, undefined);
  // Aborted while the check ran: its outcome is not the card's verdict.
  const ac = new AbortController();
  const during = await stepWith('Once', memory, undefined, 2, 'sha256:abc', {
    signal: ac.signal,
    backend: {
      check: () => {
        ac.abort();
        return Promise.resolve({ reason: 'TaskContinuityUnknown', message: 'aborted' });
      },
    },
  });
  assert.equal(during.condition?.reason, 'TaskContinuityPending');
  assert.equal(memory.continuity, undefined);
  const later = await stepWith('Once', memory, undefined, 2);
  assert.equal(later.calls, 1, 'a later reconcile runs the check');
});

void test('operator: spec problems (a missing token Secret) hold the check; the verdict shown before stays', async () => {
  const memory: AgentMemory = { pods: new Map() };
  const r = await stepWith('Once', memory, undefined, 2, 'sha256:abc', { specProblems: true });
  assert.equal(r.calls, 0);
  assert.equal(r.condition?.reason, 'TaskContinuityPending');
  assert.match(r.condition!.message, /spec problems/);
  assert.equal(memory.continuity, undefined);
  const prev = {
    type: 'TaskContinuity',
    status: 'True',
    reason: 'TaskShared',
    message: 'card sha256:old: found',
    lastTransitionTime: '2030-01-01T00:00:00Z',
  } as Condition;
  const kept = await stepWith('Once', memory, [prev], 2, 'sha256:abc', { specProblems: true });
  assert.equal(kept.calls, 0);
  assert.equal(kept.condition?.reason, 'TaskShared');
});

void test('operator: Off writes no condition and never runs the check', async () => {
  const r = await stepWith('Off', { pods: new Map() }, undefined, 2);
  assert.equal(r.condition, undefined);
  assert.equal(r.calls, 0);
});

void test('operator: Once runs once per digest; waits (Pending) for two verified interfaces; trusts its own past condition', async () => {
  const memory: AgentMemory = { pods: new Map() };
  const waiting = await stepWith('Once', memory, undefined, 1);
  assert.equal(waiting.condition?.reason, 'TaskContinuityPending');
  assert.equal(waiting.calls, 0);
  const first = await stepWith('Once', memory, undefined, 2);
  assert.equal(first.calls, 1);
  assert.equal(first.condition?.reason, 'TaskShared');
  assert.equal(first.condition?.status, 'True');
  const again = await stepWith('Once', memory, undefined, 2);
  assert.equal(again.calls, 0, 'the same digest is not checked twice');
  // A fresh replica (empty memory) reads the verdict for this digest from status.
  const prev = outcomeCondition({ reason: 'TaskNotShared', message: 'x' }, 'sha256:abc');
  const restarted = await stepWith(
    'Once',
    { pods: new Map() },
    [{ ...prev, observedGeneration: 1, lastTransitionTime: 't' }],
    2,
  );
  assert.equal(restarted.calls, 0);
  assert.equal(restarted.condition?.reason, 'TaskNotShared');
});

void test('operator: a round without a card (no ready pod) keeps the verdict it had, instead of Pending and back', async () => {
  const prev = outcomeCondition({ reason: 'TaskShared', message: 'found' }, 'sha256:abc');
  const stored = [{ ...prev, observedGeneration: 1, lastTransitionTime: 't' }];
  const memory: AgentMemory = { pods: new Map() };
  const noCard = await stepWith('Once', memory, stored, 0, null);
  assert.equal(noCard.calls, 0);
  assert.deepEqual(noCard.condition, prev);
  // Back with the same card: still the same verdict, still not re-run.
  const back = await stepWith('Once', memory, stored, 2);
  assert.equal(back.calls, 0);
  assert.deepEqual(back.condition, prev);
  // Never judged and no card: Pending.
  const fresh = await stepWith('Once', { pods: new Map() }, undefined, 0, null);
  assert.deepEqual(
    [fresh.condition?.reason, fresh.condition?.message],
    ['TaskContinuityPending', 'no card yet'],
  );
});
