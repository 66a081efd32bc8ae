import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Controller,
  keyOf,
  splitKey,
  type ReconcileOutcome,
  type Reconciler,
} from '../../src/kube/controller.js';
import { TerminalError } from '../../src/kube/errors.js';
import { FakeClock, flush } from './kube-fake-clock.js';

function recorder() {
  const outcomes: [string, ReconcileOutcome][] = [];
  const errors: unknown[] = [];
  return {
    outcomes,
    errors,
    observer: {
      reconcileDone: (o: ReconcileOutcome, _s: number, key: string) => outcomes.push([key, o]),
      reconcileError: (_k: string, err: unknown) => errors.push(err),
      queueDepth: () => undefined,
      queueLatency: () => undefined,
    },
  };
}

function setup(reconcile: Reconciler, extra: { workers?: number; timeoutMs?: number } = {}) {
  const clock = new FakeClock();
  const rec = recorder();
  const c = new Controller({ name: 't', reconcile, clock, observer: rec.observer, ...extra });
  return { clock, rec, c };
}

describe('Controller', () => {
  it('a reconcile may have many listeners on its signal (one per probe) without a leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    let added = 0;
    const { c } = setup(async (_key, signal) => {
      // distinct functions: EventTarget keeps one copy of a listener added twice
      for (let i = 0; i < 50; i++) signal.addEventListener('abort', () => i);
      added += 50;
      return {};
    });
    c.start();
    c.enqueue('k');
    await flush();
    await new Promise((r) => setImmediate(r));
    await c.stop();
    process.off('warning', onWarning);
    assert.equal(added, 50, 'the reconcile ran and added its listeners');
    assert.deepEqual(warnings, []);
  });

  it('success forgets the key', async () => {
    const { c, rec } = setup(async () => ({}));
    c.queue.when('ns/a'); // pretend an earlier failure
    c.start();
    c.enqueue('ns/a');
    await flush();
    assert.deepEqual(rec.outcomes, [['ns/a', 'success']]);
    assert.equal(c.queue.numRequeues('ns/a'), 0);
    await c.stop();
  });

  it('an error requeues with growing per-key backoff', async () => {
    const runs: number[] = [];
    const { c, clock, rec } = setup(async () => {
      runs.push(clock.now());
      throw new Error('boom');
    });
    const t0 = clock.now();
    c.start();
    c.enqueue('k');
    await clock.advance(5 + 10 + 20);
    assert.deepEqual(
      runs.map((t) => t - t0),
      [0, 5, 15, 35],
    );
    assert.ok(rec.outcomes.every(([, o]) => o === 'error'));
    assert.equal(c.queue.numRequeues('k'), 4);
    await c.stop();
  });

  it('a TerminalError is not retried', async () => {
    let runs = 0;
    const { c, clock, rec } = setup(async () => {
      runs++;
      throw new TerminalError('missing Secret');
    });
    c.start();
    c.enqueue('k');
    await clock.advance(60_000);
    assert.equal(runs, 1);
    assert.deepEqual(rec.outcomes, [['k', 'terminal_error']]);
    assert.ok(rec.errors[0] instanceof TerminalError);
    await c.stop();
  });

  it('a TerminalError with a revisit comes back once per revisit, never with backoff', async () => {
    const runs: number[] = [];
    const { c, clock, rec } = setup(async () => {
      runs.push(clock.now());
      throw new TerminalError('refused by policy', { revisit: { afterMs: 5_000, priority: 'low' } });
    });
    const t0 = clock.now();
    c.start();
    c.enqueue('k');
    await clock.advance(12_000);
    assert.deepEqual(
      runs.map((t) => t - t0),
      [0, 5_000, 10_000],
    );
    assert.ok(rec.outcomes.every(([, o]) => o === 'terminal_error'));
    assert.equal(c.queue.numRequeues('k'), 0, 'no backoff builds up');
    await c.stop();
  });

  it('a synchronous throw is recovered as an error', async () => {
    const { c, rec } = setup((() => {
      throw new Error('sync');
    }) as Reconciler);
    c.start();
    c.enqueue('k');
    await flush();
    assert.deepEqual(rec.outcomes[0], ['k', 'error']);
    await c.stop();
  });

  it('requeueAfter forgets the failures and requeues after the delay', async () => {
    let runs = 0;
    const { c, clock, rec } = setup(async () => {
      runs++;
      return { requeueAfterMs: 30_000 };
    });
    c.queue.when('k');
    c.queue.when('k');
    c.start();
    c.enqueue('k');
    await flush();
    assert.equal(runs, 1);
    assert.equal(c.queue.numRequeues('k'), 0);
    await clock.advance(29_999);
    assert.equal(runs, 1);
    await clock.advance(1);
    assert.equal(runs, 2);
    assert.deepEqual(rec.outcomes[0], ['k', 'requeue_after']);
    await c.stop();
  });

  it('aborts the signal on timeout and counts it as an error', async () => {
    let sawAbort: unknown;
    const { c, clock, rec } = setup(
      (_key, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            sawAbort = signal.reason;
            reject(signal.reason as Error);
          });
        }),
      { timeoutMs: 1000 },
    );
    c.start();
    c.enqueue('k');
    await clock.advance(999);
    assert.equal(rec.outcomes.length, 0);
    await clock.advance(1);
    assert.equal((sawAbort as Error).name, 'ReconcileTimeoutError');
    assert.deepEqual(rec.outcomes[0], ['k', 'error']);
    await c.stop();
  });

  it('never reconciles one key concurrently, even with many workers', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const releases: (() => void)[] = [];
    const { c } = setup(
      async () => {
        active++;
        runs++;
        maxActive = Math.max(maxActive, active);
        await new Promise<void>((r) => releases.push(r));
        active--;
      },
      { workers: 4 },
    );
    c.start();
    c.enqueue('k');
    await flush();
    c.enqueue('k');
    c.enqueue('k');
    await flush();
    assert.equal(runs, 1);
    releases.shift()!();
    await flush();
    assert.equal(runs, 2, 'the burst collapsed into one more run');
    releases.shift()!();
    await flush();
    assert.equal(maxActive, 1);
    assert.equal(runs, 2);
    await c.stop();
  });

  it('runs distinct keys in parallel up to the worker count', async () => {
    let active = 0;
    let maxActive = 0;
    const releases: (() => void)[] = [];
    const { c } = setup(
      async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise<void>((r) => releases.push(r));
        active--;
      },
      { workers: 2 },
    );
    c.start();
    for (const k of ['a', 'b', 'c']) c.enqueue(k);
    await flush();
    assert.equal(active, 2);
    for (const r of releases.splice(0)) r();
    await flush();
    for (const r of releases.splice(0)) r();
    await flush();
    assert.equal(maxActive, 2);
    await c.stop();
  });

  it('stop waits for in-flight reconciles and takes no new work', async () => {
    let release!: () => void;
    let runs = 0;
    const { c } = setup(async () => {
      runs++;
      await new Promise<void>((r) => (release = r));
    });
    c.start();
    c.enqueue('a');
    c.enqueue('b');
    await flush();
    let stopped = false;
    const stopping = c.stop().then(() => (stopped = true));
    await flush();
    assert.equal(stopped, false);
    release();
    await stopping;
    assert.equal(runs, 1, 'b was never started');
  });

  it('a low-priority requeue waits behind keys queued by events', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { c, clock } = setup(async (key) => {
      order.push(key);
      if (key === 'busy') await gate;
      return key === 'routine' ? { requeueAfterMs: 1000, priority: 'low' } : undefined;
    });
    c.start();
    c.enqueue('routine');
    await flush();
    c.enqueue('busy'); // holds the only worker while the rest become ready
    await flush();
    await clock.advance(1000); // the routine revisit is ready first...
    c.enqueue('event'); // ...an event arrives after it
    release();
    await flush();
    assert.deepEqual(order, ['routine', 'busy', 'event', 'routine']);
    await c.stop();
  });

  it('keys', () => {
    assert.equal(keyOf({ metadata: { namespace: 'ns', name: 'a' } }), 'ns/a');
    assert.equal(keyOf({ metadata: { name: 'cluster-scoped' } }), 'cluster-scoped');
    assert.deepEqual(splitKey('ns/a'), { namespace: 'ns', name: 'a' });
    assert.deepEqual(splitKey('x'), { namespace: '', name: 'x' });
  });
});
