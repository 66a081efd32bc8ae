/**
 * The HTTP connections to one origin (pod address, port, TLS): undici Clients of one connection
 * each, one per request in flight, reused across probes.
 *
 * Why not undici's Pool: every Pool allocates a 2,048-slot request queue up front (16 KiB), and
 * a fleet of 1,000 agents x 3 pods is 3,000 origins: 47 MiB of empty queues, a third of the
 * operator's live heap (heap snapshot, docs/benchmarks.md). The prober never needs that queue:
 * its own limits cap the requests in flight, and a request never waits here behind another one
 * (its timeout starts before it is sent, and one interface's slow answer must not time out
 * another interface on the same port), so a lease always gets a Client of its own.
 *
 * A Client whose connection closed (keep-alive timeout, pod restart) holds no socket but keeps
 * its objects; one found idle and unconnected is closed and dropped, so an origin keeps about as
 * many Clients as it has connections, not as many as its busiest moment had.
 */
import { errors, type Client } from 'undici';

/**
 * The reason a pruned Client is destroyed with. Made once: undici otherwise builds a new
 * ClientDestroyedError, stack trace and all, for each (36 ms in 10 s of a 100-agent steady
 * state, 2 % of the operator's busy time); a pruned Client has no request it could fail.
 */
const PRUNED = new errors.ClientDestroyedError();

interface Slot {
  client: Client;
  /** Leases holding this Client: 0 or 1 while the origin has fewer than `max` Clients; more only past it. */
  leases: number;
}

export class OriginClients {
  private slots: Slot[] = [];

  constructor(
    private readonly create: () => Client,
    /** Clients at most; past it a lease shares the least-used one (the prober's limits stay below). */
    private readonly max: number,
  ) {}

  /** Runs `fn` with a Client no other lease is using; the Client is released when `fn` settles. */
  async use<R>(fn: (client: Client) => Promise<R>): Promise<R> {
    const slot = this.acquire();
    slot.leases++;
    try {
      return await fn(slot.client);
    } finally {
      slot.leases--;
    }
  }

  /** Clients held (connected or not). */
  get size(): number {
    return this.slots.length;
  }

  private acquire(): Slot {
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i]!;
      if (slot.leases > 0) continue;
      const stats = slot.client.stats;
      if (stats.size > 0) continue; // a request ending on its own (cut by a deadline)
      if (stats.connected) return slot;
      // Unused and unconnected: nothing to reuse but its objects; a fresh one costs the same.
      if (!slot.client.destroyed) void slot.client.destroy(PRUNED).catch(() => undefined);
      this.slots.splice(i--, 1);
    }
    if (this.slots.length < this.max) {
      const slot = { client: this.create(), leases: 0 };
      this.slots.push(slot);
      return slot;
    }
    return this.slots.reduce((a, b) => (b.leases < a.leases ? b : a));
  }

  async destroy(): Promise<void> {
    const clients = this.slots.map((s) => s.client);
    this.slots = [];
    await Promise.all(clients.map((c) => c.destroy().catch(() => undefined)));
  }
}
