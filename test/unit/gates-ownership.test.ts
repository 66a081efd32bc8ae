// One writer per readiness gate (src/controller/gates.ts): the oldest live Enforce agent that
// selects a pod owns its gate; Observe writes none; a False gate nobody owns is released.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { decide } from '../../src/controller/decide.js';
import {
  falseGateIndexKey,
  falseGateIndexValue,
  gateOwner,
  gatesOwnedElsewhere,
  holdsFalseGate,
  orphanGate,
  releasedGates,
  type GateAgent,
} from '../../src/controller/gates.js';
import { Store } from '../../src/kube/store.js';
import { allVerified, input, okCard, pod, spec, v1Raw } from './reconcile-fixtures.js';

const GATE = 'a2a.dev/card-verified';

function agent(name: string, created: string, opts: Partial<GateAgent> = {}): GateAgent {
  return {
    name,
    creationTimestamp: created,
    selector: { matchLabels: { app: 'billing' } },
    enforce: true,
    deleting: false,
    ...opts,
  };
}

function k8sPod(name: string, gate?: 'True' | 'False', opts: { listed?: boolean; app?: string } = {}): V1Pod {
  return {
    metadata: { name, namespace: 'payments', labels: { app: opts.app ?? 'billing' } },
    spec: {
      containers: [],
      ...(opts.listed === false ? {} : { readinessGates: [{ conditionType: GATE }] }),
    },
    status: gate ? { conditions: [{ type: GATE, status: gate }] } : {},
  };
}

const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-01T00:00:05Z';

describe('gate ownership', () => {
  it('the older agent owns the gate; same second: the smaller name', () => {
    assert.equal(gateOwner({ app: 'billing' }, [agent('zeta', T2), agent('alpha', T1)]), 'alpha');
    assert.equal(gateOwner({ app: 'billing' }, [agent('zeta', T1), agent('beta', T1)]), 'beta');
  });

  it('Observe agents, agents being deleted and agents not selecting the pod own nothing', () => {
    const agents = [
      agent('old-observe', T1, { enforce: false }),
      agent('old-deleting', T1, { deleting: true }),
      agent('other', T1, { selector: { matchLabels: { app: 'other' } } }),
      agent('young', T2),
    ];
    assert.equal(gateOwner({ app: 'billing' }, agents), 'young');
    assert.equal(gateOwner({ app: 'billing' }, agents.slice(0, 3)), undefined);
  });

  it('gatesOwnedElsewhere lists the shared pods that list the gate, with their owner', () => {
    const agents = [agent('old', T1), agent('new', T2)];
    const pods = [k8sPod('a'), k8sPod('b', undefined, { listed: false })];
    assert.deepEqual([...gatesOwnedElsewhere('new', pods, agents)], [['a', 'old']]);
    assert.deepEqual([...gatesOwnedElsewhere('old', pods, agents)], []);
  });
});

describe('released gates', () => {
  it('a False gate no agent selects: True/AgentDeleted; only Observe agents: True/ObserveMode', () => {
    const pods = [k8sPod('a', 'False'), k8sPod('b', 'False', { app: 'watched' })];
    const agents = [agent('obs', T1, { enforce: false, selector: { matchLabels: { app: 'watched' } } })];
    assert.deepEqual(
      releasedGates(pods, agents).map((g) => `${g.pod}=${g.status}/${g.reason}`),
      ['a=True/AgentDeleted', 'b=True/ObserveMode'],
    );
  });

  it('an owned gate, a True gate, a missing condition and an unlisted gate are left alone', () => {
    const pods = [
      k8sPod('owned', 'False'),
      k8sPod('true', 'True', { app: 'x' }),
      k8sPod('never', undefined, { app: 'x' }),
      k8sPod('unlisted', 'False', { app: 'x', listed: false }),
    ];
    const agents = [agent('live', T1)];
    assert.deepEqual(releasedGates(pods, agents), []);
    assert.equal(orphanGate(k8sPod('owned', 'False'), [agent('live', T1, { deleting: true })]), true);
  });
});

describe('decide with gates owned elsewhere', () => {
  const card = okCard(v1Raw());
  const pods = () => ['a', 'b'].map((n) => pod(n, card, allVerified));

  it('writes no gate for the shared pod and says SelectorOverlap naming the owner; Ready is not failed', () => {
    const d = decide(input({ pods: pods(), gateOwnedElsewhere: new Map([['a', 'older-agent']]) }));
    assert.deepEqual(
      d.gates.map((g) => g.pod),
      ['b'],
    );
    const pc = d.status.conditions!.find((c) => c.type === 'PodsConsistent')!;
    assert.equal(pc.status, 'False');
    assert.equal(pc.reason, 'SelectorOverlap');
    assert.match(pc.message, /older-agent/);
    assert.equal(d.status.conditions!.find((c) => c.type === 'Ready')!.status, 'True');
    assert.equal(d.status.conditions!.find((c) => c.type === 'Reconciling')!.status, 'False');
  });

  it('Observe mode writes no gate', () => {
    const d = decide(input({ pods: pods(), spec: spec({ routing: { mode: 'Observe' } }) }));
    assert.deepEqual(d.gates, []);
  });
});

describe('the pod cache indexed by False gate', () => {
  it('files exactly the pods holdsFalseGate is true of, and follows them as they change', () => {
    const store = new Store<V1Pod>(falseGateIndexValue);
    const terminating = k8sPod('going', 'False');
    terminating.metadata!.deletionTimestamp = new Date(T1);
    const pods = [
      k8sPod('held', 'False'),
      k8sPod('open', 'True'),
      k8sPod('unjudged'),
      k8sPod('unlisted', 'False', { listed: false }),
      terminating,
    ];
    for (const p of pods) store.upsert(p);
    const held = () =>
      store
        .byIndex(falseGateIndexKey('payments'))
        .map((p) => p.metadata!.name)
        .sort();
    assert.deepEqual(
      held(),
      pods.filter(holdsFalseGate).map((p) => p.metadata!.name),
    );
    assert.deepEqual(held(), ['held']);
    // Released, then held again, then deleted: the index follows every change.
    store.upsert(k8sPod('held', 'True'));
    assert.deepEqual(held(), []);
    store.upsert(k8sPod('open', 'False'));
    assert.deepEqual(held(), ['open']);
    store.remove(k8sPod('open', 'False'));
    assert.deepEqual(held(), []);
    // Another namespace's False gate is filed under that namespace.
    const elsewhere = k8sPod('far', 'False');
    elsewhere.metadata!.namespace = 'shipping';
    store.upsert(elsewhere);
    assert.deepEqual(held(), []);
    assert.deepEqual(
      store.byIndex(falseGateIndexKey('shipping')).map((p) => p.metadata!.name),
      ['far'],
    );
  });
});
