/**
 * Long-lived per-target resources (undici pools, grpc-js clients) that are closed after a period
 * without use, so connections are reused across probe periods but pods that went away do not
 * leak sockets. An entry in use is never closed under a caller (`acquire`/`release`).
 */
export class IdleCache<T> {
  private readonly entries = new Map<string, { value: T; lastUsed: number; inUse: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    private readonly dispose: (value: T) => Promise<void> | void,
  ) {
    this.sweeper = setInterval(() => void this.sweep(), Math.max(1000, Math.floor(idleMs / 2)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  async use<R>(key: string, create: () => T, fn: (value: T) => Promise<R>): Promise<R> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { value: create(), lastUsed: Date.now(), inUse: 0 };
      this.entries.set(key, entry);
    }
    entry.inUse++;
    try {
      return await fn(entry.value);
    } finally {
      entry.inUse--;
      entry.lastUsed = Date.now();
    }
  }

  /** Drops one entry (a broken channel) so the next use creates a fresh one. */
  async evict(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    await this.dispose(entry.value);
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      if (entry.inUse === 0 && now - entry.lastUsed >= this.idleMs) {
        this.entries.delete(key);
        await this.dispose(entry.value);
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const values = [...this.entries.values()].map((e) => e.value);
    this.entries.clear();
    await Promise.all(values.map((v) => this.dispose(v)));
  }
}
