/**
 * The benchmark's own view of the cluster: a watch of one resource kept as a map of objects,
 * restarted when the stream ends (from the last resourceVersion, or afresh after 410), with
 * waiters that resolve at the instant (performance.now(), in this process) the first event
 * making their predicate true arrived. It is independent of the operator's caches, so what it
 * sees is what any client of the API server would see.
 *
 * Objects are also indexed by a group (an agent: its own name, or its slices' Service), so a
 * predicate over thousands of agents is evaluated for the one group an event touched, not over
 * the whole map: at 1,000 agents a whole-map predicate per EndpointSlice event kept this
 * process busy for minutes and delayed every arrival time it recorded (and took a core from the
 * operator it measures).
 */
import { Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';

interface Waiter<T> {
  pred: (objects: ReadonlyMap<string, T>) => boolean;
  resolve: (at: number) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** Waits until `pred` holds for every group of `groups` at once; re-evaluated per touched group. */
interface GroupWaiter<T> {
  groups: ReadonlySet<string>;
  pred: (group: string, objects: ReadonlyMap<string, T>) => boolean;
  holding: Set<string>;
  resolve: (at: number) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class WatchMap<T extends KubernetesObject> {
  readonly objects = new Map<string, T>();
  private readonly waiters = new Set<Waiter<T>>();
  private readonly groupWaiters = new Set<GroupWaiter<T>>();
  private readonly groups = new Map<string, Map<string, T>>();
  private readonly noMembers: ReadonlyMap<string, T> = new Map();
  private abort?: AbortController;
  private stopped = false;
  private resourceVersion?: string;
  private synced?: () => void;
  /** Resolves once the watch delivered its first event or bookmark (the initial ADDED burst has started). */
  readonly started: Promise<void>;
  restarts = 0;

  constructor(
    private readonly kc: KubeConfig,
    private readonly path: string,
    private readonly query: Record<string, string> = {},
    /** The group an object belongs to (undefined: none). */
    private readonly groupOf: (obj: T) => string | undefined = () => undefined,
  ) {
    this.started = new Promise((resolve) => (this.synced = resolve));
  }

  async start(): Promise<void> {
    const query: Record<string, string | boolean> = { ...this.query, allowWatchBookmarks: true };
    if (this.resourceVersion) query.resourceVersion = this.resourceVersion;
    this.abort = await new Watch(this.kc).watch(
      this.path,
      query,
      // client-node types watch objects as `any`; every object here is a T from this.path.
      (phase: string, obj: T) => this.apply(phase, obj),
      (err: unknown) => this.onDone(err),
    );
    // An empty collection sends nothing until something changes; the watch is open now anyway.
    setTimeout(() => this.synced?.(), 500).unref();
  }

  /** One watch event (fed by the watch; unit tests feed it directly). */
  apply(phase: string, obj: T): void {
    const at = performance.now();
    this.synced?.();
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (phase === 'BOOKMARK') return;
    const key = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    const touched = new Set<string>();
    const old = this.objects.get(key);
    const oldGroup = old ? this.groupOf(old) : undefined;
    if (oldGroup !== undefined) {
      this.groups.get(oldGroup)?.delete(key);
      touched.add(oldGroup);
    }
    if (phase === 'DELETED') this.objects.delete(key);
    else if (phase === 'ADDED' || phase === 'MODIFIED') {
      this.objects.set(key, obj);
      const group = this.groupOf(obj);
      if (group !== undefined) {
        let members = this.groups.get(group);
        if (!members) this.groups.set(group, (members = new Map()));
        members.set(key, obj);
        touched.add(group);
      }
    }
    for (const w of [...this.waiters]) {
      if (w.pred(this.objects)) this.settle(w, at);
    }
    for (const w of [...this.groupWaiters]) {
      for (const g of touched) if (w.groups.has(g)) this.evaluate(w, g);
      if (w.holding.size === w.groups.size) this.settle(w, at);
    }
  }

  /** The objects of one group (empty if none). */
  group(name: string): ReadonlyMap<string, T> {
    return this.groups.get(name) ?? this.noMembers;
  }

  private evaluate(w: GroupWaiter<T>, group: string): void {
    if (w.pred(group, this.group(group))) w.holding.add(group);
    else w.holding.delete(group);
  }

  private onDone(err: unknown): void {
    if (this.stopped) return;
    this.restarts++;
    const status = (err as { statusCode?: number; code?: number } | null)?.statusCode;
    if (status === 410) this.resourceVersion = undefined; // expired: start over from a fresh list
    setTimeout(() => {
      if (!this.stopped) this.start().catch((e: unknown) => this.onDone(e));
    }, 200).unref();
  }

  private settle(w: Waiter<T> | GroupWaiter<T>, at: number): void {
    clearTimeout(w.timer);
    this.waiters.delete(w as Waiter<T>);
    this.groupWaiters.delete(w as GroupWaiter<T>);
    w.resolve(at);
  }

  /**
   * Resolves with the arrival time of the event that made `pred` true (now, if it already is);
   * rejects after timeoutMs.
   */
  until(
    what: string,
    pred: (objects: ReadonlyMap<string, T>) => boolean,
    timeoutMs: number,
  ): Promise<number> {
    if (pred(this.objects)) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const w: Waiter<T> = {
        pred,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(w);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs),
      };
      this.waiters.add(w);
    });
  }

  /**
   * Resolves with the arrival time of the event after which `pred` held for every group of
   * `groups` at once (now, if it already does); rejects after timeoutMs. Each event
   * re-evaluates only the groups it touched.
   */
  untilEvery(
    what: string,
    groups: Iterable<string>,
    pred: (group: string, objects: ReadonlyMap<string, T>) => boolean,
    timeoutMs: number,
  ): Promise<number> {
    const all = new Set(groups);
    const holding = new Set([...all].filter((g) => pred(g, this.group(g))));
    if (holding.size === all.size) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const w: GroupWaiter<T> = {
        groups: all,
        pred,
        holding,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.groupWaiters.delete(w);
          reject(
            new Error(
              `timed out after ${timeoutMs} ms waiting for ${what} (${all.size - w.holding.size} left)`,
            ),
          );
        }, timeoutMs),
      };
      this.groupWaiters.add(w);
    });
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    for (const w of [...this.waiters, ...this.groupWaiters]) {
      clearTimeout(w.timer);
      w.reject(new Error('watch stopped'));
    }
    this.waiters.clear();
    this.groupWaiters.clear();
  }
}
