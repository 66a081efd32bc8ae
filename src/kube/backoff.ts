/**
 * Exponential backoff with full-range jitter for restart loops (watch errors). Jitter spreads
 * the reconnects of many informers (and many operator replicas) after an API server restart.
 */
export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Fraction of the delay that is randomised, 0..1 (default 0.5: delay × [0.5, 1]). */
  jitter?: number;
  random?: () => number;
}

export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(opts: BackoffOptions = {}) {
    this.initialMs = opts.initialMs ?? 500;
    this.maxMs = opts.maxMs ?? 30_000;
    this.jitter = opts.jitter ?? 0.5;
    this.random = opts.random ?? Math.random;
  }

  /** The next delay; each call doubles the base until the cap. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    if (base < this.maxMs) this.attempt++;
    return Math.round(base * (1 - this.jitter * this.random()));
  }

  reset(): void {
    this.attempt = 0;
  }
}
