import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkQueue } from '../../src/kube/workqueue.js';
import { FakeClock, flush } from './kube-fake-clock.js';

describe('WorkQueue', () => {
  it('deduplicates keys that are queued', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('ns/a');
    q.add('ns/a');
    q.add('ns/b');
    assert.equal(q.len(), 2);
    assert.equal(await q.get(), 'ns/a');
    assert.equal(await q.get(), 'ns/b');
    assert.equal(q.len(), 0);
  });

  it('never hands a key to two workers; a re-add while processing runs after done', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('k');
    const k = await q.get();
    assert.equal(k, 'k');
    q.add('k');
    q.add('k');
    assert.equal(q.len(), 0, 'in-flight key is only marked dirty');
    let second: string | undefined;
    void q.get().then((v) => (second = v));
    await flush();
    assert.equal(second, undefined, 'second worker must wait');
    q.done('k');
    await flush();
    assert.equal(second, 'k', 're-queued exactly once after done');
    assert.equal(q.len(), 0);
  });

  it('per-key backoff grows 5ms × 2^n, caps, and forget resets it', () => {
    const q = new WorkQueue({ clock: new FakeClock(), maxDelayMs: 1000 });
    const delays = Array.from({ length: 10 }, () => q.when('k'));
    assert.deepEqual(delays, [5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
    assert.equal(q.numRequeues('k'), 10);
    assert.equal(q.when('other'), 5, 'backoff is per key');
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
    assert.equal(q.when('k'), 5);
  });

  it('addRateLimited delays the key by its backoff', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addRateLimited('k'); // 5 ms
    q.addRateLimited('k'); // 10 ms, but the earlier 5 ms time is kept
    assert.equal(q.len(), 0);
    await clock.advance(4);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.equal(q.len(), 1);
  });

  it('addAfter keeps the earliest time', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('k', 1000);
    q.addAfter('k', 100);
    q.addAfter('k', 5000);
    await clock.advance(99);
    assert.equal(q.len(), 0);
    await clock.advance(1);
    assert.equal(q.len(), 1);
    assert.equal(await q.get(), 'k');
    q.done('k');
    await clock.advance(10_000);
    assert.equal(q.len(), 0, 'the later times did not fire again');
  });

  it('an immediate add supersedes a pending delayed one', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('k', 1000);
    q.add('k');
    assert.equal(await q.get(), 'k');
    q.done('k');
    await clock.advance(2000);
    assert.equal(q.len(), 0);
    assert.equal(q.waitingCount(), 0);
  });

  it('addAfter of a key that is already queued is a no-op', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.add('k');
    q.addAfter('k', 50);
    assert.equal(q.waitingCount(), 0);
    assert.equal(await q.get(), 'k');
  });

  it('orders delayed keys by ready time', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('late', 300);
    q.addAfter('early', 100);
    q.addAfter('mid', 200);
    await clock.advance(300);
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ['early', 'mid', 'late']);
  });

  it('reports depth and latency', async () => {
    const clock = new FakeClock();
    const depths: number[] = [];
    const latencies: [number, string][] = [];
    const q = new WorkQueue({
      clock,
      onDepth: (n) => depths.push(n),
      onLatency: (s, priority) => latencies.push([s, priority]),
    });
    q.add('a');
    q.add('b', 'low');
    await clock.advance(250);
    await q.get();
    assert.deepEqual(depths, [1, 2, 1]);
    assert.deepEqual(latencies, [[0.25, 'high']]);
    await clock.advance(100);
    await q.get();
    assert.deepEqual(latencies[1], [0.35, 'low'], 'a routine key reports its wait as low');
    // a low key raised to high while it waited is handed out, and reported, as high
    q.add('c', 'low');
    q.add('c');
    await q.get();
    assert.deepEqual(latencies[2], [0, 'high']);
  });

  it('delayed keys come due in time order, first come first out at the same time', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    q.addAfter('c', 300);
    q.addAfter('b', 200);
    q.addAfter('a2', 100);
    q.addAfter('a1', 100);
    q.addAfter('a3', 100);
    q.addAfter('b', 50); // moved earlier: its entry at 200 is stale
    q.addAfter('c', 400); // later than it waits for: stays at 300
    await clock.advance(1000);
    const order: (string | undefined)[] = [];
    while (q.len() > 0) order.push(await q.get());
    assert.deepEqual(order, ['b', 'a2', 'a1', 'a3', 'c']);
    assert.equal(q.waitingCount(), 0);
    assert.equal(clock.pending(), 0, 'no timer left armed');
  });

  it('delayed keys: randomized (seeded) against a model, with event storms that leave stale entries', async () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const clock = new FakeClock();
    const q = new WorkQueue({ clock });
    const model = new Map<string, number>(); // key -> when it is due
    const ready = new Set<string>();
    const keys = Array.from({ length: 200 }, (_, i) => `ns/k${i}`);
    for (let step = 0; step < 4000; step++) {
      const key = keys[rand(keys.length)]!;
      const op = rand(10);
      if (step % 1000 === 500) {
        // a storm: half the keys, waiting far ahead, are hit by an event three times over; the
        // other half keep waiting through it (and through the rebuild of the stale heap)
        const waiting = keys.filter((_, i) => i % 2 === 1);
        for (const k of waiting) {
          const delay = 1 + rand(60_000);
          q.addAfter(k, delay);
          const at = clock.now() + delay;
          if (!ready.has(k) && (model.get(k) ?? Infinity) > at) model.set(k, at);
        }
        for (let round = 0; round < 3; round++) {
          for (const k of keys.filter((_, i) => i % 2 === 0)) {
            q.addAfter(k, 50_000 + rand(10_000));
            q.add(k);
            model.delete(k);
            ready.add(k);
          }
          const got = new Set<string>();
          while (q.len() > 0) got.add((await q.get())!);
          for (const k of got) q.done(k);
          assert.deepEqual([...got].sort(), [...ready].sort(), `step ${step}: storm round ${round}`);
          ready.clear();
        }
      } else if (op < 5) {
        const delay = 1 + rand(60_000);
        q.addAfter(key, delay);
        const at = clock.now() + delay;
        if (!ready.has(key) && (model.get(key) ?? Infinity) > at) model.set(key, at);
      } else if (op < 8) {
        // an event: queued now, its pending revisit superseded (a stale entry far ahead)
        q.add(key);
        model.delete(key);
        ready.add(key);
      } else {
        await clock.advance(rand(2_000));
        for (const [k, at] of model)
          if (at <= clock.now()) {
            model.delete(k);
            ready.add(k);
          }
        const got = new Set<string>();
        while (q.len() > 0) {
          const k = (await q.get())!;
          assert.ok(!got.has(k), `step ${step}: ${k} handed out twice`);
          got.add(k);
          q.done(k);
        }
        assert.deepEqual([...got].sort(), [...ready].sort(), `step ${step}: keys due`);
        ready.clear();
        assert.equal(q.waitingCount(), model.size, `step ${step}: keys waiting`);
      }
    }
    await clock.advance(120_000);
    const rest = new Set<string>();
    while (q.len() > 0) rest.add((await q.get())!);
    assert.deepEqual([...rest].sort(), [...new Set([...model.keys(), ...ready])].sort());
  });

  it('shutdown stops handing out keys and waits for in-flight ones', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    q.add('a');
    q.add('b');
    const a = await q.get();
    assert.equal(a, 'a');
    let drained = false;
    const shut = q.shutdown().then(() => (drained = true));
    assert.equal(await q.get(), undefined, 'no more work after shutdown');
    q.add('c');
    assert.equal(q.len(), 1, 'adds after shutdown are ignored (b stays, c not added)');
    await flush();
    assert.equal(drained, false, 'waits for the in-flight key');
    q.done('a');
    await shut;
    assert.equal(drained, true);
  });

  it('shutdown releases idle getters', async () => {
    const q = new WorkQueue({ clock: new FakeClock() });
    const g = q.get();
    await q.shutdown();
    assert.equal(await g, undefined);
  });
  describe('priority', () => {
    it('hands out high keys before low ones, first in first out within each', async () => {
      const q = new WorkQueue({ clock: new FakeClock() });
      q.add('l1', 'low');
      q.add('h1');
      q.add('l2', 'low');
      q.add('h2', 'high');
      assert.equal(q.len(), 4);
      const got = [await q.get(), await q.get(), await q.get(), await q.get()];
      assert.deepEqual(got, ['h1', 'h2', 'l1', 'l2']);
    });

    it('a high add raises a queued low key (queued once); a low add never lowers a high one', async () => {
      const q = new WorkQueue({ clock: new FakeClock() });
      q.add('a', 'low');
      q.add('b', 'low');
      q.add('h');
      q.add('b', 'high');
      q.add('h', 'low');
      assert.equal(q.len(), 3);
      assert.deepEqual([await q.get(), await q.get(), await q.get()], ['h', 'b', 'a']);
      assert.equal(q.len(), 0);
    });

    it('a key re-added while in flight is queued again at the highest priority asked', async () => {
      const q = new WorkQueue({ clock: new FakeClock() });
      q.add('k');
      assert.equal(await q.get(), 'k');
      q.add('k', 'low');
      q.add('other', 'low');
      q.done('k');
      assert.deepEqual([await q.get(), await q.get()], ['other', 'k'], 'k stayed low, behind other');
      q.add('k2');
      assert.equal(await q.get(), 'k2');
      q.add('k2', 'low');
      q.add('k2', 'high');
      q.add('x', 'low');
      q.done('k2');
      assert.deepEqual([await q.get(), await q.get()], ['k2', 'x'], 'raised to high while in flight');
    });

    it('a delayed key becomes ready at its priority; merged delays keep the earlier time and the higher priority', async () => {
      const clock = new FakeClock();
      const q = new WorkQueue({ clock });
      q.addAfter('routine', 10, 'low');
      q.addAfter('merged', 10, 'low');
      q.addAfter('merged', 50, 'high');
      q.addAfter('event', 10);
      await clock.advance(10);
      assert.equal(q.len(), 3);
      assert.deepEqual([await q.get(), await q.get(), await q.get()], ['merged', 'event', 'routine']);
    });

    it('an immediate low add keeps the priority of the delayed high one it supersedes', async () => {
      const clock = new FakeClock();
      const q = new WorkQueue({ clock });
      q.add('first', 'low');
      q.addAfter('k', 100, 'high');
      q.add('k', 'low');
      assert.equal(q.waitingCount(), 0);
      assert.deepEqual([await q.get(), await q.get()], ['k', 'first']);
    });
  });
});
