import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { microTime } from '../../src/kube/clock.js';
import { LeaderElector, validateTimings } from '../../src/kube/leader-election.js';
import { MemoryLeaseStore, type LeaseStore } from '../../src/kube/lease-store.js';
import { FakeClock } from './kube-fake-clock.js';

function candidate(identity: string, lock: LeaseStore, clock: FakeClock) {
  const log: string[] = [];
  let leadingSignal: AbortSignal | undefined;
  const elector = new LeaderElector({
    lock,
    identity,
    clock,
    random: () => 0, // acquire retries every retryPeriod exactly
    onStartedLeading: (s) => {
      leadingSignal = s;
      log.push('started');
    },
    onStoppedLeading: () => log.push('stopped'),
  });
  const stop = new AbortController();
  const done = elector.run(stop.signal);
  return { elector, log, stop, done, leadingSignal: () => leadingSignal };
}

describe('LeaderElector', () => {
  it('validates leaseDuration > renewDeadline > 1.2 × retryPeriod', () => {
    validateTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    assert.throws(() =>
      validateTimings({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }),
    );
    assert.throws(() =>
      validateTimings({ leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }),
    );
    assert.throws(
      () =>
        new LeaderElector({
          lock: new MemoryLeaseStore(),
          identity: 'x',
          renewDeadlineMs: 20_000,
          onStartedLeading: () => undefined,
          onStoppedLeading: () => undefined,
        }),
    );
  });

  it('formats MicroTime with six fractional digits', () => {
    assert.equal(microTime(Date.UTC(2025, 0, 2, 3, 4, 5, 678)), '2025-01-02T03:04:05.678000Z');
  });

  it('the first candidate creates the lease and leads; a second one stands by', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    const a = candidate('a', lock, clock);
    await clock.advance(0);
    const b = candidate('b', lock, clock);
    await clock.advance(0);
    assert.deepEqual(a.log, ['started']);
    assert.deepEqual(b.log, []);
    assert.equal(lock.lease?.spec.holderIdentity, 'a');
    assert.equal(lock.lease?.spec.leaseDurationSeconds, 15);
    // The leader keeps renewing; the standby never gets in.
    await clock.advance(60_000);
    assert.deepEqual(b.log, []);
    assert.equal(lock.lease?.spec.holderIdentity, 'a');
    assert.equal(a.elector.isLeader(), true);
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.done, b.done]);
  });

  it('holds the lease by its own clock only until renewDeadline after the last renewal started', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    const a = candidate('a', lock, clock);
    await clock.advance(0);
    assert.equal(a.elector.holdsLease(), true);
    await clock.advance(30_000); // renewing every retryPeriod
    assert.equal(a.elector.holdsLease(), true);
    // Paused (SIGSTOP) past the renew deadline: on waking, before any renewal ran, it must not
    // count itself leader, although the last lease it saw names it.
    clock.jump(10_001);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(a.elector.holdsLease(), false);
    await clock.advance(0); // the overdue renewal runs and succeeds: nobody took the lease
    assert.equal(a.elector.holdsLease(), true);
    a.stop.abort();
    await a.done;
  });

  it('a paused leader whose lease was taken never holds it again', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    const a = candidate('a', lock, clock);
    await clock.advance(0);
    // Another replica took the expired lease while `a` was paused.
    const current = await lock.get();
    await lock.update(current!.resourceVersion, {
      ...current!.spec,
      holderIdentity: 'b',
      leaseTransitions: 1,
    });
    clock.jump(20_000);
    assert.equal(a.elector.holdsLease(), false);
    await clock.advance(0);
    assert.equal(a.elector.holdsLease(), false);
    assert.deepEqual(a.log, ['started', 'stopped']);
    await a.done;
  });

  it('a standby takes over after the lease duration, judged by its own clock', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    const a = candidate('a', lock, clock);
    await clock.advance(0);
    const b = candidate('b', lock, clock);
    await clock.advance(1_000);
    const cutAt = clock.now();
    // The leader is partitioned from the API (its writes fail); b is not.
    const realUpdate = lock.update.bind(lock);
    lock.update = (rv, spec) =>
      spec.holderIdentity === 'a' ? Promise.reject(new Error('partitioned')) : realUpdate(rv, spec);
    await clock.advance(10_000);
    assert.deepEqual(a.log, ['started', 'stopped'], 'the leader gives up after renewDeadline');
    assert.equal(a.leadingSignal()?.aborted, true);
    await a.done;
    assert.deepEqual(b.log, [], 'the standby waits out the lease');
    await clock.advance(6_000);
    assert.deepEqual(b.log, ['started']);
    assert.equal(lock.lease?.spec.holderIdentity, 'b');
    assert.equal(lock.lease?.spec.leaseTransitions, 1);
    // b saw the lease last change at ~t0+2s (a's last renewal), so it took over once 15 s
    // had passed on its own clock since then, and no later than one retry period after.
    assert.ok(clock.now() - cutAt <= 15_000 + 2_000);
    b.stop.abort();
    await b.done;
  });

  it('holder renewTime from a skewed clock does not matter', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    // Another holder wrote a renewTime far in the past (its clock is behind), just now.
    await lock.create({
      holderIdentity: 'skewed',
      leaseDurationSeconds: 15,
      renewTime: microTime(clock.now() - 3_600_000),
      acquireTime: microTime(clock.now() - 3_600_000),
      leaseTransitions: 3,
    });
    const b = candidate('b', lock, clock);
    await clock.advance(14_000);
    assert.deepEqual(b.log, [], 'not expired: b first saw it 14 s ago');
    await clock.advance(4_000);
    assert.deepEqual(b.log, ['started']);
    assert.equal(lock.lease?.spec.leaseTransitions, 4);
    b.stop.abort();
    await b.done;
  });

  /** A leads, B stands by, A stops: the lease is cleared and B takes it at its next retry. */
  async function handOver(whileLeading: (lock: MemoryLeaseStore) => Promise<void> = async () => {}) {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    const a = candidate('a', lock, clock);
    await clock.advance(0);
    await whileLeading(lock);
    const b = candidate('b', lock, clock);
    await clock.advance(500);
    a.stop.abort();
    await a.done;
    assert.deepEqual(a.log, ['started', 'stopped']);
    assert.equal(lock.lease?.spec.holderIdentity, '');
    await clock.advance(2_000);
    assert.deepEqual(b.log, ['started']);
    b.stop.abort();
    await b.done;
  }

  it('release on shutdown lets the standby take over at its next retry', () => handOver());

  it('release after a renewal whose answer was lost still clears the lease (reads it first)', () =>
    // A renewal the API server applied but whose answer never came back (its request was cut
    // off on shutdown): the stored resourceVersion is newer than the one the elector saw.
    handOver(async (lock) => {
      await lock.update(lock.lease!.resourceVersion, { ...lock.lease!.spec, renewTime: 'later' });
    }));

  it('release leaves a lease that no longer names it alone', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    const a = candidate('a', lock, clock);
    await clock.advance(0);
    // Taken over behind its back (its last view still names itself).
    await lock.update(lock.lease!.resourceVersion, { ...lock.lease!.spec, holderIdentity: 'other' });
    assert.equal(await a.elector.release(), true);
    assert.equal(lock.lease?.spec.holderIdentity, 'other');
    a.stop.abort();
    await a.done;
  });

  it('two candidates racing for a free lease: exactly one wins (409 for the other)', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    await lock.create({ holderIdentity: '', leaseDurationSeconds: 1 });
    const a = candidate('a', lock, clock);
    const b = candidate('b', lock, clock);
    await clock.advance(10_000);
    const leaders = [a, b].filter((c) => c.log.includes('started'));
    assert.equal(leaders.length, 1);
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.done, b.done]);
  });

  it('a leader that sees another holder stops at once', async () => {
    const clock = new FakeClock();
    const lock = new MemoryLeaseStore();
    const a = candidate('a', lock, clock);
    await clock.advance(0);
    // Someone forcibly takes the lease (e.g. an admin edit).
    await lock.update(lock.lease!.resourceVersion, { ...lock.lease!.spec, holderIdentity: 'intruder' });
    await clock.advance(2_000);
    assert.deepEqual(a.log, ['started', 'stopped']);
    await a.done;
  });
});
