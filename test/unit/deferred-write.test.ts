// DeferredWrite (src/controller/deferred-write.ts): a first visit's InProgress status is written
// only once the visit has outlasted its grace. What it must hold: no write when settled or
// cancelled in time, exactly one when the grace runs out, and the started write's failure
// reaches whoever settles (a failed InProgress write fails the reconcile).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DeferredWrite } from '../../src/controller/deferred-write.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for the grace to run out, however late a busy machine fires the timer. */
const started = async (w: DeferredWrite) => {
  while (!w.wasStarted) await sleep(5);
};

describe('DeferredWrite', () => {
  it('a grace of 0 writes at once', async () => {
    let writes = 0;
    const w = new DeferredWrite(() => (writes++, Promise.resolve()), 0);
    assert.equal(writes, 1);
    assert.ok(w.wasStarted);
    await w.settle();
    assert.equal(writes, 1);
  });

  it('settled within the grace: no write, now or later', async () => {
    let writes = 0;
    const w = new DeferredWrite(() => (writes++, Promise.resolve()), 30);
    await w.settle();
    await sleep(60);
    assert.equal(writes, 0);
    assert.ok(!w.wasStarted);
  });

  it('cancelled within the grace (the visit threw): no write', async () => {
    let writes = 0;
    const w = new DeferredWrite(() => (writes++, Promise.resolve()), 30);
    w.cancel();
    await sleep(60);
    assert.equal(writes, 0);
  });

  it('the grace runs out: one write, and settle waits for it', { timeout: 10_000 }, async () => {
    let writes = 0;
    let finished = false;
    const w = new DeferredWrite(async () => {
      writes++;
      await sleep(30);
      finished = true;
    }, 10);
    await started(w);
    assert.equal(writes, 1);
    assert.ok(w.wasStarted);
    await w.settle();
    assert.ok(finished, 'settle resolved after the write did');
    w.cancel();
    assert.equal(writes, 1);
  });

  it(
    "a started write's failure reaches settle, and is not unhandled before it",
    { timeout: 10_000 },
    async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (e: unknown) => unhandled.push(e);
      process.on('unhandledRejection', onUnhandled);
      try {
        const w = new DeferredWrite(() => Promise.reject(new Error('etcd timeout')), 5);
        await started(w);
        await sleep(20);
        await assert.rejects(w.settle(), /etcd timeout/);
        assert.deepEqual(unhandled, []);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    },
  );
});
