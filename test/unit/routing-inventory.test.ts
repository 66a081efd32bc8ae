// The owned-object inventory (routing/inventory.ts): which objects are this agent's, a deleted
// predecessor's (same name, older object, other UID) or someone else's, and which of them the
// spec no longer names.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { claimOf, controlledBy, staleObjects, type InventoryObject } from '../../src/routing/inventory.js';

const agent = { name: 'billing', uid: 'uid-now', created: '2030-01-01T00:00:10.000Z' };
const labels = { 'app.kubernetes.io/managed-by': 'a2a-operator' };

function obj(
  name: string,
  opts: { uid?: string | null; agentName?: string; at?: string; extraLabels?: Record<string, string> } = {},
): KubernetesObject {
  const uid = opts.uid === undefined ? 'uid-now' : opts.uid;
  return {
    metadata: {
      name,
      labels: { ...labels, ...opts.extraLabels },
      creationTimestamp: (opts.at ?? '2030-01-01T00:00:20Z') as unknown as Date,
      ...(uid === null
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'a2a.dev/v1alpha1',
                kind: 'A2AAgent',
                name: opts.agentName ?? 'billing',
                uid,
                controller: true,
              },
            ],
          }),
    },
  };
}

describe('claimOf', () => {
  it('ours: a controller reference to this UID', () => {
    assert.equal(claimOf(obj('billing'), agent), 'ours');
  });
  it('predecessor: same agent name, other UID, created before this agent', () => {
    assert.equal(
      claimOf(obj('billing', { uid: 'uid-old', at: '2030-01-01T00:00:05Z' }), agent),
      'predecessor',
    );
  });
  it('foreign: other UID but not older (a lagging cache), same second, or without our label', () => {
    assert.equal(claimOf(obj('billing', { uid: 'uid-old', at: '2030-01-01T00:00:30Z' }), agent), 'foreign');
    assert.equal(claimOf(obj('billing', { uid: 'uid-old', at: '2030-01-01T00:00:10Z' }), agent), 'foreign');
    const unlabelled = obj('billing', { uid: 'uid-old', at: '2030-01-01T00:00:05Z' });
    unlabelled.metadata!.labels = {};
    assert.equal(claimOf(unlabelled, agent), 'foreign');
  });
  it("foreign: no controller reference, or another agent's", () => {
    assert.equal(claimOf(obj('billing', { uid: null }), agent), 'foreign');
    assert.equal(claimOf(obj('billing', { uid: 'uid-x', agentName: 'other' }), agent), 'foreign');
  });
});

describe('controlledBy', () => {
  it('a controller reference to this UID, not a plain owner reference or a predecessor', () => {
    assert.equal(controlledBy(obj('billing'), 'uid-now'), true);
    assert.equal(controlledBy(obj('billing', { uid: 'uid-old' }), 'uid-now'), false);
    const plainOwner = obj('billing');
    plainOwner.metadata!.ownerReferences![0]!.controller = false;
    assert.equal(controlledBy(plainOwner, 'uid-now'), false);
    assert.equal(controlledBy(obj('billing', { uid: null }), 'uid-now'), false);
    assert.equal(controlledBy(undefined, 'uid-now'), false);
  });
  it('an empty UID (an agent not yet stored) controls nothing, even a reference without one', () => {
    assert.equal(controlledBy(obj('billing', { uid: '' }), ''), false);
  });
});

describe('staleObjects', () => {
  const svcLabel = (n: string) => ({ 'kubernetes.io/service-name': n });
  const inv: InventoryObject[] = [
    { kind: 'Service', obj: obj('billing') },
    { kind: 'Service', obj: obj('billing-old') },
    { kind: 'EndpointSlice', obj: obj('billing-http', { extraLabels: svcLabel('billing') }) },
    { kind: 'EndpointSlice', obj: obj('billing-old-http', { extraLabels: svcLabel('billing-old') }) },
    { kind: 'ConfigMap', obj: obj('billing-agent-card') },
    { kind: 'ConfigMap', obj: obj('other-agent-card', { uid: 'uid-x', agentName: 'other' }) },
    { kind: 'Service', obj: obj('legacy', { uid: 'uid-old', at: '2030-01-01T00:00:01Z' }) },
  ];
  const names = (xs: InventoryObject[]) => xs.map((x) => `${x.kind}/${x.obj.metadata!.name}`);
  const keep = { serviceName: 'billing', configMapName: 'billing-agent-card' };

  it("Enforce: an old serviceName's Service and slices, and any predecessor's objects", () => {
    assert.deepEqual(names(staleObjects(inv, agent, keep)), [
      'Service/billing-old',
      'EndpointSlice/billing-old-http',
      'Service/legacy',
    ]);
  });
  it('the pass before applying prunes predecessors only', () => {
    assert.deepEqual(names(staleObjects(inv, agent, keep, true)), ['Service/legacy']);
  });
  it("Observe: everything of this agent's, never another agent's", () => {
    assert.deepEqual(names(staleObjects(inv, agent, undefined)), [
      'Service/billing',
      'Service/billing-old',
      'EndpointSlice/billing-http',
      'EndpointSlice/billing-old-http',
      'ConfigMap/billing-agent-card',
      'Service/legacy',
    ]);
  });
});
