/**
 * Lease leader election, a port of client-go `tools/leaderelection` (leaderelection.go):
 *
 * - Acquire and renew by GET + PUT carrying the observed resourceVersion, so two candidates
 *   racing for the lease cannot both win (the loser gets 409 and retries).
 * - A candidate judges expiry by its OWN clock: the lease is free once `leaseDuration` has
 *   passed since this candidate last saw the lease change. The holder's `renewTime` is never
 *   compared with the local clock, so clock skew between nodes does not matter.
 * - The leader renews every `retryPeriod`; if it cannot renew for `renewDeadline` (or sees
 *   another holder) it has lost the lease: `onStoppedLeading` runs and `run()` returns. The
 *   caller should exit the process: work started as leader may still be in flight.
 * - `holdsLease()` answers by the local clock alone, without waiting for the renew loop: a
 *   process paused past `renewDeadline` (SIGSTOP, a frozen VM) wakes up with timers and
 *   reconciles due at once, and must not write before it has renewed again. The manager's API
 *   client asks it before every write.
 * - A standby keeps retrying (jittered `retryPeriod`) and takes over when the lease expires,
 *   or at its next retry after the leader `release()`s (holder cleared).
 */
import { microTime, realClock, sleep, type Clock } from './clock.js';
import type { LeaseRecord, LeaseStore, StoredLease } from './lease-store.js';

export interface LeaderElectorOptions {
  lock: LeaseStore;
  /** Unique per process (pod name + random suffix is typical). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Clear the holder when `run`'s signal aborts while leading (default true). */
  releaseOnCancel?: boolean;
  /** Called once leadership is acquired; `signal` aborts when it is lost or released. */
  onStartedLeading(signal: AbortSignal): void;
  /** Called after leadership ends (lost, or released on shutdown). Not called if never led. */
  onStoppedLeading(): void;
  /** Called when the observed holder changes (including to ourselves). */
  onNewLeader?(identity: string): void;
  /** Failed lease reads/writes, for logging; election carries on. */
  onError?(err: unknown): void;
  clock?: Clock;
  random?: () => number;
}

export const LEADER_ELECTION_DEFAULTS = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/** client-go's validation: leaseDuration > renewDeadline > 1.2 × retryPeriod (JitterFactor). */
export function validateTimings(t: {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}): void {
  if (!(t.leaseDurationMs > t.renewDeadlineMs))
    throw new RangeError('leaseDuration must be greater than renewDeadline');
  if (!(t.renewDeadlineMs > 1.2 * t.retryPeriodMs))
    throw new RangeError('renewDeadline must be greater than 1.2 × retryPeriod');
  if (!(t.retryPeriodMs > 0)) throw new RangeError('retryPeriod must be positive');
}

export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private observed: StoredLease | undefined;
  /** Local time at which `observed` was last seen to change. */
  private observedTime = 0;
  private reportedLeader: string | undefined;
  /** Local time at which the last successful acquire or renew attempt started. */
  private confirmedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: LeaderElectorOptions) {
    this.leaseDurationMs = opts.leaseDurationMs ?? LEADER_ELECTION_DEFAULTS.leaseDurationMs;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? LEADER_ELECTION_DEFAULTS.renewDeadlineMs;
    this.retryPeriodMs = opts.retryPeriodMs ?? LEADER_ELECTION_DEFAULTS.retryPeriodMs;
    validateTimings({
      leaseDurationMs: this.leaseDurationMs,
      renewDeadlineMs: this.renewDeadlineMs,
      retryPeriodMs: this.retryPeriodMs,
    });
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
  }

  /** True while the last observed record names us as holder. */
  isLeader(): boolean {
    return this.observed?.spec.holderIdentity === this.opts.identity;
  }

  /**
   * True while we hold the lease by our own clock: the last successful renewal started less than
   * `renewDeadline` ago (the standby waits `leaseDuration`, longer, from when it saw that write).
   */
  holdsLease(): boolean {
    return this.isLeader() && this.clock.now() < this.confirmedAt + this.renewDeadlineMs;
  }

  /** The holder we last observed ('' when none). */
  leader(): string {
    return this.observed?.spec.holderIdentity ?? '';
  }

  /**
   * Campaigns until leadership is acquired, then renews until it is lost or `signal` aborts.
   * Resolves when election is over for this process; it never throws.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (!(await this.acquire(signal))) return;
    const leading = new AbortController();
    this.opts.onStartedLeading(leading.signal);
    await this.renew(signal);
    leading.abort();
    if (signal.aborted && (this.opts.releaseOnCancel ?? true)) await this.release();
    this.opts.onStoppedLeading();
  }

  /**
   * Gives the lease up (holder cleared, 1 s duration) so a standby takes over at its next
   * retry instead of waiting out the lease. Returns false if the write failed.
   *
   * Reads the lease first, as client-go's release does: a renewal cut off on shutdown may have
   * reached the API server without its answer reaching us, and an update with the
   * resourceVersion we last saw would then be refused (409), leaving the standby to wait out
   * the whole lease. Only a lease still naming us is cleared.
   */
  async release(): Promise<boolean> {
    if (!this.isLeader() || !this.observed) return true;
    try {
      return await this.withDeadline(this.renewDeadlineMs, async (signal) => {
        const current = await this.opts.lock.get(signal);
        if (!current || current.spec.holderIdentity !== this.opts.identity) return true;
        const now = microTime(this.clock.now());
        const record: LeaseRecord = {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: current.spec.leaseTransitions ?? 0,
        };
        this.setObserved(await this.opts.lock.update(current.resourceVersion, record, signal));
        return true;
      });
    } catch (err) {
      this.opts.onError?.(err);
      return false;
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if (await this.attempt(signal)) return true;
      // JitterUntil(retryPeriod, 1.2): wait between 1× and 2.2× the retry period.
      const wait = this.retryPeriodMs * (1 + 1.2 * this.random());
      if (!(await this.pause(wait, signal))) return false;
    }
    return false;
  }

  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const deadline = this.clock.now() + this.renewDeadlineMs;
      let renewed = false;
      for (;;) {
        renewed = await this.attempt(signal, deadline - this.clock.now());
        // Someone else holds it: we have lost, whatever the deadline says.
        if (renewed || signal.aborted || this.otherHolder()) break;
        if (this.clock.now() + this.retryPeriodMs >= deadline) break;
        if (!(await this.pause(this.retryPeriodMs, signal))) break;
      }
      if (!renewed) return;
      if (!(await this.pause(this.retryPeriodMs, signal))) return;
    }
  }

  /** One attempt whose API calls are cut off after `budgetMs` (default renewDeadline). */
  private attempt(signal: AbortSignal, budgetMs = this.renewDeadlineMs): Promise<boolean> {
    return this.withDeadline(budgetMs, (cutoff) => this.tryAcquireOrRenew(AbortSignal.any([signal, cutoff])));
  }

  /** Runs `fn` with a signal the elector's clock aborts after `budgetMs`. */
  private async withDeadline<T>(budgetMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const cutoff = new AbortController();
    const timer = this.clock.setTimer(() => cutoff.abort(new Error('lease request deadline')), budgetMs);
    try {
      return await fn(cutoff.signal);
    } finally {
      timer.cancel();
    }
  }

  private otherHolder(): boolean {
    const h = this.observed?.spec.holderIdentity;
    return !!h && h !== this.opts.identity;
  }

  /** Sleeps on the clock; false if `signal` aborted meanwhile. */
  private async pause(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await sleep(this.clock, ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** One acquire-or-renew attempt (client-go `tryAcquireOrRenew`). Never throws. */
  async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const record: LeaseRecord = {
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      // Fast path: we lead and our lease is still valid, so renew without a GET. A 409 means
      // someone wrote meanwhile; fall back to the full path.
      if (this.isLeader() && this.observed && this.observedTime + this.leaseDurationMs > now) {
        const prev = this.observed;
        try {
          const fast = {
            ...record,
            acquireTime: prev.spec.acquireTime,
            leaseTransitions: prev.spec.leaseTransitions,
          };
          this.setObserved(await this.opts.lock.update(prev.resourceVersion, fast, signal));
          this.confirmedAt = now;
          return true;
        } catch (err) {
          this.opts.onError?.(err);
        }
      }

      const current = await this.opts.lock.get(signal);
      if (!current) {
        this.setObserved(await this.opts.lock.create(record, signal));
        this.confirmedAt = now;
        return true;
      }
      if (!this.observed || this.observed.resourceVersion !== current.resourceVersion) {
        this.setObserved(current);
      }
      const holder = current.spec.holderIdentity ?? '';
      const durationMs = (current.spec.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
      if (holder !== '' && holder !== this.opts.identity && this.observedTime + durationMs > now) {
        return false; // held by someone else and not expired by our own clock
      }
      if (holder === this.opts.identity) {
        record.acquireTime = current.spec.acquireTime;
        record.leaseTransitions = current.spec.leaseTransitions ?? 0;
      } else {
        record.leaseTransitions = (current.spec.leaseTransitions ?? 0) + 1;
      }
      this.setObserved(await this.opts.lock.update(current.resourceVersion, record, signal));
      this.confirmedAt = now;
      return true;
    } catch (err) {
      // 409 (lost a race), timeouts, 5xx: all just mean "not this time".
      this.opts.onError?.(err);
      return false;
    }
  }

  private setObserved(lease: StoredLease): void {
    this.observed = lease;
    this.observedTime = this.clock.now();
    const holder = lease.spec.holderIdentity ?? '';
    if (holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      if (holder) this.opts.onNewLeader?.(holder);
    }
  }
}
