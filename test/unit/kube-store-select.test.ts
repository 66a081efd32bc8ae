// Store.select (src/kube/store.ts) answers through a label index: every reconcile selects its
// agent's pods, and a scan of the namespace made that quadratic in the fleet. Its answer must
// be exactly list(namespace) filtered by matchesSelector, through adds, relabels, deletes and
// relists.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Store } from '../../src/kube/store.js';
import { matchesSelector, type LabelSelector } from '../../src/kube/selector.js';
import { prng } from './reconcile-fixtures.js';

function pod(name: string, labels: Record<string, string>, ns = 'ns', rv = '1'): KubernetesObject {
  return { metadata: { name, namespace: ns, resourceVersion: rv, labels } };
}

const SELECTORS: (LabelSelector | undefined)[] = [
  undefined,
  {},
  { matchLabels: { app: 'a' } },
  { matchLabels: { app: 'b', tier: 'x' } },
  { matchLabels: { app: 'zzz' } },
  { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['y'] }] },
  { matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
  { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'c'] }] },
];

const names = (objs: KubernetesObject[]) =>
  objs.map((o) => `${o.metadata!.namespace}/${o.metadata!.name}`).sort();

function assertSameAsScan(store: Store<KubernetesObject>, what: string): void {
  for (const ns of ['ns', 'other', 'empty']) {
    for (const sel of SELECTORS) {
      const scan = store.list(ns).filter((o) => matchesSelector(sel, o.metadata?.labels));
      assert.deepEqual(names(store.select(ns, sel)), names(scan), `${what}: ${ns} ${JSON.stringify(sel)}`);
    }
  }
}

describe('Store.select', () => {
  it('answers as a scan of the namespace would, through random adds, relabels, deletes and relists', () => {
    const random = prng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const store = new Store<KubernetesObject>();
    for (let step = 0; step < 400; step++) {
      const name = `p${Math.floor(random() * 30)}`;
      const ns = pick(['ns', 'ns', 'other']);
      const labels: Record<string, string> = { app: pick(['a', 'b', 'c']) };
      if (random() < 0.6) labels.tier = pick(['x', 'y']);
      const r = random();
      if (r < 0.7) store.upsert(pod(name, labels, ns, String(step)));
      else if (r < 0.95) store.remove(pod(name, {}, ns));
      else store.replace(store.list().filter(() => random() < 0.8));
      assertSameAsScan(store, `step ${step}`);
    }
  });

  it('a relabelled object leaves its old label buckets', () => {
    const store = new Store<KubernetesObject>();
    store.upsert(pod('p', { app: 'a' }));
    store.upsert(pod('p', { app: 'b' }, 'ns', '2'));
    assert.deepEqual(names(store.select('ns', { matchLabels: { app: 'a' } })), []);
    assert.deepEqual(names(store.select('ns', { matchLabels: { app: 'b' } })), ['ns/p']);
  });
});
