// The selector index (src/kube/selector-index.ts) answers exactly what matchesSelector over
// every filed selector of the namespace answers, while testing only the selectors filed under
// the labels looked up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesSelector, type LabelSelector } from '../../src/kube/selector.js';
import { SelectorIndex } from '../../src/kube/selector-index.js';

/** A small deterministic generator, so a failure reproduces. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

const KEYS = ['app', 'tier', 'zone'];
const VALUES = ['a', 'b', 'c'];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function randomLabels(r: () => number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of KEYS) if (r() < 0.6) out[k] = pick(r, VALUES);
  return out;
}

function randomSelector(r: () => number): LabelSelector | undefined {
  const x = r();
  if (x < 0.1) return undefined;
  if (x < 0.2) return {};
  const sel: LabelSelector = {};
  if (r() < 0.7) sel.matchLabels = randomLabels(r);
  if (r() < 0.4) {
    const operator = pick(r, ['In', 'NotIn', 'Exists', 'DoesNotExist']);
    sel.matchExpressions = [{ key: pick(r, KEYS), operator, values: [pick(r, VALUES)] }];
  }
  return sel;
}

describe('SelectorIndex', () => {
  it('matches what a scan of every selector in the namespace matches, across sets and deletes', () => {
    const r = rng(15);
    const index = new SelectorIndex();
    const filed = new Map<string, { ns: string; sel: LabelSelector | undefined }>();
    for (let step = 0; step < 3000; step++) {
      const key = `k${Math.floor(r() * 60)}`;
      if (r() < 0.2) {
        index.delete(key);
        filed.delete(key);
      } else {
        const ns = pick(r, ['ns1', 'ns2']);
        const sel = randomSelector(r);
        index.set(key, ns, sel);
        filed.set(key, { ns, sel });
      }
      const ns = pick(r, ['ns1', 'ns2', 'ns3']);
      const labels = r() < 0.1 ? undefined : randomLabels(r);
      const want = [...filed]
        .filter(([, f]) => f.ns === ns && matchesSelector(f.sel, labels))
        .map(([k]) => k)
        .sort();
      assert.deepEqual(index.matching(ns, labels).sort(), want, `step ${step}`);
      assert.equal(index.size, filed.size);
    }
  });

  it('refiles a key whose selector changed, leaving no stale match', () => {
    const index = new SelectorIndex();
    index.set('ns/a', 'ns', { matchLabels: { app: 'x' } });
    index.set('ns/a', 'ns', { matchLabels: { app: 'y' } });
    assert.deepEqual(index.matching('ns', { app: 'x' }), []);
    assert.deepEqual(index.matching('ns', { app: 'y' }), ['ns/a']);
    assert.deepEqual(index.matching('other', { app: 'y' }), []);
  });
});
