/**
 * Time as a dependency. The queue, the informer's watchdog and leader election all make
 * decisions from elapsed time; injecting the clock lets unit tests drive those decisions
 * deterministically instead of sleeping.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch (wall clock is fine: only differences are used). */
  now(): number;
  /** Runs `fn` after `ms`; the handle cancels it. Timers never keep the process alive. */
  setTimer(fn: () => void, ms: number): TimerHandle;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    // A pending requeue or watchdog must not block process exit on its own.
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * Resolves after `ms` on `clock`, or rejects with the signal's reason when `signal` aborts
 * first. Used by the retry loops so shutdown interrupts their waits at once.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** metav1.MicroTime (Lease and Event times): RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
