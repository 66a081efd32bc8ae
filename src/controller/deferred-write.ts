import { realClock, type Clock, type TimerHandle } from '../kube/clock.js';

/**
 * A write that starts only if it is still wanted after a grace period: a first visit's
 * InProgress status (Reconciling=True) is worth an API write when the visit takes a while, and
 * is superseded by the verdict when it does not (issue 15: one status write per quick first
 * visit instead of two; the A2AAgent status apply is the API server's costliest request).
 */
export class DeferredWrite {
  private timer: TimerHandle | undefined;
  private started: Promise<void> | undefined;

  /** `graceMs <= 0` starts the write now. */
  constructor(
    private readonly write: () => Promise<void>,
    graceMs: number,
    clock: Clock = realClock,
  ) {
    if (graceMs <= 0) this.start();
    else this.timer = clock.setTimer(() => this.start(), graceMs);
  }

  /** Whether the write was started (by the grace running out). */
  get wasStarted(): boolean {
    return this.started !== undefined;
  }

  /**
   * No write from now on if none started; otherwise the started one, awaited (its rejection is
   * the caller's). The visit calls this once it has its verdict.
   */
  settle(): Promise<void> {
    this.cancel();
    return this.started ?? Promise.resolve();
  }

  /** Drops a write not started yet (the visit ended, or threw, before its grace ran out). */
  cancel(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private start(): void {
    this.timer = undefined;
    this.started = this.write();
    // Awaited by settle(); until then a rejection is not unhandled.
    this.started.catch(() => undefined);
  }
}
