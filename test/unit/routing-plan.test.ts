import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InterfaceState, interfaceStates } from '../../src/api/conditions.js';
import {
  acceptable,
  planRouting,
  type PlanInterface,
  type PlanPod,
  type RoutingPlan,
} from '../../src/routing/plan.js';
import { pick, prng } from './reconcile-fixtures.js';

const { Verified: V, AuthRequired: A, Unimplemented: U, WrongBinding: W, Pending: P } = InterfaceState;

/** Interfaces of the usual v1.0 card: JSONRPC and REST on http, gRPC on grpc. */
const ifaces: PlanInterface[] = [
  { key: 'jsonrpc', portName: 'http' },
  { key: 'rest', portName: 'http' },
  { key: 'grpc', portName: 'grpc' },
];
const ports = ['http', 'grpc'];

function pods(
  table: Record<string, (InterfaceState | undefined)[]>,
  order: readonly string[] = ifaces.map((i) => i.key),
): PlanPod[] {
  return Object.entries(table).map(([uid, states]) => ({
    uid,
    states: new Map(
      states.flatMap((s, i) => (s === undefined ? [] : [[order[i]!, s] as [string, InterfaceState]])),
    ),
  }));
}

function endpoints(plan: RoutingPlan): Record<string, string[]> {
  return Object.fromEntries(plan.endpoints);
}

/**
 * The safety invariant (docs/routing.md): for every advertised key and every pod routed on that
 * key's port, the pod's state for that key is Verified (or AuthRequired under Advertise).
 * Returns the violations, so a failure says what broke.
 */
function invariantViolations(
  interfaces: readonly PlanInterface[],
  planPods: readonly PlanPod[],
  plan: RoutingPlan,
  advertiseAuth: boolean,
): string[] {
  const byUid = new Map(planPods.map((p) => [p.uid, p]));
  const out: string[] = [];
  for (const key of plan.advertised) {
    const iface = interfaces.find((i) => i.key === key);
    if (!iface?.portName) {
      out.push(`${key} advertised without a port`);
      continue;
    }
    for (const uid of plan.endpoints.get(iface.portName) ?? []) {
      const state = byUid.get(uid)?.states.get(key);
      const ok = state === V || (advertiseAuth && state === A);
      if (!ok)
        out.push(`${key} advertised but ${uid} routed on ${iface.portName} has ${state ?? 'no verdict'}`);
    }
  }
  return out;
}

describe('acceptable', () => {
  for (const state of interfaceStates) {
    it(`${state}: Advertise policy ${state === V || state === A}, Withdraw policy ${state === V}`, () => {
      assert.equal(acceptable(state, true), state === V || state === A);
      assert.equal(acceptable(state, false), state === V);
    });
  }
  it('no verdict is never acceptable', () => {
    assert.equal(acceptable(undefined, true), false);
    assert.equal(acceptable(undefined, false), false);
  });
});

describe('planRouting: table', () => {
  const cases: {
    name: string;
    pods: Record<string, (InterfaceState | undefined)[]>;
    ifaces?: PlanInterface[];
    auth?: boolean;
    advertised: string[];
    endpoints: Record<string, string[]>;
  }[] = [
    {
      name: 'all verified on 3 pods: everything advertised, every port to every pod in pod order',
      pods: { c: [V, V, V], a: [V, V, V], b: [V, V, V] },
      advertised: ['jsonrpc', 'rest', 'grpc'],
      endpoints: { http: ['c', 'a', 'b'], grpc: ['c', 'a', 'b'] },
    },
    {
      name: 'gRPC verified on 2 of 3: grpc routes exactly those 2, http all 3',
      pods: { a: [V, V, V], b: [V, V, U], c: [V, V, V] },
      advertised: ['jsonrpc', 'rest', 'grpc'],
      endpoints: { http: ['a', 'b', 'c'], grpc: ['a', 'c'] },
    },
    {
      name: 'gRPC verified nowhere: not advertised, grpc routes nowhere',
      pods: { a: [V, V, U], b: [V, V, W] },
      advertised: ['jsonrpc', 'rest'],
      endpoints: { http: ['a', 'b'], grpc: [] },
    },
    {
      name: 'REST verified only on b: kept, and http narrows to b (preference before endpoint count)',
      pods: { a: [V, U, V], b: [V, V, V] },
      advertised: ['jsonrpc', 'rest', 'grpc'],
      endpoints: { http: ['b'], grpc: ['a', 'b'] },
    },
    {
      name: 'a lower-preference interface never empties a port: REST on a only, JSONRPC on b only → JSONRPC kept, REST dropped',
      pods: { a: [U, V, V], b: [V, U, V] },
      advertised: ['jsonrpc', 'grpc'],
      endpoints: { http: ['b'], grpc: ['a', 'b'] },
    },
    {
      name: 'first interface unverified everywhere: the second takes the port',
      pods: { a: [W, V, V], b: [W, V, V] },
      advertised: ['rest', 'grpc'],
      endpoints: { http: ['a', 'b'], grpc: ['a', 'b'] },
    },
    {
      name: 'Pending and missing verdicts are not acceptable',
      pods: { a: [P, V, undefined], b: [V, undefined, V] },
      advertised: ['jsonrpc', 'grpc'],
      endpoints: { http: ['b'], grpc: ['b'] },
    },
    {
      name: 'AuthRequired under Advertise is routed',
      pods: { a: [V, V, A], b: [V, V, A] },
      auth: true,
      advertised: ['jsonrpc', 'rest', 'grpc'],
      endpoints: { http: ['a', 'b'], grpc: ['a', 'b'] },
    },
    {
      name: 'AuthRequired under Withdraw is not',
      pods: { a: [V, V, A], b: [V, V, A] },
      auth: false,
      advertised: ['jsonrpc', 'rest'],
      endpoints: { http: ['a', 'b'], grpc: [] },
    },
    {
      name: 'unmapped interface (no port) is never advertised even when a verdict says Verified',
      ifaces: [{ key: 'jsonrpc', portName: 'http' }, { key: 'rest' }, { key: 'grpc', portName: 'grpc' }],
      pods: { a: [V, V, V] },
      advertised: ['jsonrpc', 'grpc'],
      endpoints: { http: ['a'], grpc: ['a'] },
    },
    {
      name: 'no pods: nothing advertised, every port listed and empty',
      pods: {},
      advertised: [],
      endpoints: { http: [], grpc: [] },
    },
    {
      name: 'no interfaces: every port listed and empty',
      ifaces: [],
      pods: { a: [] },
      advertised: [],
      endpoints: { http: [], grpc: [] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const list = c.ifaces ?? ifaces;
      const planPods = pods(c.pods);
      const plan = planRouting(list, planPods, ports, c.auth ?? true);
      assert.deepEqual(plan.advertised, c.advertised);
      assert.deepEqual(endpoints(plan), c.endpoints);
      assert.deepEqual(invariantViolations(list, planPods, plan, c.auth ?? true), []);
    });
  }

  it('a port not in portNames gets no endpoint entry; every listed port has one', () => {
    const plan = planRouting([{ key: 'x', portName: 'other' }], pods({ a: [V] }, ['x']), ports, true);
    assert.deepEqual(plan.advertised, ['x']);
    assert.deepEqual([...plan.endpoints.keys()], ports);
  });

  it('the invariant checker itself catches a violation (it can fail)', () => {
    const planPods = pods({ a: [V, V, U] });
    const bad: RoutingPlan = {
      advertised: ['jsonrpc', 'grpc'],
      endpoints: new Map([
        ['http', ['a']],
        ['grpc', ['a']],
      ]),
    };
    assert.deepEqual(invariantViolations(ifaces, planPods, bad, true), [
      'grpc advertised but a routed on grpc has Unimplemented',
    ]);
  });
});

describe('planRouting: randomized safety and liveness (seeded)', () => {
  const states: InterfaceState[] = [V, V, V, A, U, W, P, InterfaceState.Timeout, InterfaceState.Unmapped];
  const CASES = 4000;

  it(`${CASES} random inputs: safety invariant, greedy maximality, order and completeness`, () => {
    const random = prng(0xa2a);
    let advertisedSomething = 0;
    for (let n = 0; n < CASES; n++) {
      const portNames = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => `p${i}`);
      const list: PlanInterface[] = Array.from({ length: Math.floor(random() * 7) }, (_, i) =>
        random() < 0.15 ? { key: `k${i}` } : { key: `k${i}`, portName: pick(random, portNames) },
      );
      const planPods: PlanPod[] = Array.from({ length: Math.floor(random() * 6) }, (_, u) => ({
        uid: `u${u}`,
        states: new Map(
          list.flatMap((i) =>
            random() < 0.1 ? [] : [[i.key, pick(random, states)] as [string, InterfaceState]],
          ),
        ),
      }));
      const auth = random() < 0.5;
      const plan = planRouting(list, planPods, portNames, auth);
      const ctx = `case ${n}: ${JSON.stringify({ list, pods: planPods.map((p) => [p.uid, [...p.states]]), auth })}`;
      if (plan.advertised.length > 0) advertisedSomething++;

      // Safety.
      assert.deepEqual(invariantViolations(list, planPods, plan, auth), [], ctx);
      // Every listed port has an entry; endpoints keep pod order and have no duplicates.
      assert.deepEqual([...plan.endpoints.keys()], portNames, ctx);
      for (const [port, uids] of plan.endpoints) {
        const order = planPods.map((p) => p.uid).filter((u) => uids.includes(u));
        assert.deepEqual(uids, order, `${ctx}: ${port} endpoints not in pod order`);
        // A port routes somewhere iff some advertised interface lives on it.
        const carries = plan.advertised.some((k) => list.find((i) => i.key === k)?.portName === port);
        assert.equal(uids.length > 0, carries, `${ctx}: port ${port}`);
      }
      // Advertised keys are in card order, unique, and mapped.
      const idx = plan.advertised.map((k) => list.findIndex((i) => i.key === k));
      assert.deepEqual(
        idx,
        [...idx].sort((a, b) => a - b),
        ctx,
      );
      assert.ok(
        idx.every((i) => i >= 0 && list[i]!.portName),
        ctx,
      );
      // Greedy maximality: a mapped interface left out has no acceptable pod among the ones its
      // port routes to (when the port routes anywhere), or no acceptable pod at all.
      for (const iface of list) {
        if (!iface.portName || plan.advertised.includes(iface.key)) continue;
        const routed = plan.endpoints.get(iface.portName) ?? [];
        const okPods = planPods.filter((p) => acceptable(p.states.get(iface.key), auth)).map((p) => p.uid);
        if (routed.length === 0)
          assert.deepEqual(okPods, [], `${ctx}: ${iface.key} could have been advertised`);
        else
          assert.ok(
            !routed.every((u) => okPods.includes(u)),
            `${ctx}: ${iface.key} is acceptable on every routed pod of ${iface.portName} yet not advertised`,
          );
      }
      // Preference survives: the first mapped interface acceptable on some pod is always advertised.
      const firstViable = list.find(
        (i) => i.portName && planPods.some((p) => acceptable(p.states.get(i.key), auth)),
      );
      if (firstViable) assert.equal(plan.advertised[0], firstViable.key, ctx);
      else assert.deepEqual(plan.advertised, [], ctx);
    }
    // The generator exercises both outcomes.
    assert.ok(advertisedSomething > CASES / 4 && advertisedSomething < CASES, `${advertisedSomething}`);
  });
});
