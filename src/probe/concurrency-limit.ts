/** At most `limit` tasks at once; the rest wait in FIFO order. */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`concurrency limit must be >= 1, got ${limit}`);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/**
 * A `ConcurrencyLimit` per key (an agent), created on first use and dropped when idle, so one
 * key's backlog waits in its own queue and never in front of another key's work.
 */
export class KeyedConcurrencyLimit {
  private readonly limits = new Map<string, { limit: ConcurrencyLimit; users: number }>();

  constructor(private readonly perKey: number) {
    if (!(perKey >= 1)) throw new RangeError(`per-key concurrency limit must be >= 1, got ${perKey}`);
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let entry = this.limits.get(key);
    if (!entry) {
      entry = { limit: new ConcurrencyLimit(this.perKey), users: 0 };
      this.limits.set(key, entry);
    }
    entry.users++;
    try {
      return await entry.limit.run(task);
    } finally {
      if (--entry.users === 0) this.limits.delete(key);
    }
  }

  /** Keys with work running or waiting. */
  get size(): number {
    return this.limits.size;
  }
}
