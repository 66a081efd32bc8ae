// A manual clock for the src/kube unit tests: timers fire only when a test advances time.
import type { Clock, TimerHandle } from '../../src/kube/clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward without firing timers: what a process paused meanwhile (SIGSTOP) sees first. */
  jump(ms: number): void {
    this.t += ms;
  }

  /** Moves time forward by `ms`, firing due timers in order and letting promises settle. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      const next = this.timers
        .filter((t) => !t.cancelled && t.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.t = Math.max(this.t, next.at);
      next.cancelled = true;
      next.fn();
    }
    this.t = end;
    this.timers = this.timers.filter((t) => !t.cancelled);
    await flush();
  }
}

/** Lets every ready promise continuation run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}
