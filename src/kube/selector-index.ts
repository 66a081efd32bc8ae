/**
 * Which keyed selectors (an agent's pod selector, say) match a set of labels, without testing
 * every selector: each selector is filed under one of its `matchLabels` pairs, so a lookup
 * tests only the selectors filed under the labels it has. Selectors without `matchLabels`
 * (expressions only, or empty) are tested on every lookup in their namespace. Results are what
 * `matchesSelector` over all selectors of the namespace would give.
 */
import { matchesSelector, type LabelSelector, type Labels } from './selector.js';

interface Entry {
  namespace: string;
  selector: LabelSelector | undefined;
  bucket: string;
}

/** Namespace, label key and value, separated by characters no label or namespace may hold. */
function bucketOf(namespace: string, key: string, value: string): string {
  return `${namespace}\n${key}\n${value}`;
}

export class SelectorIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly buckets = new Map<string, Set<string>>();

  /** Files (or refiles) `key`'s selector in `namespace`. */
  set(key: string, namespace: string, selector: LabelSelector | undefined): void {
    this.delete(key);
    const first = Object.entries(selector?.matchLabels ?? {})[0];
    // `\n` alone: the namespace's bucket of selectors tested on every lookup.
    const bucket = first ? bucketOf(namespace, first[0], first[1]) : `${namespace}\n`;
    this.entries.set(key, { namespace, selector, bucket });
    let keys = this.buckets.get(bucket);
    if (!keys) this.buckets.set(bucket, (keys = new Set()));
    keys.add(key);
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    const keys = this.buckets.get(e.bucket);
    keys?.delete(key);
    if (keys?.size === 0) this.buckets.delete(e.bucket);
  }

  /** The keys whose selector, filed in `namespace`, matches `labels`. */
  matching(namespace: string, labels: Labels): string[] {
    const out: string[] = [];
    const test = (bucket: string): void => {
      for (const key of this.buckets.get(bucket) ?? []) {
        if (matchesSelector(this.entries.get(key)!.selector, labels)) out.push(key);
      }
    };
    test(`${namespace}\n`);
    for (const [k, v] of Object.entries(labels ?? {})) test(bucketOf(namespace, k, v));
    return out;
  }

  get size(): number {
    return this.entries.size;
  }
}
