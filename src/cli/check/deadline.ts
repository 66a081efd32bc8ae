/**
 * The clock of `check --deadline`: probes race it, and what has not finished when it passes is
 * reported by the caller (as Timeout) instead of being waited for.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The time left, and a promise that settles when none is. */
export class Deadline {
  private readonly at: number;
  private timer: NodeJS.Timeout | undefined;
  private expired = false;
  readonly passed: Promise<void>;

  constructor(readonly ms: number) {
    this.at = Date.now() + ms;
    this.passed = new Promise((resolve) => {
      // setTimeout fires at once past 2^31-1 ms; a deadline that long is no deadline anyway.
      this.timer = setTimeout(
        () => {
          this.expired = true;
          resolve();
        },
        Math.min(ms, MAX_TIMER_MS),
      );
    });
  }

  get remainingMs(): number {
    // Timers run on the monotonic clock and Date.now() on the wall clock: the timer can fire
    // while the wall clock is still a millisecond short of `at`. Once `passed` resolved, none
    // is left, whatever the wall clock says.
    if (this.expired) return 0;
    return Math.max(0, this.at - Date.now());
  }

  get notAfter(): number {
    return this.at;
  }

  /** `work`'s value, or `late()`'s when the deadline passes first. */
  race<T, L>(work: Promise<T>, late: () => L): Promise<T | L> {
    return Promise.race([work, this.passed.then(late)]);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
