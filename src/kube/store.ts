/**
 * The informer's cache: objects by namespace then name, so `list(namespace)` costs only that
 * namespace, and optionally by one index key (client-go's indexer, e.g. the owning agent), so
 * `byIndex(value)` costs only the objects that share it; and by label, so `select(namespace,
 * selector)` tests only the objects carrying one of the selector's `matchLabels` pairs (every
 * reconcile selects its agent's pods: a scan of the namespace made that quadratic in the fleet).
 * Pure and synchronous; the informer turns its results into handler calls.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { matchesSelector, type LabelSelector } from './selector.js';

export type Change<T> =
  { type: 'add'; obj: T } | { type: 'update'; old: T; obj: T } | { type: 'delete'; obj: T };

/** An object's index value, or undefined to leave it out of the index. */
export type IndexFn<T> = (obj: T) => string | undefined;

export class Store<T extends KubernetesObject> {
  private readonly byNs = new Map<string, Map<string, T>>();
  private readonly byIndexValue = new Map<string, Map<string, T>>();
  /** `namespace\nkey\nvalue` → objects with that label, by `namespace/name`. */
  private readonly byLabel = new Map<string, Map<string, T>>();
  private count = 0;

  constructor(private readonly indexFn?: IndexFn<T>) {}

  /** The objects whose index value is `value` (none without an index function). */
  byIndex(value: string): T[] {
    return [...(this.byIndexValue.get(value)?.values() ?? [])];
  }

  /**
   * The objects of `namespace` whose labels match `selector`, as `list(namespace)` filtered by
   * `matchesSelector` would give them (in another order). Only the objects filed under the
   * selector's rarest `matchLabels` pair are tested; a selector without one tests the namespace.
   */
  select(namespace: string, selector: LabelSelector | undefined): T[] {
    let candidates: Iterable<T> | undefined;
    let fewest = Infinity;
    for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) {
      const m = this.byLabel.get(labelBucket(namespace, k, v));
      if (!m) return [];
      if (m.size < fewest) {
        fewest = m.size;
        candidates = m.values();
      }
    }
    candidates ??= this.byNs.get(namespace)?.values() ?? [];
    const out: T[] = [];
    for (const o of candidates) if (matchesSelector(selector, o.metadata?.labels)) out.push(o);
    return out;
  }

  private labelIndex(obj: T, key: string, ns: string, add: boolean): void {
    for (const [k, v] of Object.entries(obj.metadata?.labels ?? {})) {
      const bucket = labelBucket(ns, k, v);
      let m = this.byLabel.get(bucket);
      if (add) {
        if (!m) this.byLabel.set(bucket, (m = new Map()));
        m.set(key, obj);
      } else {
        m?.delete(key);
        if (m?.size === 0) this.byLabel.delete(bucket);
      }
    }
  }

  private unindex(obj: T, key: string): void {
    const v = this.indexFn?.(obj);
    if (v === undefined) return;
    const m = this.byIndexValue.get(v);
    m?.delete(key);
    if (m?.size === 0) this.byIndexValue.delete(v);
  }

  private index(obj: T, key: string): void {
    const v = this.indexFn?.(obj);
    if (v === undefined) return;
    let m = this.byIndexValue.get(v);
    if (!m) this.byIndexValue.set(v, (m = new Map()));
    m.set(key, obj);
  }

  get(namespace: string, name: string): T | undefined {
    return this.byNs.get(namespace)?.get(name);
  }

  /** All objects, or those of one namespace (`''` for cluster-scoped objects). */
  list(namespace?: string): T[] {
    if (namespace !== undefined) return [...(this.byNs.get(namespace)?.values() ?? [])];
    const out: T[] = [];
    for (const m of this.byNs.values()) out.push(...m.values());
    return out;
  }

  get size(): number {
    return this.count;
  }

  /** Inserts or replaces; an update is reported even if the resourceVersion is unchanged. */
  upsert(obj: T): Change<T> {
    const { ns, name } = ids(obj);
    let m = this.byNs.get(ns);
    if (!m) this.byNs.set(ns, (m = new Map()));
    const old = m.get(name);
    m.set(name, obj);
    const key = `${ns}/${name}`;
    if (old) this.labelIndex(old, key, ns, false);
    this.labelIndex(obj, key, ns, true);
    if (this.indexFn) {
      if (old) this.unindex(old, key);
      this.index(obj, key);
    }
    if (!old) {
      this.count++;
      return { type: 'add', obj };
    }
    return { type: 'update', old, obj };
  }

  /** Removes; returns the cached object (preferred: it is the last state handlers saw). */
  remove(obj: T): Change<T> | undefined {
    const { ns, name } = ids(obj);
    const m = this.byNs.get(ns);
    const old = m?.get(name);
    if (!m || !old) return undefined;
    m.delete(name);
    this.labelIndex(old, `${ns}/${name}`, ns, false);
    if (this.indexFn) this.unindex(old, `${ns}/${name}`);
    if (m.size === 0) this.byNs.delete(ns);
    this.count--;
    return { type: 'delete', obj: old };
  }

  /**
   * Replaces the contents with a fresh list: deletes for objects that vanished, adds for new
   * ones, updates only where the resourceVersion changed (a relist must not make every
   * object look modified).
   */
  replace(items: T[]): Change<T>[] {
    const changes: Change<T>[] = [];
    const seen = new Set<string>();
    for (const obj of items) {
      const { ns, name } = ids(obj);
      seen.add(`${ns}/${name}`);
      const old = this.get(ns, name);
      if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) {
        // Unchanged: keep the cached object, no event.
        continue;
      }
      changes.push(this.upsert(obj));
    }
    for (const obj of this.list()) {
      const { ns, name } = ids(obj);
      if (!seen.has(`${ns}/${name}`)) {
        const c = this.remove(obj);
        if (c) changes.push(c);
      }
    }
    return changes;
  }
}

/** Namespace, label key and value, separated by a character no label or namespace may hold. */
function labelBucket(namespace: string, key: string, value: string): string {
  return `${namespace}\n${key}\n${value}`;
}

function ids(obj: KubernetesObject): { ns: string; name: string } {
  return { ns: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
}
