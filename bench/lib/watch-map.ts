/**
 * The benchmark's own view of the cluster: a watch of one resource kept as a map of objects,
 * restarted when the stream ends (from the last resourceVersion, or afresh after 410), with
 * waiters that resolve at the instant (performance.now(), in this process) the first event
 * making their predicate true arrived. It is independent of the operator's caches, so what it
 * sees is what any client of the API server would see.
 */
import { Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';

interface Waiter<T> {
  pred: (objects: ReadonlyMap<string, T>) => boolean;
  resolve: (at: number) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class WatchMap<T extends KubernetesObject> {
  readonly objects = new Map<string, T>();
  private readonly waiters = new Set<Waiter<T>>();
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
      (phase: string, obj: T) => this.onEvent(phase, obj),
      (err: unknown) => this.onDone(err),
    );
    // An empty collection sends nothing until something changes; the watch is open now anyway.
    setTimeout(() => this.synced?.(), 500).unref();
  }

  private onEvent(phase: string, obj: T): void {
    const at = performance.now();
    this.synced?.();
    const rv = obj.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (phase === 'BOOKMARK') return;
    const key = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    if (phase === 'DELETED') this.objects.delete(key);
    else if (phase === 'ADDED' || phase === 'MODIFIED') this.objects.set(key, obj);
    for (const w of [...this.waiters]) {
      if (w.pred(this.objects)) this.settle(w, at);
    }
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

  private settle(w: Waiter<T>, at: number): void {
    clearTimeout(w.timer);
    this.waiters.delete(w);
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

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new Error('watch stopped'));
    }
    this.waiters.clear();
  }
}
