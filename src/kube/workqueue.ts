/**
 * A keyed work queue with client-go semantics (`util/workqueue` queue.go, delaying_queue.go,
 * default_rate_limiters.go), plus two rules of controller-runtime's priority queue: an immediate
 * add wins over a pending delayed one, and ready keys are handed out by priority.
 *
 * Priority: `high` (the default: events, retries, a revisit that confirms a failure or can bring
 * a withdrawn pod back) before `low` (routine revisits); first in, first out within each. When
 * workers cannot keep up, routine revisits wait and stretch the period while the reconciles that
 * change what is routed do not queue behind them. A key queued at both priorities is queued
 * once, at `high`.
 *
 * Guarantees:
 * - a key is queued at most once (the `dirty` set collapses bursts into one reconcile);
 * - a key is never handed to two workers at once: adding a key that is being processed only
 *   marks it dirty, and `done()` queues it again;
 * - `addAfter` keeps the earliest ready time for a key already waiting;
 * - per-key exponential backoff (`addRateLimited`), reset by `forget`;
 * - after `shutdown()` no key is handed out; the returned promise resolves once every key
 *   handed out before has been marked `done`.
 */
import TinyQueue from 'tinyqueue';
import { realClock, type Clock, type TimerHandle } from './clock.js';

export type Priority = 'high' | 'low';

/** A key waiting for its time; `seq` orders keys due at the same millisecond first come, first out. */
interface Waiting {
  key: string;
  at: number;
  priority: Priority;
  seq: number;
}

const byTime = (a: Waiting, b: Waiting): number => a.at - b.at || a.seq - b.seq;

export interface WorkQueueOptions {
  /** First retry delay (default 5 ms); doubles per consecutive failure of a key. */
  baseDelayMs?: number;
  /** Cap on the per-key retry delay (default 5 min). */
  maxDelayMs?: number;
  clock?: Clock;
  /** Called with the number of queued (ready) keys whenever it changes. */
  onDepth?: (depth: number) => void;
  /** Called on every hand-out with the seconds the key waited since it became ready, and its priority. */
  onLatency?: (seconds: number, priority: Priority) => void;
}

export class WorkQueue {
  private readonly high: string[] = [];
  private readonly low: string[] = [];
  private readonly dirty = new Set<string>();
  /** Dirty keys (queued, or to be queued when their run ends) at `low`; the rest are `high`. */
  private readonly lowKeys = new Set<string>();
  private readonly processing = new Set<string>();
  /** When each queued key became ready, for the latency metric. */
  private readonly readySince = new Map<string, number>();
  /**
   * Delayed keys: the map holds each key's one live entry, the heap orders entries by time.
   * A steady fleet keeps every agent's revisit here, so finding the next one is a heap peek,
   * not a scan of all of them per add and per timer. An entry the map no longer holds (the key
   * was added now, or moved earlier) is stale and dropped when it reaches the top.
   */
  private readonly waiting = new Map<string, Waiting>();
  private byTime = new TinyQueue<Waiting>([], byTime);
  private seq = 0;
  private readonly failures = new Map<string, number>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private timer: TimerHandle | undefined;
  private timerAt = Infinity;
  private stopping = false;
  private drained: (() => void) | undefined;
  private readonly clock: Clock;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly opts: WorkQueueOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 5 * 60_000;
  }

  /**
   * Queues `key` now (deferred if it is being processed). A key already queued stays queued
   * once, raised to `high` if this add is.
   */
  add(key: string, priority: Priority = 'high'): void {
    if (this.stopping) return;
    // An immediate add supersedes a pending delayed one: the reconcile it would have
    // triggered happens now, and reconcile re-declares any requeue it still wants.
    const delayed = this.waiting.get(key);
    if (delayed?.priority === 'high') priority = 'high';
    this.waiting.delete(key);
    if (this.dirty.has(key)) {
      if (priority === 'high' && this.lowKeys.delete(key) && !this.processing.has(key)) {
        this.low.splice(this.low.indexOf(key), 1);
        this.high.push(key);
      }
      return;
    }
    this.dirty.add(key);
    if (priority === 'low') this.lowKeys.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /**
   * Queues `key` after `delayMs`; if it already waits, the earlier time wins, at the higher of
   * the two priorities.
   */
  addAfter(key: string, delayMs: number, priority: Priority = 'high'): void {
    if (this.stopping) return;
    if (delayMs <= 0) return this.add(key, priority);
    // Already queued (or re-queued once its in-flight run ends): sooner than any delay.
    if (this.dirty.has(key)) return;
    const at = this.clock.now() + delayMs;
    const prev = this.waiting.get(key);
    if (prev?.priority === 'high') priority = 'high';
    if (prev !== undefined && prev.at <= at) {
      prev.priority = priority;
      return;
    }
    const entry = { key, at, priority, seq: this.seq++ };
    this.waiting.set(key, entry);
    this.byTime.push(entry);
    this.schedule();
  }

  /** Queues `key` after its per-key backoff, and counts one more failure. */
  addRateLimited(key: string): void {
    this.addAfter(key, this.when(key));
  }

  /** The backoff for the next retry of `key`: base × 2^failures, capped. Counts a failure. */
  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** n);
  }

  /** Clears the failure count of `key` (after a success or a deliberate requeue). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Ready keys (not counting delayed or in-flight ones). */
  len(): number {
    return this.high.length + this.low.length;
  }

  /** Keys delayed by `addAfter`/`addRateLimited`. */
  waitingCount(): number {
    return this.waiting.size;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /**
   * The next key to process, marked in flight; the caller must call `done(key)`. Resolves
   * `undefined` once the queue shuts down.
   */
  get(): Promise<string | undefined> {
    if (this.stopping) return Promise.resolve(undefined);
    const key = this.take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks `key` finished; if it was re-added meanwhile, queues it again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.stopping) this.push(key);
    if (this.stopping && this.processing.size === 0) this.drained?.();
  }

  /** Stops handing out keys and resolves when every in-flight key is done. */
  shutdown(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.timer?.cancel();
      this.timer = undefined;
      this.waiting.clear();
      this.byTime = new TinyQueue<Waiting>([], byTime);
      for (const g of this.getters.splice(0)) g(undefined);
    }
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const prev = this.drained;
      this.drained = () => {
        prev?.();
        resolve();
      };
    });
  }

  private push(key: string): void {
    this.readySince.set(key, this.clock.now());
    const getter = this.getters.shift();
    if (getter) {
      getter(this.handOut(key));
      return;
    }
    (this.lowKeys.has(key) ? this.low : this.high).push(key);
    this.opts.onDepth?.(this.len());
  }

  private take(): string | undefined {
    const key = this.high.shift() ?? this.low.shift();
    if (key === undefined) return undefined;
    this.opts.onDepth?.(this.len());
    return this.handOut(key);
  }

  private handOut(key: string): string {
    this.processing.add(key);
    this.dirty.delete(key);
    const priority: Priority = this.lowKeys.delete(key) ? 'low' : 'high';
    const since = this.readySince.get(key);
    this.readySince.delete(key);
    if (since !== undefined) this.opts.onLatency?.((this.clock.now() - since) / 1000, priority);
    return key;
  }

  /** The earliest live waiting entry, stale ones dropped on the way. */
  private earliest(): Waiting | undefined {
    let top = this.byTime.peek();
    while (top !== undefined && this.waiting.get(top.key) !== top) {
      this.byTime.pop();
      top = this.byTime.peek();
    }
    // Stale entries of keys added now or moved earlier sink out only when their time comes; an
    // event storm over a fleet with long delays could pile them up: rebuild from the live ones.
    if (this.byTime.length > 2 * this.waiting.size + 64) {
      this.byTime = new TinyQueue([...this.waiting.values()], byTime);
      top = this.byTime.peek();
    }
    return top;
  }

  /** Keeps one timer armed for the earliest waiting key. */
  private schedule(): void {
    const earliest = this.earliest()?.at ?? Infinity;
    if (earliest === this.timerAt && this.timer) return;
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = earliest;
    if (earliest === Infinity) return;
    this.timer = this.clock.setTimer(() => this.fire(), earliest - this.clock.now());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    for (let e = this.earliest(); e !== undefined && e.at <= now; e = this.earliest()) {
      this.byTime.pop();
      this.waiting.delete(e.key);
      this.add(e.key, e.priority);
    }
    this.schedule();
  }
}
