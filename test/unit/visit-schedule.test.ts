// An agent's card fetches and probes come due together, one jitter draw per visit: with a draw
// per item they spread over a fifth of a period, the requeue fired at the earliest, and pulling
// the rest forward (isDue) probed every item about every 0.8 periods, a quarter more probes
// than periodSeconds asks for (docs/benchmarks.md, ninth pass).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InterfaceState } from '../../src/api/conditions.js';
import { MemoryStore } from '../../src/controller/agent-memory.js';
import { observePods } from '../../src/controller/observe-pods.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import { agentSpec, observeInput, podA0 } from './observe-fixtures.js';

const PERIOD_MS = 10_000;
const spec = agentSpec(8080, { probe: { periodSeconds: PERIOD_MS / 1000 } });
const pods = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((ip, i) => ({
  ...podA0(ip),
  name: `a-${i}`,
  uid: `u${i}`,
}));

/** A seeded uniform generator (mulberry32): every item's draw differs, reproducibly. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function healthyFleet() {
  const calls = { fetches: 0, probes: 0 };
  const backend: ProbeBackend = {
    fetchCard: () => {
      calls.fetches++;
      return Promise.resolve({
        kind: 'ok',
        body: {
          name: 'a',
          supportedInterfaces: [
            { url: 'http://a.ns.svc:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            { url: 'http://a.ns.svc:8080/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
            { url: 'http://a.ns.svc:8080', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          ],
        },
      });
    },
    probe: () => {
      calls.probes++;
      return Promise.resolve({
        state: InterfaceState.Verified,
        reason: 'Verified',
        message: 'm',
        durationMs: 1,
      });
    },
  };
  return { backend, calls };
}

void test('everything a visit probes comes due at one instant, whatever each item would have drawn', async () => {
  const { backend } = healthyFleet();
  const memory = new MemoryStore().for('ns/a', 1);
  const result = await observePods(
    observeInput(spec, backend, { pods, memory, now: () => 1_000_000, random: seeded(7) }),
  );
  const due = pods.flatMap((p) => {
    const m = memory.pods.get(p.uid)!;
    return [m.card!.dueAt, ...[...m.probes.values()].map((r) => r.dueAt)];
  });
  assert.equal(due.length, 3 * 4, 'a card and three probes per pod');
  assert.equal(new Set(due).size, 1, `due at ${[...new Set(due)].join(', ')}`);
  assert.equal(result.nextDueAt, due[0]);
  const interval = due[0]! - 1_000_000;
  assert.ok(interval >= 0.8 * PERIOD_MS && interval <= PERIOD_MS, `${interval} ms`);
});

void test('requeued at the next due time, each visit probes every item: one probe per item per visit, about 0.9 periods apart', async () => {
  const { backend, calls } = healthyFleet();
  const memory = new MemoryStore().for('ns/a', 1);
  const random = seeded(42);
  let now = 1_000_000;
  const start = now;
  let visits = 0;
  // As the reconciler requeues: at the earliest due time the visit reports.
  while (now - start < 200 * PERIOD_MS) {
    const { nextDueAt } = await observePods(
      observeInput(spec, backend, { pods, memory, now: () => now, random }),
    );
    visits++;
    assert.equal(calls.probes, 9 * visits, `visit ${visits} probed ${calls.probes - 9 * (visits - 1)} of 9`);
    assert.equal(calls.fetches, 3 * visits);
    now = nextDueAt!;
  }
  const meanInterval = (now - start) / visits;
  // A draw per item made this about 0.82 periods (the earliest of 12 draws in [0.8, 1.0]).
  assert.ok(
    meanInterval > 0.86 * PERIOD_MS && meanInterval <= PERIOD_MS,
    `mean ${meanInterval.toFixed(0)} ms between visits`,
  );
});

/**
 * An agent whose gRPC probes (`grpc`) or card fetches (`card`) fail while `failing` is set,
 * failureThreshold 2; `visit` observes it at `now`.
 */
function flakyAgent(what: 'grpc' | 'card', seed: number) {
  const spec2 = agentSpec(8080, { probe: { periodSeconds: PERIOD_MS / 1000, failureThreshold: 2 } });
  const { backend } = healthyFleet();
  const w = { failing: false, now: 1_000_000, memory: new MemoryStore().for('ns/a', 1) };
  const flaky: ProbeBackend = {
    ...backend,
    fetchCard: (req) =>
      what === 'card' && w.failing
        ? Promise.resolve({ kind: 'error', reason: 'CardUnreachable', message: 'refused' })
        : backend.fetchCard(req),
    probe: (req) =>
      what === 'grpc' && w.failing && req.iface.protocolBinding === 'GRPC'
        ? Promise.resolve({
            state: InterfaceState.Unimplemented,
            reason: 'Unimplemented',
            message: 'm',
            durationMs: 1,
          })
        : backend.probe(req),
  };
  const visit = () =>
    observePods(
      observeInput(spec2, flaky, { pods, memory: w.memory, now: () => w.now, random: seeded(seed) }),
    );
  return Object.assign(w, { visit });
}

void test('a failure awaiting confirmation (confirming) or confirmed (restoring) makes the next visit urgent; a healed one does not', async () => {
  const a = flakyAgent('grpc', 3);
  let res = await a.visit();
  assert.deepEqual([res.confirming, res.restoring], [false, false], 'all verified');
  a.now = res.nextDueAt!;
  a.failing = true;
  res = await a.visit();
  assert.deepEqual([res.confirming, res.restoring], [true, false], 'one failure of two');
  assert.ok(res.nextDueAt! - a.now <= 1000, 'due again on the fast schedule');
  a.now = res.nextDueAt!;
  res = await a.visit();
  assert.deepEqual(
    [res.confirming, res.restoring],
    [false, true],
    'confirmed: withdrawn until a probe passes',
  );
  assert.ok(res.nextDueAt! - a.now >= 0.8 * PERIOD_MS, 'the withdrawn interface is probed at the period');
  a.now = res.nextDueAt!;
  res = await a.visit();
  assert.deepEqual([res.confirming, res.restoring], [false, true], 'still broken: still urgent');
  a.now = res.nextDueAt!;
  a.failing = false;
  res = await a.visit();
  assert.deepEqual([res.confirming, res.restoring], [false, false], 'healed');
});

void test('a card that cannot be fetched: confirming, then restoring once confirmed, neither once it is back', async () => {
  const a = flakyAgent('card', 5);
  let res = await a.visit();
  assert.deepEqual([res.confirming, res.restoring], [false, false], 'all verified');
  a.failing = true;
  const states: [boolean, boolean][] = [];
  for (let i = 0; i < 3; i++) {
    a.now = res.nextDueAt!;
    res = await a.visit();
    states.push([res.confirming, res.restoring]);
  }
  assert.deepEqual(states, [
    [true, false],
    [false, true],
    [false, true],
  ]);
  a.failing = false;
  // The visit at which every pod's card is due again (probes may come due sooner).
  a.now = Math.max(...pods.map((p) => a.memory.pods.get(p.uid)!.card!.dueAt));
  res = await a.visit();
  assert.deepEqual([res.confirming, res.restoring], [false, false], 'the card is back');
});
