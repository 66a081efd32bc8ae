/**
 * The reconcile engine: N workers pull keys from a `WorkQueue` and turn each reconcile's
 * outcome into queue actions, as controller-runtime's `reconcileHandler` does:
 *
 * | outcome                         | queue action                       |
 * |---------------------------------|------------------------------------|
 * | throws `TerminalError`          | forget; `addAfter` its revisit, if any |
 * | throws anything else / times out| `addRateLimited` (per-key backoff) |
 * | `{ requeueAfterMs > 0 }`        | forget, then `addAfter` (priority) |
 * | success                         | forget                             |
 *
 * Reconcilers choose the row by error class (errors.ts `classifyError`): stalling errors become
 * `TerminalError` (with a revisit when the probes are due), waiting ones a `requeueAfterMs`
 * when the probes are due, transient ones are rethrown.
 *
 * A key is never reconciled by two workers at once (the queue guarantees it). Reconcile is
 * level-based: it gets only the key and reads current state itself.
 */
import { setMaxListeners } from 'node:events';
import { realClock, type Clock } from './clock.js';
import { ApiError, isTerminalError } from './errors.js';
import { WorkQueue, type Priority } from './workqueue.js';

export interface ReconcileResult {
  /** Reconcile again after this long even if nothing changes (periodic reprobe). */
  requeueAfterMs?: number;
  /**
   * The queue priority of that requeue (workqueue.ts): `low` for a routine revisit, which
   * waits behind events and urgent requeues when workers are busy. Default `high`.
   */
  priority?: Priority;
}

/**
 * Reconciles one `namespace/name` key. `signal` aborts when the per-reconcile timeout passes
 * or the controller stops; pass it to every I/O call.
 */
export type Reconciler = (key: string, signal: AbortSignal) => Promise<ReconcileResult | void>;

export type ReconcileOutcome = 'success' | 'requeue_after' | 'error' | 'terminal_error';

/** Metrics and logging hooks; prom-client and pino wiring live outside this module. */
export interface ControllerObserver {
  reconcileDone(outcome: ReconcileOutcome, seconds: number, key: string): void;
  /** Errors, terminal ones included, so the caller can log them with the key. */
  reconcileError?(key: string, error: unknown, terminal: boolean): void;
  queueDepth(depth: number): void;
  /** Seconds a key waited in the queue after becoming ready, by the priority it was handed out at. */
  queueLatency(seconds: number, priority: Priority): void;
}

export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  /** Concurrent reconciles (distinct keys); default 1 like controller-runtime. */
  workers?: number;
  /** Per-reconcile timeout; the signal aborts after it (default 60 s). */
  timeoutMs?: number;
  /** Per-key backoff cap (default 5 min); base is 5 ms. */
  maxBackoffMs?: number;
  baseBackoffMs?: number;
  observer?: ControllerObserver;
  clock?: Clock;
}

/** Raised into the signal when a reconcile runs past its timeout. */
export class ReconcileTimeoutError extends Error {
  override readonly name = 'ReconcileTimeoutError';
}

export class Controller {
  readonly queue: WorkQueue;
  private readonly workers: number;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private running: Promise<void>[] = [];
  private readonly stopSignal = new AbortController();

  constructor(private readonly opts: ControllerOptions) {
    this.clock = opts.clock ?? realClock;
    this.workers = opts.workers ?? 1;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    // One listener per reconcile in flight (up to `workers`).
    setMaxListeners(0, this.stopSignal.signal);
    this.queue = new WorkQueue({
      clock: this.clock,
      baseDelayMs: opts.baseBackoffMs,
      maxDelayMs: opts.maxBackoffMs,
      onDepth: (n) => opts.observer?.queueDepth(n),
      onLatency: (s, priority) => opts.observer?.queueLatency(s, priority),
    });
  }

  /** Enqueues a key; safe to call from informer handlers (synchronous, never throws). */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  enqueueAfter(key: string, delayMs: number): void {
    this.queue.addAfter(key, delayMs);
  }

  /** Starts the workers. Enqueueing before `start()` is fine; keys wait. */
  start(): void {
    if (this.running.length > 0) return;
    for (let i = 0; i < this.workers; i++) this.running.push(this.worker());
  }

  /**
   * Stops taking work and resolves when in-flight reconciles finish. With `abortAfterMs`,
   * in-flight reconciles see their signal abort after that long.
   */
  async stop(opts: { abortAfterMs?: number } = {}): Promise<void> {
    const timer =
      opts.abortAfterMs !== undefined
        ? this.clock.setTimer(
            () => this.stopSignal.abort(new Error('controller stopping')),
            opts.abortAfterMs,
          )
        : undefined;
    await this.queue.shutdown();
    await Promise.all(this.running);
    timer?.cancel();
  }

  private async worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.processOne(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** Runs one reconcile and applies the result to the queue. Never throws. */
  async processOne(key: string): Promise<ReconcileOutcome> {
    const obs = this.opts.observer;
    const started = performance.now();
    const ac = new AbortController();
    // Every probe, card fetch and capability call of the reconcile listens on this signal (and
    // removes its listener when done): dozens at once is the design, not a leak, so Node's
    // 10-listener warning would only print noise to stderr.
    setMaxListeners(0, ac.signal);
    const timer = this.clock.setTimer(
      () => ac.abort(new ReconcileTimeoutError(`reconcile of ${key} exceeded ${this.timeoutMs} ms`)),
      this.timeoutMs,
    );
    // Not AbortSignal.any([ac.signal, stop]): on Node 20 a signal composed with the long-lived
    // stop signal stays reachable from it, one per reconcile, for the life of the process.
    const stop = this.stopSignal.signal;
    const onStop = () => ac.abort(stop.reason);
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, { once: true });
    const signal = ac.signal;
    let outcome: ReconcileOutcome;
    try {
      // Promise.resolve().then(...) also catches a synchronous throw from reconcile.
      const result = await Promise.resolve().then(() => this.opts.reconcile(key, signal));
      const after = result?.requeueAfterMs ?? 0;
      this.queue.forget(key);
      if (after > 0) {
        this.queue.addAfter(key, after, result?.priority);
        outcome = 'requeue_after';
      } else {
        outcome = 'success';
      }
    } catch (err) {
      const terminal = isTerminalError(err);
      if (terminal) {
        this.queue.forget(key);
        if (err.revisit && err.revisit.afterMs > 0)
          this.queue.addAfter(key, err.revisit.afterMs, err.revisit.priority);
        outcome = 'terminal_error';
      } else {
        this.queue.addRateLimited(key);
        outcome = 'error';
      }
      obs?.reconcileError?.(
        key,
        loggableError(signal.aborted && !terminal ? (signal.reason ?? err) : err),
        terminal,
      );
    } finally {
      timer.cancel();
      stop.removeEventListener('abort', onStop);
    }
    obs?.reconcileDone(outcome, (performance.now() - started) / 1000, key);
    return outcome;
  }
}

/**
 * What of a reconcile error may reach a log: errors this code base composes (API server
 * answers, terminal errors, timeouts, and domain errors, which carry a stable string `reason`)
 * as they are; anything else (undici, grpc-js, Node) only by its name and code, because such a
 * message may quote the request it failed on, headers included.
 */
export function loggableError(err: unknown): Error {
  if (err instanceof ApiError || isTerminalError(err) || err instanceof ReconcileTimeoutError) return err;
  if (err instanceof Error && typeof (err as { reason?: unknown }).reason === 'string') return err;
  let code: string | undefined;
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null && code === undefined; depth++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(c)) code = c;
    e = (e as { cause?: unknown }).cause;
  }
  const name = err instanceof Error && /^[A-Za-z0-9_]{1,64}$/.test(err.name) ? err.name : typeof err;
  return new Error(`${name}${code ? ` (${code})` : ''}: message withheld (it may quote request metadata)`);
}

/** `namespace/name` (or `name` for cluster-scoped objects), the queue key format. */
export function keyOf(obj: { metadata?: { namespace?: string; name?: string } }): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
