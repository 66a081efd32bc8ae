/**
 * At most `limit` holders at once; the rest wait in FIFO order. A released slot passes straight
 * to the first waiter, so no caller arriving meanwhile can take it and run one over the limit.
 * `acquire` answers synchronously when a slot is free: the probes' fast path awaits nothing.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`concurrency limit must be >= 1, got ${limit}`);
  }

  /** Takes a slot: undefined when it is taken now, else a promise of the slot. Pair with release(). */
  acquire(): Promise<void> | undefined {
    if (this.active < this.limit) {
      this.active++;
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  /** Slots held (never above the limit). */
  get running(): number {
    return this.active;
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

  /** Takes one of `key`'s slots, as ConcurrencyLimit.acquire; pair with release(key). */
  acquire(key: string): Promise<void> | undefined {
    let entry = this.limits.get(key);
    if (!entry) {
      entry = { limit: new ConcurrencyLimit(this.perKey), users: 0 };
      this.limits.set(key, entry);
    }
    entry.users++;
    return entry.limit.acquire();
  }

  release(key: string): void {
    const entry = this.limits.get(key);
    if (!entry) throw new Error(`KeyedConcurrencyLimit: release of ${key}, which holds no slot`);
    entry.limit.release();
    if (--entry.users === 0) this.limits.delete(key);
  }

  /** Keys with work running or waiting. */
  get size(): number {
    return this.limits.size;
  }
}
