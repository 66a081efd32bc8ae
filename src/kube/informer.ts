/**
 * A supervised list-watch cache for one resource path (client-go's reflector + indexer, in
 * small). It LISTs, then WATCHes from the list's resourceVersion with bookmarks on, and keeps
 * itself alive:
 *
 * - 410 Gone (HTTP status or an ERROR event with code 410) → relist; the relist synthesises
 *   deletes for vanished objects and updates only where resourceVersion changed;
 * - any other failure → restart after jittered exponential backoff (0.5 s → 30 s);
 * - no event at all (bookmarks included) for `watchdogMs` → abort and re-watch: a half-open
 *   connection otherwise stalls the cache forever, and client-node 1.4.0 has no effective
 *   client-side watch timeout;
 * - each watch asks the server to close it after a randomised 5–10 min (`timeoutSeconds`),
 *   so connections are recycled cleanly and not all at once.
 *
 * Handlers run synchronously, in event order, after the cache is updated, and should only
 * enqueue keys. `managedFields` are stripped from cached objects.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Backoff } from './backoff.js';
import type { KubeClient, QueryValue } from './client.js';
import { realClock, sleep, type Clock, type TimerHandle } from './clock.js';
import { isGone } from './errors.js';
import type { LabelSelector } from './selector.js';
import { Store, type Change, type IndexFn } from './store.js';
import {
  clientList,
  clientNodeWatch,
  watchErrorStatus,
  type ListFn,
  type WatchFn,
  type WatchHandle,
} from './watch-source.js';

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export type WatchEndReason = 'closed' | 'error' | 'gone' | 'watchdog';

/** Counters for metrics (restarts by reason, relists, errors). */
export interface InformerObserver {
  watchEnded?(reason: WatchEndReason): void;
  relisted?(): void;
  error?(err: unknown): void;
}

export interface InformerOptions<T extends KubernetesObject> {
  /** Collection path: `/api/v1/pods`, `/api/v1/namespaces/ns/pods`, `/apis/g/v/plural`. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Needed unless both `list` and `watch` are given. */
  client?: KubeClient;
  list?: ListFn<T>;
  watch?: WatchFn;
  /** Restart a watch that delivered nothing for this long (default 5 min). */
  watchdogMs?: number;
  /** Server-side watch timeout range in seconds (default [300, 600]). */
  watchTimeoutSeconds?: [number, number];
  backoff?: Backoff;
  /** One secondary index of the cache (`byIndex`), e.g. by owning object. */
  index?: IndexFn<T>;
  /** Applied to every object before caching; default strips `metadata.managedFields`. */
  transform?: (obj: T) => T;
  observer?: InformerObserver;
  clock?: Clock;
  random?: () => number;
}

export interface InformerStats {
  lists: number;
  watches: number;
  relists: number;
  restarts: Record<WatchEndReason, number>;
  errors: number;
}

type WatchEnd = { reason: WatchEndReason | 'stopped'; err?: unknown; healthy: boolean };

export function stripManagedFields<T extends KubernetesObject>(obj: T): T {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
}

export class Informer<T extends KubernetesObject> {
  readonly stats: InformerStats = {
    lists: 0,
    watches: 0,
    relists: 0,
    restarts: { closed: 0, error: 0, gone: 0, watchdog: 0 },
    errors: 0,
  };
  private readonly store: Store<T>;
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly listFn: ListFn<T>;
  private readonly watchFn: WatchFn;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: Backoff;
  private readonly transform: (obj: T) => T;
  private rv: string | undefined;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private readonly stopper = new AbortController();
  private stopCurrentWatch: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: InformerOptions<T>) {
    if (!opts.list || !opts.watch) {
      if (!opts.client) throw new Error('Informer needs a client, or both list and watch');
    }
    this.listFn = opts.list ?? clientList<T>(opts.client!);
    this.watchFn = opts.watch ?? clientNodeWatch(opts.client!.kc);
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
    this.backoff = opts.backoff ?? new Backoff({ random: this.random });
    this.transform = opts.transform ?? stripManagedFields;
    this.store = new Store<T>(opts.index);
  }

  addHandlers(h: InformerHandlers<T>): void {
    this.handlers.push(h);
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops the watch and waits for the supervision loop to exit. */
  async stop(): Promise<void> {
    this.stopper.abort();
    this.stopCurrentWatch?.();
    for (const w of this.syncWaiters.splice(0)) w();
    await this.loop;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves after the first successful LIST (or when the informer stops). */
  waitForSync(): Promise<void> {
    if (this.synced || this.stopper.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(namespace: string, name: string): T | undefined {
    return this.store.get(namespace, name);
  }

  list(namespace?: string): T[] {
    return this.store.list(namespace);
  }

  /** Cached objects whose index value (options.index) is `value`. */
  byIndex(value: string): T[] {
    return this.store.byIndex(value);
  }

  /** Cached objects of `namespace` whose labels match `selector`. */
  select(namespace: string, selector: LabelSelector | undefined): T[] {
    return this.store.select(namespace, selector);
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  get resourceVersion(): string | undefined {
    return this.rv;
  }

  private async run(): Promise<void> {
    const stop = this.stopper.signal;
    while (!stop.aborted) {
      try {
        if (this.rv === undefined) await this.relist();
        const end = await this.watchOnce();
        if (end.reason === 'stopped') break;
        this.stats.restarts[end.reason]++;
        this.opts.observer?.watchEnded?.(end.reason);
        if (end.reason === 'gone') {
          this.rv = undefined;
          continue;
        }
        if (end.reason === 'error') this.reportError(end.err);
        if (end.healthy) {
          this.backoff.reset();
          if (end.reason !== 'error') continue;
        }
        await sleep(this.clock, this.backoff.next(), stop);
      } catch (err) {
        if (stop.aborted) break;
        if (isGone(err)) {
          // A paginated list outlived its continue token: start the list over.
          this.rv = undefined;
          continue;
        }
        this.reportError(err);
        await sleep(this.clock, this.backoff.next(), stop).catch(() => undefined);
      }
    }
  }

  private reportError(err: unknown): void {
    this.stats.errors++;
    this.opts.observer?.error?.(err);
  }

  private query(): Record<string, QueryValue> {
    return { labelSelector: this.opts.labelSelector, fieldSelector: this.opts.fieldSelector };
  }

  private async relist(): Promise<void> {
    const res = await this.listFn(this.opts.path, this.query(), this.stopper.signal);
    this.stats.lists++;
    if (this.synced) {
      this.stats.relists++;
      this.opts.observer?.relisted?.();
    }
    const changes = this.store.replace(res.items.map((o) => this.transform(o)));
    this.rv = res.resourceVersion;
    for (const c of changes) this.dispatch(c);
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  /** Runs one watch until it ends; never rejects. */
  private watchOnce(): Promise<WatchEnd> {
    const [lo, hi] = this.opts.watchTimeoutSeconds ?? [300, 600];
    const watchdogMs = this.opts.watchdogMs ?? 5 * 60_000;
    const startedAt = this.clock.now();
    this.stats.watches++;
    return new Promise<WatchEnd>((resolve) => {
      let finished = false;
      let events = 0;
      let handle: WatchHandle | undefined;
      let watchdog: TimerHandle | undefined;
      const finish = (reason: WatchEnd['reason'], err?: unknown): void => {
        if (finished) return;
        finished = true;
        watchdog?.cancel();
        this.stopCurrentWatch = undefined;
        handle?.abort();
        // A watch that lived a while or delivered events was a working connection; a clean
        // close right after connecting counts as unhealthy, so a server that accepts and
        // drops watches does not make us spin.
        const healthy = events > 0 || this.clock.now() - startedAt >= 1000;
        resolve({ reason, err, healthy });
      };
      const arm = (): void => {
        watchdog?.cancel();
        watchdog = this.clock.setTimer(() => finish('watchdog'), watchdogMs);
      };
      this.stopCurrentWatch = () => finish('stopped');
      arm();
      const query = {
        ...this.query(),
        resourceVersion: this.rv,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.round(lo + (hi - lo) * this.random()),
      };
      const onEvent = (type: string, object: unknown): void => {
        if (finished) return;
        events++;
        arm();
        const end = this.handleEvent(type, object);
        if (end) finish(end.reason, end.err);
      };
      const onDone = (err: unknown): void => {
        if (!err) return finish('closed');
        finish(watchErrorStatus(err) === 410 ? 'gone' : 'error', err);
      };
      // If the connect itself hangs, the watchdog resolves this attempt; the late handle is
      // aborted as soon as it arrives (client-node's Watch takes no abort signal).
      this.watchFn(this.opts.path, query, onEvent, onDone).then(
        (h) => {
          handle = h;
          if (finished) h.abort();
        },
        (err: unknown) => finish(watchErrorStatus(err) === 410 ? 'gone' : 'error', err),
      );
    });
  }

  private handleEvent(type: string, object: unknown): { reason: WatchEndReason; err?: unknown } | undefined {
    if (type === 'ERROR') {
      const status = object as { code?: number; reason?: string; message?: string } | undefined;
      if (status?.code === 410) return { reason: 'gone' };
      return {
        reason: 'error',
        err: new WatchEventError(status?.code ?? 0, status?.reason ?? '', status?.message ?? ''),
      };
    }
    const obj = object as T;
    const rv = obj?.metadata?.resourceVersion;
    if (type === 'BOOKMARK') {
      if (rv) this.rv = rv;
      return undefined;
    }
    if (type === 'ADDED' || type === 'MODIFIED') {
      this.dispatch(this.store.upsert(this.transform(obj)));
    } else if (type === 'DELETED') {
      const c = this.store.remove(obj);
      if (c) this.dispatch(c);
    } else {
      return undefined; // unknown event type: ignore, like client-go
    }
    if (rv) this.rv = rv;
    return undefined;
  }

  private dispatch(c: Change<T>): void {
    for (const h of this.handlers) {
      try {
        if (c.type === 'add') h.onAdd?.(c.obj);
        else if (c.type === 'update') h.onUpdate?.(c.old, c.obj);
        else h.onDelete?.(c.obj);
      } catch (err) {
        // A throwing handler must not break the cache for every other handler.
        this.reportError(err);
      }
    }
  }
}

/** A watch ERROR event other than 410 (the server ends the stream after it). */
export class WatchEventError extends Error {
  override readonly name = 'WatchEventError';
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message || `watch error event ${code} ${reason}`);
  }
}
