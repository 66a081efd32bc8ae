// The store's secondary index (src/kube/store.ts) follows every add, update, delete and relist,
// and the owned caches' index (routing/inventory.ts ownerIndexValue) files an object under the
// agent its A2AAgent controller reference names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Store } from '../../src/kube/store.js';
import { ownerIndexKey, ownerIndexValue } from '../../src/routing/inventory.js';

function obj(name: string, owner: string | undefined, rv = '1', ns = 'ns'): KubernetesObject {
  return {
    metadata: {
      name,
      namespace: ns,
      resourceVersion: rv,
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'a2a.dev/v1alpha1',
                kind: 'A2AAgent',
                name: owner,
                uid: `u-${owner}`,
                controller: true,
              },
            ],
          }
        : {}),
    },
  };
}

const names = (xs: KubernetesObject[]) => xs.map((o) => o.metadata!.name!).sort();

describe('Store index', () => {
  it('follows adds, re-owning updates, deletes and relists', () => {
    const s = new Store<KubernetesObject>(ownerIndexValue);
    s.upsert(obj('a-svc', 'a'));
    s.upsert(obj('a-cm', 'a'));
    s.upsert(obj('b-svc', 'b'));
    s.upsert(obj('foreign', undefined));
    s.upsert(obj('other-ns', 'a', '1', 'ns2'));
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns', 'a'))), ['a-cm', 'a-svc']);
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns2', 'a'))), ['other-ns']);
    s.upsert(obj('a-cm', 'b', '2'));
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns', 'a'))), ['a-svc']);
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns', 'b'))), ['a-cm', 'b-svc']);
    s.remove(obj('b-svc', 'b'));
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns', 'b'))), ['a-cm']);
    s.replace([obj('a-svc', 'a'), obj('c-svc', 'c')]);
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns', 'a'))), ['a-svc']);
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns', 'b'))), []);
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns', 'c'))), ['c-svc']);
    assert.deepEqual(names(s.byIndex(ownerIndexKey('ns2', 'a'))), []);
  });

  it('without an index function, byIndex answers nothing', () => {
    const s = new Store<KubernetesObject>();
    s.upsert(obj('a-svc', 'a'));
    assert.deepEqual(s.byIndex(ownerIndexKey('ns', 'a')), []);
  });

  it('indexes only A2AAgent controller references', () => {
    assert.equal(ownerIndexValue(obj('x', undefined)), undefined);
    const rs = obj('x', 'a');
    rs.metadata!.ownerReferences![0]!.kind = 'ReplicaSet';
    assert.equal(ownerIndexValue(rs), undefined);
  });
});
