// DeferredWrite (src/controller/deferred-write.ts): a first visit's InProgress status is written
// only once the visit has outlasted its grace. What it must hold: no write when settled or
// cancelled in time, exactly one when the grace runs out, and the started write's failure
// reaches whoever settles (a failed InProgress write fails the reconcile). Time is a FakeClock:
// the grace runs out only when a test advances it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeferredWrite } from '../../src/controller/deferred-write.js';
import { FakeClock, flush } from './kube-fake-clock.js';

describe('DeferredWrite', () => {
  it('a grace of 0 writes at once', async () => {
    const clock = new FakeClock();
    let writes = 0;
    const w = new DeferredWrite(() => (writes++, Promise.resolve()), 0, clock);
    assert.equal(writes, 1);
    assert.ok(w.wasStarted);
    await w.settle();
    assert.equal(writes, 1);
    assert.equal(clock.pending(), 0);
  });

  it('settled within the grace: no write, now or later', async () => {
    const clock = new FakeClock();
    let writes = 0;
    const w = new DeferredWrite(() => (writes++, Promise.resolve()), 30, clock);
    await clock.advance(29);
    await w.settle();
    await clock.advance(60);
    assert.equal(writes, 0);
    assert.ok(!w.wasStarted);
    assert.equal(clock.pending(), 0, 'no timer left behind');
  });

  it('cancelled within the grace (the visit threw): no write', async () => {
    const clock = new FakeClock();
    let writes = 0;
    const w = new DeferredWrite(() => (writes++, Promise.resolve()), 30, clock);
    w.cancel();
    await clock.advance(60);
    assert.equal(writes, 0);
    assert.equal(clock.pending(), 0, 'no timer left behind');
  });

  it('the grace runs out: one write, and settle waits for it', async () => {
    const clock = new FakeClock();
    let writes = 0;
    let finish: () => void = () => undefined;
    let finished = false;
    const w = new DeferredWrite(
      () => {
        writes++;
        return new Promise<void>((r) => (finish = r)).then(() => void (finished = true));
      },
      10,
      clock,
    );
    await clock.advance(10);
    assert.equal(writes, 1);
    assert.ok(w.wasStarted);
    const settled = w.settle();
    await flush();
    assert.ok(!finished);
    finish();
    await settled;
    assert.ok(finished, 'settle resolved after the write did');
    w.cancel();
    await clock.advance(60);
    assert.equal(writes, 1);
  });

  it("a started write's failure reaches settle, and is not unhandled before it", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const clock = new FakeClock();
      const w = new DeferredWrite(() => Promise.reject(new Error('etcd timeout')), 5, clock);
      await clock.advance(5);
      assert.ok(w.wasStarted);
      await flush();
      await assert.rejects(w.settle(), /etcd timeout/);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
