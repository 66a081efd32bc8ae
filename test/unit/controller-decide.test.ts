import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { A2AAgentStatus, Condition } from '../../src/api/a2aagent.js';
import { nextCondition } from '../../src/api/condition-helpers.js';
import { InterfaceState } from '../../src/api/conditions.js';
import { cardDigest, type ParsedCard } from '../../src/card/index.js';
import { aggregateInterface, clip, namePods } from '../../src/controller/aggregate.js';
import { decide, type Decision, type DecideInput } from '../../src/controller/decide.js';
import { mapInterfaces, MAX_INTERFACES } from '../../src/observation/interface-map.js';
import { interfaceKey, type PodObservation } from '../../src/observation/observed.js';
import {
  allowedHosts,
  podPort,
  portForEndpoint,
  serviceHostNames,
} from '../../src/observation/port-mapping.js';
import { staticVerdict } from '../../src/controller/probe-memory.js';
import { acceptable } from '../../src/routing/plan.js';
import {
  allVerified,
  failedCard,
  input,
  keys,
  LATER,
  NOW,
  okCard,
  parsed,
  pick,
  pod,
  prng,
  seedRaw,
  seedSpec,
  spec,
  V,
  v1Raw,
  verdict,
  type VerdictSpec,
} from './reconcile-fixtures.js';

const S = InterfaceState;
const CONDITION_ORDER = [
  'Ready',
  'CardValid',
  'InterfacesVerified',
  'PodsConsistent',
  'Advertised',
  'Reconciling',
  'Stalled',
];

function cond(d: Decision | A2AAgentStatus, type: string): Condition {
  const status = 'status' in d && 'gates' in d ? d.status : (d as A2AAgentStatus);
  const c = status.conditions?.find((x) => x.type === type);
  assert.ok(c, `condition ${type} missing`);
  return c;
}

/** "Type=Status/Reason" for every condition, in order. */
function summary(d: Decision): string[] {
  return (d.status.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`);
}

function endpoints(d: Decision): Record<string, string[]> {
  assert.ok(d.routing, 'expected a routing decision');
  return Object.fromEntries(d.routing.plan.endpoints);
}

const card = okCard(v1Raw());
const K = keys(parsed(v1Raw()));
const healthyPods = (): PodObservation[] => ['a', 'b', 'c'].map((n) => pod(n, card, allVerified));
const uids = (...names: string[]): string[] => names.map((n) => `uid-${n}`);

/** For every advertised key and every pod the plan routes that key's port to, the pod verifies it. */
function decideInvariantViolations(inp: DecideInput, d: Decision): string[] {
  if (!d.routing) return [];
  const ref = d.routing.pods.find((p) => p.card?.ok && p.card.digest === d.routing!.digest);
  if (!ref?.card?.ok)
    return d.routing.plan.advertised.length > 0 ? ['advertised without a reference card'] : [];
  const mapped = mapInterfaces(ref.card.card, {
    spec: inp.spec,
    namespace: inp.namespace,
    serviceName: inp.name,
  });
  const byUid = new Map(inp.pods.map((p) => [p.pod.uid, p]));
  const auth = inp.spec.routing.authRequired === 'Advertise';
  const out: string[] = [];
  for (const key of d.routing.plan.advertised) {
    const m = mapped.find((x) => x.key === key);
    if (!m?.mapped) {
      out.push(`${key} advertised but not mapped`);
      continue;
    }
    for (const uid of d.routing.plan.endpoints.get(m.port.name) ?? []) {
      const p = byUid.get(uid);
      if (!p?.pod.candidate) out.push(`${uid} routed but not a candidate`);
      const state = p?.verdicts.get(key)?.state;
      if (!acceptable(state, auth))
        out.push(`${key} advertised, ${uid} routed on ${m.port.name} has ${state}`);
    }
  }
  if (d.routing.card) {
    const again = parsed(d.routing.card.card);
    for (const i of again.interfaces) {
      if (!d.routing.plan.advertised.includes(interfaceKey(i)))
        out.push(`advertised card lists ${interfaceKey(i)}`);
    }
  }
  return out;
}

describe('decide: healthy agent', () => {
  const d = decide(input({ pods: healthyPods() }));

  it('every condition written, in order, with the positive polarity', () => {
    assert.deepEqual(summary(d), [
      'Ready=True/Succeeded',
      'CardValid=True/CardValid',
      'InterfacesVerified=True/AllVerified',
      'PodsConsistent=True/Consistent',
      'Advertised=True/RoutingApplied',
      'Reconciling=False/Settled',
      'Stalled=False/Succeeded',
    ]);
    assert.equal(cond(d, 'Ready').message, '3/3 interfaces verified on 3 pods, 3 advertised');
  });

  it('observedGeneration on status and on every condition; lastTransitionTime is now on the first visit', () => {
    assert.equal(d.status.observedGeneration, 4);
    for (const c of d.status.conditions!) {
      assert.equal(c.observedGeneration, 4, c.type);
      assert.equal(c.lastTransitionTime, NOW.toISOString(), c.type);
    }
    assert.equal(d.status.lastTransitionProbeTime, NOW.toISOString());
  });

  it('status: verified 3/3, card shape/digest/podsConsistent, advertised with the first interface preferred', () => {
    assert.equal(d.status.verified, '3/3');
    assert.deepEqual(d.status.card, { shape: 'v1.0', digest: cardDigest(v1Raw()), podsConsistent: '3/3' });
    assert.deepEqual(d.status.advertised, {
      interfaces: 3,
      preferred: { url: 'http://agent.internal:8080/a2a', protocolBinding: 'JSONRPC' },
      configMapName: 'billing-agent-card',
      signatures: 'None',
    });
  });

  it('status.interfaces: one per declared interface in card order, verified on 3/3, advertised', () => {
    assert.deepEqual(
      d.status.interfaces!.map((i) => [
        i.protocolBinding,
        i.url,
        i.protocolVersion,
        i.state,
        i.verifiedPods,
        i.advertised,
      ]),
      [
        ['JSONRPC', 'http://agent.internal:8080/a2a', '1.0', 'Verified', '3/3', true],
        ['HTTP+JSON', 'http://agent.internal:8080/rest', '1.0', 'Verified', '3/3', true],
        ['GRPC', 'http://agent.internal:9090', '1.0', 'Verified', '3/3', true],
      ],
    );
    for (const i of d.status.interfaces!) {
      assert.equal(i.lastTransitionTime, NOW.toISOString());
      assert.match(i.message, /answered as served .* on 3\/3 pods/);
    }
  });

  it('routing: everything advertised, both ports to all 3 pods, the advertised card is the pod card', () => {
    assert.deepEqual(d.routing!.plan.advertised, K);
    assert.deepEqual(endpoints(d), { http: uids('a', 'b', 'c'), grpc: uids('a', 'b', 'c') });
    assert.equal(d.routing!.digest, cardDigest(v1Raw()));
    assert.deepEqual(d.routing!.card!.card, v1Raw());
    assert.equal(d.routing!.card!.changed, false);
  });

  it('gates: True on every pod', () => {
    assert.deepEqual(
      d.gates.map((g) => [g.pod, g.status, g.reason]),
      [
        ['a', 'True', 'CardVerified'],
        ['b', 'True', 'CardVerified'],
        ['c', 'True', 'CardVerified'],
      ],
    );
  });

  it('events: one Ready event when the whole agent comes up, none per interface', () => {
    assert.deepEqual(
      d.events.map((e) => [e.type, e.reason]),
      [['Normal', 'Succeeded']],
    );
    assert.match(d.events[0]!.message, /^3\/3 interfaces verified on 3 pods/);
  });

  it('routing.serviceName does not change the ConfigMap name (<name>-agent-card)', () => {
    const d2 = decide(input({ pods: healthyPods(), spec: spec({ routing: { serviceName: 'other' } }) }));
    assert.equal(d2.status.advertised?.configMapName, 'billing-agent-card');
  });
});

describe('decide: the seed scenario (v0.3 card, preferredTransport GRPC at a JSON-RPC url)', () => {
  const seed = okCard(seedRaw(), { cardScheme: 'https' });
  const seedKeys = keys(parsed(seedRaw()));
  // GRPC@8443 WrongBinding, JSONRPC@8443 Verified, GRPC@9443 Unimplemented; all confirmed.
  const pods = ['a', 'b', 'c'].map((n) => pod(n, seed, [S.WrongBinding, V, S.Unimplemented]));
  const d = decide(input({ spec: seedSpec(), pods }));

  it('conditions: CardValid False PreferredTransportMismatch, InterfacesVerified False WrongBinding, Stalled True', () => {
    assert.deepEqual(summary(d), [
      'Ready=False/PreferredTransportMismatch',
      'CardValid=False/PreferredTransportMismatch',
      'InterfacesVerified=False/WrongBinding',
      'PodsConsistent=True/Consistent',
      'Advertised=True/RoutingApplied',
      'Reconciling=False/Settled',
      'Stalled=True/FailureConfirmed',
    ]);
    assert.match(
      cond(d, 'InterfacesVerified').message,
      /^GRPC https:\/\/agent\.internal:8443 \(v0\.3\): .*and 1 more failing/,
    );
    assert.match(cond(d, 'CardValid').message, /Set preferredTransport to JSONRPC/);
    assert.match(
      cond(d, 'Stalled').message,
      /^PreferredTransportMismatch on every ready pod, confirmed by 2 consecutive probes/,
    );
  });

  it('routing: only JSONRPC advertised; grpc routes nowhere, https to every pod', () => {
    assert.deepEqual(d.routing!.plan.advertised, [seedKeys[1]]);
    assert.deepEqual(endpoints(d), { https: uids('a', 'b', 'c'), grpc: [] });
  });

  it('the advertised card names JSONRPC@8443 in url/preferredTransport and additionalInterfaces', () => {
    const out = d.routing!.card!;
    assert.equal(out.card.url, 'https://agent.internal:8443');
    assert.equal(out.card.preferredTransport, 'JSONRPC');
    assert.deepEqual(out.card.additionalInterfaces, [
      { url: 'https://agent.internal:8443', transport: 'JSONRPC' },
    ]);
    assert.equal(out.signatures, 'None');
  });

  it('status: interfaces in card order with their states, verified 1/3, preferred JSONRPC', () => {
    assert.deepEqual(
      d.status.interfaces!.map(
        (i) => `${i.protocolBinding}@${i.url}=${i.state}/${i.verifiedPods}/${i.advertised}`,
      ),
      [
        'GRPC@https://agent.internal:8443=WrongBinding/0/3/false',
        'JSONRPC@https://agent.internal:8443=Verified/3/3/true',
        'GRPC@https://agent.internal:9443=Unimplemented/0/3/false',
      ],
    );
    assert.equal(d.status.verified, '1/3');
    assert.equal(d.status.card?.shape, 'v0.3');
    assert.deepEqual(d.status.advertised?.preferred, {
      url: 'https://agent.internal:8443',
      protocolBinding: 'JSONRPC',
    });
    assert.equal(d.status.advertised?.interfaces, 1);
  });

  it('gates False with the first failing interface in card order; Warning events', () => {
    assert.deepEqual(
      d.gates.map((g) => `${g.pod}=${g.status}/${g.reason}`),
      ['a=False/WrongBinding', 'b=False/WrongBinding', 'c=False/WrongBinding'],
    );
    assert.deepEqual(
      d.events.map((e) => `${e.type}/${e.reason}`),
      [
        'Warning/PreferredTransportMismatch',
        'Warning/WrongBinding',
        'Normal/InterfaceVerified',
        'Warning/InterfaceUnimplemented',
      ],
    );
  });
});

describe('decide: probing, pending and confirmation', () => {
  it('unconfirmed failure of a never-verified interface: Reconciling True, Stalled False, not advertised', () => {
    const pods = ['a', 'b', 'c'].map((n) =>
      pod(n, card, [V, V, { state: S.Unimplemented, failures: 1, confirmed: false }]),
    );
    const d = decide(input({ pods }));
    assert.deepEqual(summary(d), [
      'Ready=False/InterfaceUnimplemented',
      'CardValid=True/CardValid',
      'InterfacesVerified=False/InterfaceUnimplemented',
      'PodsConsistent=True/Consistent',
      'Advertised=True/RoutingApplied',
      'Reconciling=True/Probing',
      'Stalled=False/Probing',
    ]);
    assert.equal(cond(d, 'Reconciling').message, 'probing interfaces and confirming failures');
    assert.deepEqual(d.routing!.plan.advertised, K.slice(0, 2));
    assert.deepEqual(endpoints(d).grpc, []);
  });

  it('the same failure confirmed: Stalled True FailureConfirmed, Reconciling False', () => {
    const pods = ['a', 'b', 'c'].map((n) => pod(n, card, [V, V, S.Unimplemented]));
    const d = decide(input({ pods }));
    assert.equal(cond(d, 'Stalled').status, 'True');
    assert.equal(cond(d, 'Stalled').reason, 'FailureConfirmed');
    assert.equal(cond(d, 'Reconciling').status, 'False');
  });

  it('a failure confirmed on one pod but not yet on another: still Reconciling, not Stalled', () => {
    const pods = [
      pod('a', card, [V, V, S.Unimplemented]),
      pod('b', card, [V, V, { state: S.Unimplemented, confirmed: false, failures: 1 }]),
    ];
    const d = decide(input({ pods }));
    assert.equal(cond(d, 'Reconciling').status, 'True');
    assert.equal(cond(d, 'Stalled').status, 'False');
  });

  it('a verified interface with a pending (unconfirmed) failure stays Verified and advertised; status says so', () => {
    const flap = { state: V, failures: 1, pendingFailure: { state: S.Timeout, message: 'no answer in 3s' } };
    const pods = [pod('a', card, [V, V, flap]), pod('b', card, allVerified)];
    const d = decide(input({ pods }));
    assert.equal(cond(d, 'Ready').status, 'True');
    assert.deepEqual(endpoints(d).grpc, uids('a', 'b'));
    assert.match(d.status.interfaces![2]!.message, /confirming a failure on a \(1 so far: no answer in 3s\)/);
    assert.equal(d.gates.find((g) => g.pod === 'a')?.status, 'True');
  });

  it('pending (no verdict yet): routing undefined (fail static), Advertised Unknown, Ready Unknown, no gates', () => {
    const pods = ['a', 'b', 'c'].map((n) => pod(n, card, []));
    const d = decide(input({ pods }));
    assert.equal(d.routing, undefined);
    assert.deepEqual(summary(d), [
      'Ready=Unknown/ProbePending',
      'CardValid=True/CardValid',
      'InterfacesVerified=Unknown/ProbePending',
      'PodsConsistent=True/Consistent',
      'Advertised=Unknown/Probing',
      'Reconciling=True/Probing',
      'Stalled=False/Probing',
    ]);
    assert.deepEqual(
      d.status.interfaces!.map((i) => [i.state, i.verifiedPods, i.advertised]),
      [
        ['Pending', '0/3', false],
        ['Pending', '0/3', false],
        ['Pending', '0/3', false],
      ],
    );
    assert.equal(d.status.advertised, undefined);
    assert.deepEqual(d.gates, []);
    assert.deepEqual(d.events, [], 'Unknown Ready and Pending interfaces emit nothing');
  });

  it('one interface pending on one pod is enough to hold routing', () => {
    const pods = [pod('a', card, allVerified), pod('b', card, [V, V, S.Pending])];
    const d = decide(input({ pods }));
    assert.equal(d.routing, undefined);
    assert.equal(cond(d, 'Advertised').status, 'Unknown');
    assert.equal(
      d.gates.find((g) => g.pod === 'b'),
      undefined,
      'gate skipped while pending',
    );
    assert.equal(d.gates.find((g) => g.pod === 'a')?.status, 'True');
  });

  it('after a restart (memory empty) the previous advertisement is kept as it was', () => {
    const before = decide(input({ pods: healthyPods() })).status;
    const d = decide(
      input({ pods: ['a', 'b', 'c'].map((n) => pod(n, card, [])), previous: before, now: LATER }),
    );
    assert.equal(d.routing, undefined);
    assert.deepEqual(
      d.status.interfaces!.map((i) => i.advertised),
      [true, true, true],
    );
    assert.deepEqual(d.status.advertised, before.advertised);
    assert.equal(cond(d, 'Advertised').status, 'Unknown');
  });

  it('cards not fetched yet: Reconciling True "fetching cards", routing undefined', () => {
    const d = decide(input({ pods: [pod('a', undefined), pod('b', undefined)] }));
    assert.equal(d.routing, undefined);
    assert.equal(cond(d, 'Reconciling').status, 'True');
    assert.equal(cond(d, 'Reconciling').message, 'fetching cards');
    assert.equal(cond(d, 'CardValid').status, 'Unknown');
    assert.deepEqual(d.gates, []);
    assert.deepEqual(d.status.card, { podsConsistent: '0/2' });
  });

  it('a pod whose card is fetched but not yet probed (scale-up) keeps the agent Reconciling and is counted', () => {
    const pods = [pod('a', card, allVerified), pod('b', card, allVerified), pod('c', card, [])];
    const d = decide(input({ pods }));
    assert.equal(d.routing, undefined);
    assert.equal(cond(d, 'Reconciling').status, 'True');
    assert.notEqual(cond(d, 'InterfacesVerified').status, 'True');
    assert.equal(d.status.interfaces![0]!.verifiedPods, '2/3');
  });

  it('Observe mode: a pod not yet probed does not make the agent Ready', () => {
    const pods = [pod('a', card, allVerified), pod('b', card, allVerified), pod('c', card, [])];
    const d = decide(input({ pods, spec: spec({ routing: { mode: 'Observe' } }) }));
    assert.notEqual(cond(d, 'Ready').status, 'True');
    assert.equal(cond(d, 'Reconciling').status, 'True');
  });
});

describe('decide: mixed pods and auth', () => {
  it('gRPC verified on 2 of 3: grpc endpoints exactly those 2, http all 3; verifiedPods 2/3', () => {
    const pods = [
      pod('a', card, allVerified),
      pod('b', card, [V, V, S.Unimplemented]),
      pod('c', card, allVerified),
    ];
    const d = decide(input({ pods }));
    assert.deepEqual(endpoints(d), { http: uids('a', 'b', 'c'), grpc: uids('a', 'c') });
    assert.deepEqual(d.routing!.plan.advertised, K);
    const grpc = d.status.interfaces![2]!;
    assert.equal(grpc.state, 'Unimplemented');
    assert.equal(grpc.verifiedPods, '2/3');
    assert.equal(grpc.advertised, true, 'advertised: served by the pods grpc routes to');
    assert.match(grpc.message, /on 1\/3 pods \(b\); verified on a, c$/);
    assert.equal(cond(d, 'InterfacesVerified').reason, 'InterfaceUnimplemented');
    assert.deepEqual(
      d.gates.map((g) => `${g.pod}=${g.status}/${g.reason}`),
      ['a=True/CardVerified', 'b=False/InterfaceUnimplemented', 'c=True/CardVerified'],
    );
    assert.deepEqual(decideInvariantViolations(input({ pods }), d), []);
  });

  it('the most common failure names the interface; ties go to the first pod', () => {
    const pods = [
      pod('a', card, [V, V, S.Timeout]),
      pod('b', card, [V, V, S.Unreachable]),
      pod('c', card, [V, V, S.Unreachable]),
      pod('d', card, [V, V, S.Timeout]),
      pod('e', card, [V, V, S.Unreachable]),
    ];
    const d = decide(input({ pods }));
    assert.equal(d.status.interfaces![2]!.state, 'Unreachable');
    assert.match(d.status.interfaces![2]!.message, /on 3\/5 pods \(b, c, e\); Timeout on a, d$/);
    const tie = decide(input({ pods: pods.slice(0, 2) }));
    assert.equal(tie.status.interfaces![2]!.state, 'Timeout');
  });

  for (const policy of ['Advertise', 'Withdraw'] as const) {
    it(`gRPC answers UNAUTHENTICATED on every pod, authRequired ${policy}`, () => {
      const pods = ['a', 'b', 'c'].map((n) => pod(n, card, [V, V, S.AuthRequired]));
      const d = decide(input({ pods, spec: spec({ routing: { authRequired: policy } }) }));
      const adv = policy === 'Advertise';
      assert.deepEqual(d.routing!.plan.advertised, adv ? K : K.slice(0, 2));
      assert.deepEqual(endpoints(d).grpc, adv ? uids('a', 'b', 'c') : []);
      assert.equal(d.status.interfaces![2]!.state, 'AuthRequired');
      assert.equal(d.status.interfaces![2]!.advertised, adv);
      assert.equal(d.status.advertised?.interfaces, adv ? 3 : 2);
      assert.equal(cond(d, 'InterfacesVerified').reason, 'InterfaceAuthRequired');
      assert.equal(cond(d, 'InterfacesVerified').status, 'False');
      assert.deepEqual(
        d.gates.map((g) => `${g.status}/${g.reason}`),
        adv
          ? ['True/CardVerified', 'True/CardVerified', 'True/CardVerified']
          : Array(3).fill('False/InterfaceAuthRequired'),
      );
      // Advertise accepts AuthRequired: the pods are not failing, so nothing stalls a pipeline.
      const stalled = cond(d, 'Stalled');
      assert.equal(
        `${stalled.status}/${stalled.reason}`,
        adv ? 'False/InterfaceAuthRequired' : 'True/FailureConfirmed',
      );
      const onOne = decide(
        input({
          pods: [pod('a', card, allVerified), pod('b', card, allVerified), pods[2]!],
          spec: spec({ routing: { authRequired: policy } }),
        }),
      );
      assert.equal(cond(onOne, 'PodsConsistent').reason, adv ? 'Consistent' : 'PartialFailure');
    });
  }
});

describe('decide: card consistency and card failures', () => {
  const cardB = okCard(
    v1Raw({
      description: 'pays bills, v2',
      supportedInterfaces: (v1Raw().supportedInterfaces as unknown[]).slice(0, 2),
    }),
  );
  const digestA = cardDigest(v1Raw());
  const digestB = (cardB as { digest: string }).digest;

  it('CardDiverged: PodsConsistent False naming both digests; the majority card is the reference', () => {
    // Minority pod first in the list, so "majority" is not "first".
    const pods = [pod('c', cardB, [V, V]), pod('a', card, allVerified), pod('b', card, allVerified)];
    const d = decide(input({ pods }));
    const pc = cond(d, 'PodsConsistent');
    assert.equal(pc.status, 'False');
    assert.equal(pc.reason, 'CardDiverged');
    assert.ok(pc.message.includes(digestA) && pc.message.includes(digestB), pc.message);
    assert.ok(pc.message.indexOf(digestA) < pc.message.indexOf(digestB), 'majority first');
    assert.match(pc.message, /served by 2 \(a, b\).*served by 1 \(c\)/);
    assert.deepEqual(d.status.card, { shape: 'v1.0', digest: digestA, podsConsistent: '2/3' });
    assert.equal(d.routing!.digest, digestA);
    assert.equal(cond(d, 'Ready').reason, 'CardDiverged');
    // Pod c verifies what its card declares: http to all three, grpc only where it is declared.
    assert.deepEqual(endpoints(d), { http: uids('c', 'a', 'b'), grpc: uids('a', 'b') });
    assert.deepEqual(decideInvariantViolations(input({ pods }), d), []);
  });

  it('CardDiverged during a rollout is Reconciling (rolling), not Stalled', () => {
    const pods = [pod('a', card, allVerified), pod('b', card, allVerified), pod('c', cardB, [V, V])];
    const d = decide(input({ pods }));
    assert.equal(cond(d, 'Stalled').status, 'False');
    assert.equal(cond(d, 'Reconciling').status, 'True');
  });

  it('on a tie the reference card does not depend on the order the pods are listed in', () => {
    const X = card;
    const Y = cardB;
    const orders: [string, typeof X][][] = [
      [
        ['c', X],
        ['d', Y],
        ['a', X],
        ['b', Y],
      ],
      [
        ['a', X],
        ['b', Y],
        ['c', X],
        ['d', Y],
      ],
      [
        ['b', Y],
        ['c', X],
        ['a', X],
        ['d', Y],
      ],
    ];
    const digests = orders.map(
      (o) =>
        decide(input({ pods: o.map(([n, c]) => pod(n, c, c === X ? allVerified : [V, V])) })).status.card
          ?.digest,
    );
    assert.equal(new Set(digests).size, 1, digests.join(' / '));
  });

  it('card fetch failure on one pod: CardValid False naming it; that pod routes nowhere and its gate is False', () => {
    const pods = [pod('a', card, allVerified), pod('b', card, allVerified), pod('c', failedCard())];
    const d = decide(input({ pods }));
    const cv = cond(d, 'CardValid');
    assert.equal(cv.status, 'False');
    assert.equal(cv.reason, 'CardFetchFailed');
    assert.match(cv.message, /ECONNREFUSED \(1\/3 pods: c\)$/);
    assert.equal(cond(d, 'Ready').reason, 'CardFetchFailed');
    assert.deepEqual(d.routing!.plan.advertised, K);
    assert.deepEqual(endpoints(d), { http: uids('a', 'b'), grpc: uids('a', 'b') });
    assert.equal(d.status.card?.podsConsistent, '2/3');
    assert.deepEqual(
      d.gates.map((g) => `${g.pod}=${g.status}/${g.reason}`),
      ['a=True/CardVerified', 'b=True/CardVerified', 'c=False/CardFetchFailed'],
    );
  });

  it('an unconfirmed card fetch failure keeps the agent Reconciling; a confirmed one on 1/3 pods is a PartialFailure, stalling only with failOn AnyPod', () => {
    const pods = [
      pod('a', card, allVerified),
      pod('b', card, allVerified),
      pod('c', failedCard(undefined, false)),
    ];
    const d = decide(input({ pods }));
    assert.equal(cond(d, 'CardValid').reason, 'CardFetchFailed');
    assert.equal(cond(d, 'Reconciling').status, 'True');
    assert.equal(cond(d, 'Stalled').status, 'False');
    const confirmedPods = [pods[0]!, pods[1]!, pod('c', failedCard())];
    const confirmed = decide(input({ pods: confirmedPods }));
    assert.equal(cond(confirmed, 'Reconciling').status, 'False');
    assert.equal(cond(confirmed, 'Stalled').status, 'False');
    assert.equal(cond(confirmed, 'Stalled').reason, 'PartialFailure');
    assert.equal(cond(confirmed, 'PodsConsistent').reason, 'PartialFailure');
    const anyPod = decide(
      input({ pods: confirmedPods, spec: spec({ probe: { ...spec().probe, failOn: 'AnyPod' } }) }),
    );
    assert.equal(cond(anyPod, 'Stalled').status, 'True');
    assert.equal(cond(anyPod, 'Stalled').reason, 'FailureConfirmed');
  });

  it('card fetch failure on every pod: nothing advertised, every port routes nowhere, no card', () => {
    const pods = ['a', 'b', 'c'].map((n) => pod(n, failedCard()));
    const d = decide(input({ pods }));
    assert.deepEqual(d.routing!.plan.advertised, []);
    assert.deepEqual(endpoints(d), { http: [], grpc: [] });
    assert.equal(d.routing!.card, undefined);
    assert.deepEqual(summary(d).slice(0, 5), [
      'Ready=False/CardFetchFailed',
      'CardValid=False/CardFetchFailed',
      'InterfacesVerified=Unknown/Probing',
      'PodsConsistent=Unknown/Probing',
      'Advertised=False/NoVerifiedInterface',
    ]);
    assert.match(cond(d, 'CardValid').message, /\(3\/3 pods: a, b, c\)$/);
    assert.deepEqual(d.status.advertised, {
      interfaces: 0,
      configMapName: 'billing-agent-card',
      signatures: 'None',
    });
    assert.deepEqual(d.status.card, { podsConsistent: '0/3' });
    assert.deepEqual(d.status.interfaces, []);
    assert.equal(d.status.verified, '0/0');
  });

  it('static findings from any pod make CardValid False; the first finding names the reason', () => {
    const bad = okCard(
      v1Raw({
        supportedInterfaces: [
          { url: 'http://agent.internal:8080/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: 'http://agent.internal:8080/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
      }),
    );
    const d = decide(input({ pods: [pod('a', bad, [V, V])] }));
    assert.equal(cond(d, 'CardValid').reason, 'DuplicateInterface');
    assert.equal(cond(d, 'Ready').reason, 'DuplicateInterface');
  });

  it('a static card finding on every pod stalls as a static finding, not "confirmed by N consecutive probes"', () => {
    const finding = {
      reason: 'PreferredTransportMismatch',
      message: 'preferredTransport GRPC is not declared',
    };
    const mismatched = card.ok ? { ...card, findings: [finding] } : card;
    const d = decide(input({ pods: ['a', 'b', 'c'].map((n) => pod(n, mismatched, allVerified)) }));
    assert.equal(cond(d, 'Ready').reason, 'PreferredTransportMismatch');
    assert.equal(cond(d, 'Stalled').reason, 'FailureConfirmed');
    assert.match(cond(d, 'Stalled').message, /a static finding in the card/);
    assert.doesNotMatch(cond(d, 'Stalled').message, /consecutive probes/);
    const probed = decide(input({ pods: ['a', 'b', 'c'].map((n) => pod(n, failedCard())) }));
    assert.match(cond(probed, 'Stalled').message, /confirmed by \d+ consecutive probes/);
  });
});

describe('decide: spec, mode, conflicts, no pods', () => {
  it('spec problem: Stalled True with that reason, Reconciling False, Ready False, routing undefined', () => {
    const problems = [
      { reason: 'SecretNotFound', message: 'Secret billing-probe not found' },
      { reason: 'PortNotFound', message: 'card.port names no port' },
    ];
    const d = decide(input({ pods: healthyPods(), specProblems: problems }));
    assert.equal(d.routing, undefined);
    assert.equal(cond(d, 'Ready').status, 'False');
    assert.equal(cond(d, 'Ready').reason, 'SecretNotFound');
    assert.equal(cond(d, 'Stalled').status, 'True');
    assert.equal(cond(d, 'Stalled').reason, 'SecretNotFound');
    assert.equal(cond(d, 'Stalled').message, 'Secret billing-probe not found; card.port names no port');
    assert.equal(cond(d, 'Reconciling').status, 'False');
    assert.equal(cond(d, 'Advertised').status, 'Unknown');
  });

  it('a signing key that cannot sign: Advertised False SigningKeyInvalid, full routing held, shrink still decided', () => {
    const problems = [
      { reason: 'SigningKeyInvalid', message: 'spec.routing.signingKey: the signing key is a public JWK' },
    ];
    const d = decide(input({ pods: healthyPods(), specProblems: problems, current: { slices: [] } }));
    assert.equal(d.routing, undefined);
    assert.ok(d.shrink, 'withdrawals are still decided');
    assert.equal(cond(d, 'Advertised').status, 'False');
    assert.equal(cond(d, 'Advertised').reason, 'SigningKeyInvalid');
    assert.match(cond(d, 'Advertised').message, /public JWK.*only withdrawals apply/);
    assert.equal(cond(d, 'Stalled').reason, 'SigningKeyInvalid');
  });

  it('held full routing does not claim routing is unchanged (a shrink may apply)', () => {
    const d = decide(
      input({ pods: healthyPods(), specProblems: [{ reason: 'SecretNotFound', message: 'x' }] }),
    );
    assert.equal(cond(d, 'Advertised').status, 'Unknown');
    assert.match(cond(d, 'Advertised').message, /withdrawals still apply/);
    assert.doesNotMatch(cond(d, 'Advertised').message, /unchanged/);
  });

  it('Observe mode: Advertised True ObserveMode, routing undefined, nothing advertised in status, Ready True', () => {
    const prev = decide(input({ pods: healthyPods() })).status;
    const d = decide(
      input({ pods: healthyPods(), spec: spec({ routing: { mode: 'Observe' } }), previous: prev }),
    );
    assert.equal(d.routing, undefined);
    assert.equal(cond(d, 'Advertised').status, 'True');
    assert.equal(cond(d, 'Advertised').reason, 'ObserveMode');
    assert.equal(cond(d, 'Ready').status, 'True');
    assert.equal(d.status.advertised, undefined);
    assert.ok(d.status.interfaces!.every((i) => !i.advertised));
    assert.equal(d.status.verified, '3/3');
  });

  it('serviceConflict: Advertised False ServiceConflict, routing undefined', () => {
    const msg = 'Service payments/billing exists and is not managed by a2a.dev/operator';
    const d = decide(input({ pods: healthyPods(), serviceConflict: msg }));
    assert.equal(d.routing, undefined);
    assert.equal(cond(d, 'Advertised').status, 'False');
    assert.equal(cond(d, 'Advertised').reason, 'ServiceConflict');
    assert.equal(cond(d, 'Advertised').message, msg);
    assert.equal(cond(d, 'Ready').reason, 'ServiceConflict');
  });

  it('no candidate pods: Ready False NoReadyPods; PodNotServing gates; terminating pods left alone', () => {
    const pods = [
      pod('a', undefined, [], { candidate: false }),
      pod('b', undefined, [], { candidate: false }),
      pod('c', undefined, [], { candidate: false, terminating: true }),
    ];
    const d = decide(input({ pods }));
    assert.equal(cond(d, 'Ready').status, 'False');
    assert.equal(cond(d, 'Ready').reason, 'NoReadyPods');
    assert.match(cond(d, 'Ready').message, /\(3 selected\)/);
    assert.equal(cond(d, 'CardValid').reason, 'NoReadyPods');
    assert.equal(cond(d, 'PodsConsistent').reason, 'NoReadyPods');
    assert.equal(cond(d, 'InterfacesVerified').reason, 'NoReadyPods');
    assert.equal(cond(d, 'Stalled').status, 'False');
    assert.deepEqual(
      d.gates.map((g) => `${g.pod}=${g.status}/${g.reason}`),
      ['a=False/PodNotServing', 'b=False/PodNotServing'],
    );
    assert.deepEqual(d.status.card, { podsConsistent: '0/0' });
  });

  it('no pods selected at all: Ready False NoReadyPods (0 selected)', () => {
    const d = decide(input({ pods: [] }));
    assert.equal(cond(d, 'Ready').reason, 'NoReadyPods');
    assert.match(cond(d, 'Ready').message, /\(0 selected\)/);
  });

  it('a non-candidate pod with old verdicts is never routed', () => {
    const pods = [pod('a', card, allVerified), pod('b', card, allVerified, { candidate: false })];
    const d = decide(input({ pods }));
    assert.deepEqual(endpoints(d), { http: uids('a'), grpc: uids('a') });
    assert.equal(d.status.card?.podsConsistent, '1/1');
  });
});

describe('decide: readiness gates', () => {
  const cases: { name: string; pod: PodObservation; gate?: string }[] = [
    { name: 'all verified → True', pod: pod('p', card, allVerified), gate: 'True/CardVerified' },
    {
      name: 'one unverified → False with its reason',
      pod: pod('p', card, [V, S.WrongBinding, V]),
      gate: 'False/WrongBinding',
    },
    {
      name: 'first unverified in card order wins',
      pod: pod('p', card, [V, S.Timeout, S.WrongBinding]),
      gate: 'False/Timeout',
    },
    { name: 'a verdict missing → no decision', pod: pod('p', card, [V, V]) },
    { name: 'a verdict Pending → no decision', pod: pod('p', card, [V, V, S.Pending]) },
    { name: 'card not fetched → no decision', pod: pod('p', undefined) },
    { name: 'card fetch failed → False', pod: pod('p', failedCard()), gate: 'False/CardFetchFailed' },
    {
      name: 'not a candidate → PodNotServing',
      pod: pod('p', card, allVerified, { candidate: false }),
      gate: 'False/PodNotServing',
    },
    {
      name: 'terminating → no decision',
      pod: pod('p', card, allVerified, { candidate: false, terminating: true }),
    },
    {
      name: 'unchanged True gate → no decision',
      pod: pod('p', card, allVerified, {
        gate: {
          status: 'True',
          reason: 'CardVerified',
          message: "all 3 interfaces this pod's card declares are verified on it",
        },
      }),
    },
    {
      name: 'True gate with another message → rewritten',
      pod: pod('p', card, allVerified, { gate: { status: 'True', reason: 'CardVerified', message: 'old' } }),
      gate: 'True/CardVerified',
    },
    {
      name: 'False gate → True',
      pod: pod('p', card, allVerified, { gate: { status: 'False', reason: 'WrongBinding', message: 'x' } }),
      gate: 'True/CardVerified',
    },
    {
      name: 'unchanged PodNotServing → no decision',
      pod: pod('p', undefined, [], {
        candidate: false,
        gate: {
          status: 'False',
          reason: 'PodNotServing',
          message: 'pod is not running with ready containers; not probed',
        },
      }),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decide(input({ pods: [c.pod] }));
      assert.deepEqual(
        d.gates.map((g) => `${g.status}/${g.reason}`),
        c.gate ? [c.gate] : [],
      );
      if (c.gate) assert.equal(d.gates[0]!.pod, 'p');
    });
  }

  it("the gate covers every interface the pod's own card declares, not the reference card's", () => {
    const small = okCard(
      v1Raw({ supportedInterfaces: (v1Raw().supportedInterfaces as unknown[]).slice(0, 1) }),
    );
    const pods = [
      pod('a', card, [V, V, S.Unimplemented]),
      pod('b', card, [V, V, S.Unimplemented]),
      pod('c', small, [V]),
    ];
    const d = decide(input({ pods }));
    assert.deepEqual(
      d.gates.map((g) => `${g.pod}=${g.status}`),
      ['a=False', 'b=False', 'c=True'],
    );
  });

  it('an unmapped interface on the pod card keeps the gate False', () => {
    const raw = v1Raw({
      supportedInterfaces: [
        { url: 'http://agent.internal:8080/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'http://agent.internal:7000/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    });
    const c = okCard(raw);
    const m = mapInterfaces(parsed(raw), { spec: spec(), namespace: 'payments', serviceName: 'billing' });
    const unmapped = m[1]!;
    assert.equal(unmapped.mapped, false);
    const v = unmapped.mapped ? V : staticVerdict(unmapped.state, unmapped.reason, unmapped.message);
    const d = decide(input({ pods: [pod('a', c, [V, v])] }));
    assert.deepEqual(
      d.gates.map((g) => `${g.status}/${g.reason}`),
      ['False/Unmapped'],
    );
  });
});

describe('decide: events and stability', () => {
  it('feeding the previous status back in: no events, status identical except lastTransitionProbeTime', () => {
    const first = decide(input({ pods: healthyPods() }));
    const again = decide(input({ pods: healthyPods(), previous: first.status, now: LATER }));
    assert.deepEqual(again.events, []);
    assert.equal(again.status.lastTransitionProbeTime, LATER.toISOString());
    assert.deepEqual(
      { ...again.status, lastTransitionProbeTime: undefined },
      { ...first.status, lastTransitionProbeTime: undefined },
    );
  });

  it('the same holds for a failing agent (seed scenario)', () => {
    const seed = okCard(seedRaw(), { cardScheme: 'https' });
    const inp = (previous?: A2AAgentStatus, now = NOW): DecideInput =>
      input({
        spec: seedSpec(),
        pods: ['a', 'b'].map((n) => pod(n, seed, [S.WrongBinding, V, S.Unimplemented])),
        ...(previous ? { previous } : {}),
        now,
      });
    const first = decide(inp());
    const again = decide(inp(first.status, LATER));
    assert.deepEqual(again.events, []);
    assert.deepEqual(
      { ...again.status, lastTransitionProbeTime: undefined },
      { ...first.status, lastTransitionProbeTime: undefined },
    );
  });

  it('an interface breaking: Warning events for it and for Ready; lastTransitionTime moves only where status flipped', () => {
    const first = decide(input({ pods: healthyPods() }));
    const broken = ['a', 'b', 'c'].map((n) => pod(n, card, [V, V, S.WrongBinding]));
    const d = decide(input({ pods: broken, previous: first.status, now: LATER }));
    assert.deepEqual(
      d.events.map((e) => `${e.type}/${e.reason}`),
      ['Warning/WrongBinding', 'Warning/WrongBinding'],
    );
    assert.match(
      d.events[1]!.message,
      /^GRPC http:\/\/agent\.internal:9090 \(v1\.0\): Verified → WrongBinding: /,
    );
    const t = (type: string): string => cond(d, type).lastTransitionTime;
    assert.equal(t('Ready'), LATER.toISOString());
    assert.equal(t('InterfacesVerified'), LATER.toISOString());
    assert.equal(t('Stalled'), LATER.toISOString());
    assert.equal(t('CardValid'), NOW.toISOString());
    assert.equal(t('PodsConsistent'), NOW.toISOString());
    assert.equal(t('Advertised'), NOW.toISOString());
    assert.equal(t('Reconciling'), NOW.toISOString(), 'False → False');
    assert.deepEqual(
      d.status.interfaces!.map((i) => i.lastTransitionTime),
      [NOW.toISOString(), NOW.toISOString(), LATER.toISOString()],
    );
    // And recovering.
    const healed = decide(
      input({ pods: healthyPods(), previous: d.status, now: new Date(LATER.getTime() + 1000) }),
    );
    assert.deepEqual(
      healed.events.map((e) => `${e.type}/${e.reason}`),
      ['Normal/Succeeded', 'Normal/InterfaceVerified'],
    );
  });

  it('Ready reason change with the same status: an event, but lastTransitionTime kept', () => {
    const p1 = ['a', 'b'].map((n) => pod(n, card, [V, V, S.WrongBinding]));
    const p2 = ['a', 'b'].map((n) => pod(n, card, [V, V, S.Unimplemented]));
    const first = decide(input({ pods: p1 }));
    const d = decide(input({ pods: p2, previous: first.status, now: LATER }));
    assert.deepEqual(
      d.events.map((e) => `${e.type}/${e.reason}`),
      ['Warning/InterfaceUnimplemented', 'Warning/InterfaceUnimplemented'],
    );
    assert.equal(cond(d, 'Ready').lastTransitionTime, NOW.toISOString());
    assert.equal(cond(d, 'Ready').reason, 'InterfaceUnimplemented');
    assert.equal(d.status.interfaces![2]!.lastTransitionTime, LATER.toISOString());
  });

  it('a new generation updates observedGeneration everywhere without moving lastTransitionTime', () => {
    const first = decide(input({ pods: healthyPods() }));
    const d = decide(input({ pods: healthyPods(), previous: first.status, generation: 5, now: LATER }));
    assert.equal(d.status.observedGeneration, 5);
    for (const c of d.status.conditions!) {
      assert.equal(c.observedGeneration, 5);
      assert.equal(c.lastTransitionTime, NOW.toISOString());
    }
  });

  it('events are bounded: a card of 40 interfaces all failing emits at most 11', () => {
    const raw = v1Raw({
      supportedInterfaces: Array.from({ length: 40 }, (_, i) => ({
        url: `http://agent.internal:8080/i${i}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      })),
    });
    const c = okCard(raw);
    const d = decide(input({ pods: [pod('a', c, Array(40).fill(S.Timeout))] }));
    assert.ok(d.events.length <= 11, `${d.events.length}`);
    assert.ok(d.events.length >= 10);
  });
});

describe('decide: bounded status', () => {
  const failing: VerdictSpec[] = [S.Timeout, S.Unreachable, S.WrongBinding];

  it('200 pods, every interface failing: status stays under 16 KiB and messages name at most 3 pods', () => {
    const pods = Array.from({ length: 200 }, (_, i) => {
      const name = `billing-5f7c9d-${String(i).padStart(5, '0')}`;
      return pod(
        name,
        card,
        failing.map((s, j) =>
          verdict({ state: s as InterfaceState, message: `${String(s)} from ${name} #${j}` }),
        ),
      );
    });
    const d = decide(input({ pods }));
    const size = JSON.stringify(d.status).length;
    assert.ok(size < 16 * 1024, `${size} bytes`);
    const texts = [
      ...d.status.conditions!.map((c) => c.message),
      ...d.status.interfaces!.map((i) => i.message),
    ];
    for (const t of texts) {
      const named = new Set(t.match(/billing-5f7c9d-\d{5}/g) ?? []);
      assert.ok(named.size <= 3, `${named.size} pods named in: ${t}`);
    }
    assert.match(
      d.status.interfaces![0]!.message,
      /on 200\/200 pods \(billing-5f7c9d-00000, billing-5f7c9d-00001, billing-5f7c9d-00002 and 197 more\)/,
    );
    assert.equal(d.gates.length, 200, 'per-pod detail goes to gates, not status');
  });

  it('200 pods with mixed failures and some verified: every pod list in a message names at most 3', () => {
    const states: InterfaceState[] = [S.Timeout, S.Unreachable, V];
    const pods = Array.from({ length: 200 }, (_, i) => pod(`p${i}`, card, [V, V, states[i % 3]!]));
    const d = decide(input({ pods }));
    const msg = d.status.interfaces![2]!.message;
    assert.match(
      msg,
      /on 67\/200 pods \(p0, p3, p6 and 64 more\); Unreachable on p1, p4, p7 and 64 more; verified on p2, p5, p8 and 63 more$/,
    );
    assert.ok(JSON.stringify(d.status).length < 16 * 1024);
  });

  it('200 pods whose card fetch failed: CardValid names 3 pods and counts the rest', () => {
    const pods = Array.from({ length: 200 }, (_, i) => pod(`p${i}`, failedCard()));
    const d = decide(input({ pods }));
    assert.match(cond(d, 'CardValid').message, /\(200\/200 pods: p0, p1, p2 and 197 more\)$/);
    assert.ok(JSON.stringify(d.status).length < 16 * 1024);
  });

  it('200 pods serving 200 different cards: PodsConsistent message clipped', () => {
    const pods = Array.from({ length: 200 }, (_, i) =>
      pod(`p${i}`, okCard(v1Raw({ version: `1.0.${i}` })), allVerified),
    );
    const d = decide(input({ pods }));
    assert.equal(cond(d, 'PodsConsistent').reason, 'CardDiverged');
    assert.ok(cond(d, 'PodsConsistent').message.length <= 4096);
    assert.ok(JSON.stringify(d.status).length < 16 * 1024, `${JSON.stringify(d.status).length}`);
  });

  const hundred = (): { raw: Record<string, unknown>; parsedCard: ParsedCard } => {
    const raw = v1Raw({
      supportedInterfaces: Array.from({ length: 100 }, (_, i) => ({
        url: `http://agent.internal:8080/i${i}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      })),
    });
    return { raw, parsedCard: parsed(raw) };
  };
  /** Verdicts as the reconciler would have them: probes for the first 64, static ones past them. */
  const hundredVerdicts = (c: ParsedCard): VerdictSpec[] =>
    mapInterfaces(c, { spec: spec(), namespace: 'payments', serviceName: 'billing' }).map((m) =>
      m.mapped ? V : staticVerdict(m.state, m.reason, m.message),
    );

  it('a card with 100 interfaces: at most 64 status entries, the rest never advertised', () => {
    const { raw, parsedCard } = hundred();
    const vs = hundredVerdicts(parsedCard);
    assert.equal(vs.filter((v) => v === V).length, MAX_INTERFACES);
    const d = decide(input({ pods: ['a', 'b'].map((n) => pod(n, okCard(raw), vs)) }));
    assert.equal(d.status.interfaces!.length, MAX_INTERFACES);
    assert.equal(d.routing!.plan.advertised.length, MAX_INTERFACES);
    assert.ok(JSON.stringify(d.status).length < 64 * 1024);
    assert.deepEqual(
      decideInvariantViolations(input({ pods: ['a', 'b'].map((n) => pod(n, okCard(raw), vs)) }), d),
      [],
    );
  });

  it('a card with 100 interfaces, 36 of them never probed, is not Ready', () => {
    const { raw, parsedCard } = hundred();
    const d = decide(
      input({ pods: ['a', 'b'].map((n) => pod(n, okCard(raw), hundredVerdicts(parsedCard))) }),
    );
    assert.notEqual(cond(d, 'InterfacesVerified').status, 'True');
    assert.notEqual(cond(d, 'Ready').status, 'True');
  });
});

describe('decide: port mapping', () => {
  const ctx = (s = spec()) => ({ spec: s, namespace: 'payments', serviceName: 'billing' });
  const one = (url: string, binding = 'JSONRPC') =>
    parsed({ name: 'x', supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: '1.0' }] });

  const cases: { name: string; url: string; binding?: string; hosts?: string[]; expect: string }[] = [
    { name: 'URL port in spec.ports', url: 'http://agent.internal:8080/a2a', expect: 'mapped:http' },
    { name: 'gRPC port', url: 'http://agent.internal:9090', binding: 'GRPC', expect: 'mapped:grpc' },
    { name: 'bare gRPC host:port', url: 'agent.internal:9090', binding: 'GRPC', expect: 'mapped:grpc' },
    {
      name: 'URL port not in spec.ports → Unmapped',
      url: 'http://agent.internal:7000/a2a',
      expect: 'Unmapped',
    },
    {
      name: 'http URL without port means 80 (not in spec) → Unmapped',
      url: 'http://agent.internal/a2a',
      expect: 'Unmapped',
    },
    {
      name: 'gRPC URL with a path → Ineligible',
      url: 'http://agent.internal:9090/svc',
      binding: 'GRPC',
      expect: 'Ineligible',
    },
    {
      name: 'unknown binding → Ineligible',
      url: 'http://agent.internal:8080/x',
      binding: 'SOAP',
      expect: 'Ineligible',
    },
    {
      name: 'credentials in URL → Ineligible',
      url: 'http://u:p@agent.internal:8080/x',
      expect: 'Ineligible',
    },
    {
      name: 'spec.hosts set, listed host',
      url: 'http://agent.internal:8080/a',
      hosts: ['agent.internal'],
      expect: 'mapped:http',
    },
    {
      name: 'spec.hosts set, Service FQDN',
      url: 'http://billing.payments.svc.cluster.local:8080/a',
      hosts: ['agent.internal'],
      expect: 'mapped:http',
    },
    {
      name: 'spec.hosts set, short Service name',
      url: 'http://billing:8080/a',
      hosts: ['agent.internal'],
      expect: 'mapped:http',
    },
    {
      name: 'spec.hosts set, foreign host → Unmapped',
      url: 'http://evil.example:8080/a',
      hosts: ['agent.internal'],
      expect: 'Unmapped',
    },
    {
      name: 'spec.hosts set, Service of another namespace → Unmapped',
      url: 'http://billing.other.svc:8080/a',
      hosts: ['agent.internal'],
      expect: 'Unmapped',
    },
    {
      name: 'spec.hosts unset, any host maps by port',
      url: 'http://evil.example:8080/a',
      expect: 'mapped:http',
    },
  ];
  for (const c of cases) {
    it(`${c.name}`, () => {
      const s = spec(c.hosts ? { hosts: c.hosts } : {});
      const [m] = mapInterfaces(one(c.url, c.binding), ctx(s));
      assert.ok(m);
      assert.equal(m.mapped ? `mapped:${m.port.name}` : m.state, c.expect, m.mapped ? '' : m.message);
      if (!m.mapped) assert.match(m.message, /never dialled$/);
    });
  }

  it('the Unmapped message lists spec.ports', () => {
    const [m] = mapInterfaces(one('http://agent.internal:7000/a2a'), ctx());
    assert.ok(m && !m.mapped);
    assert.match(m.message, /port 7000 is not one of spec.ports \(http=8080, grpc=9090\)/);
  });

  it('https URL without port maps to 443', () => {
    const s = spec({ ports: [{ name: 'tls', port: 443, targetPort: 8443 }], card: { port: 'tls' } });
    const [m] = mapInterfaces(one('https://agent.internal/a2a'), ctx(s));
    assert.ok(m?.mapped);
    assert.equal(m.port.name, 'tls');
    assert.equal(portForEndpoint(s, m.endpoint)?.port, 443);
  });

  it('interfaces past MAX_INTERFACES are Ineligible and never dialled', () => {
    const c = parsed({
      name: 'x',
      supportedInterfaces: Array.from({ length: MAX_INTERFACES + 2 }, (_, i) => ({
        url: `http://agent.internal:8080/i${i}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      })),
    });
    const m = mapInterfaces(c, ctx());
    assert.ok(m.slice(0, MAX_INTERFACES).every((x) => x.mapped));
    assert.deepEqual(
      m.slice(MAX_INTERFACES).map((x) => (x.mapped ? 'mapped' : x.state)),
      ['Ineligible', 'Ineligible'],
    );
  });

  it('named targetPort resolved via containerPorts; numeric and default targetPort; unknown name undefined', () => {
    assert.equal(
      podPort({ name: 'grpc', port: 9090, targetPort: 'grpc' }, { containerPorts: { grpc: 50051 } }),
      50051,
    );
    assert.equal(
      podPort({ name: 'grpc', port: 9090, targetPort: 'grpc' }, { containerPorts: {} }),
      undefined,
    );
    assert.equal(
      podPort({ name: 'http', port: 80, targetPort: 8080 }, { containerPorts: { http: 1 } }),
      8080,
    );
    assert.equal(podPort({ name: 'http', port: 8080 }, { containerPorts: {} }), 8080);
  });

  it('allowedHosts: undefined without spec.hosts; otherwise every Service DNS form plus spec.hosts', () => {
    assert.equal(allowedHosts(spec(), 'billing', 'payments'), undefined);
    assert.equal(allowedHosts(spec({ hosts: [] }), 'billing', 'payments'), undefined);
    assert.deepEqual(allowedHosts(spec({ hosts: ['agent.internal'] }), 'svc', 'ns'), [
      ...serviceHostNames('svc', 'ns'),
      'agent.internal',
    ]);
    assert.deepEqual(serviceHostNames('svc', 'ns'), [
      'svc',
      'svc.ns',
      'svc.ns.svc',
      'svc.ns.svc.cluster.local',
    ]);
  });

  it('decide never advertises a foreign-host interface, even if a verdict (wrongly) says Verified', () => {
    const raw = v1Raw({
      supportedInterfaces: [
        { url: 'http://evil.example:8080/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'http://agent.internal:8080/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    });
    const c = okCard(raw);
    const s = spec({ hosts: ['agent.internal'] });
    const d = decide(input({ spec: s, pods: [pod('a', c, [V, V])] }));
    assert.deepEqual(d.routing!.plan.advertised, [keys(parsed(raw))[1]]);
    assert.equal(d.status.advertised?.preferred?.url, 'http://agent.internal:8080/rest');
    assert.deepEqual(
      (d.routing!.card!.card.supportedInterfaces as { url: string }[]).map((i) => i.url),
      ['http://agent.internal:8080/rest'],
    );
  });
});

describe('decide: randomized safety invariant (seeded)', () => {
  const states: InterfaceState[] = [
    V,
    V,
    V,
    S.AuthRequired,
    S.Unimplemented,
    S.WrongBinding,
    S.Timeout,
    S.Pending,
  ];
  const cardsPool = [
    okCard(v1Raw()),
    okCard(v1Raw({ supportedInterfaces: (v1Raw().supportedInterfaces as unknown[]).slice(0, 2) })),
    okCard(v1Raw({ supportedInterfaces: [...(v1Raw().supportedInterfaces as unknown[])].reverse() })),
  ];
  const CASES = 1500;

  it(`${CASES} random agents: every routed pod verifies every advertised interface of its port`, () => {
    const random = prng(20300101);
    let routed = 0;
    for (let n = 0; n < CASES; n++) {
      const pods = Array.from({ length: 1 + Math.floor(random() * 5) }, (_, i) => {
        const r = random();
        const c = r < 0.1 ? failedCard() : r < 0.15 ? undefined : pick(random, cardsPool);
        const vs = c?.ok
          ? c.card.interfaces.map(() =>
              random() < 0.05
                ? undefined
                : verdict({ state: pick(random, states), confirmed: random() < 0.7 }),
            )
          : [];
        return pod(`p${i}`, c, vs, { candidate: random() < 0.85 });
      });
      const inp = input({
        pods,
        spec: spec({ routing: { authRequired: random() < 0.5 ? 'Advertise' : 'Withdraw' } }),
      });
      const d = decide(inp);
      if (d.routing && d.routing.plan.advertised.length > 0) routed++;
      assert.deepEqual(decideInvariantViolations(inp, d), [], `case ${n}`);
      // Status agrees with routing.
      if (d.routing) {
        assert.equal(d.status.advertised?.interfaces, d.routing.plan.advertised.length, `case ${n}`);
        for (const i of d.status.interfaces ?? []) {
          assert.equal(i.advertised, d.routing.plan.advertised.includes(interfaceKey(i)), `case ${n}`);
        }
      }
      assert.ok((d.status.interfaces?.length ?? 0) <= MAX_INTERFACES);
      assert.deepEqual(
        d.status.conditions!.map((c) => c.type),
        CONDITION_ORDER,
      );
    }
    assert.ok(routed > CASES / 5, `${routed}`);
  });
});

describe('nextCondition', () => {
  const prev: Condition[] = [
    {
      type: 'Ready',
      status: 'True',
      reason: 'Succeeded',
      message: 'ok',
      observedGeneration: 1,
      lastTransitionTime: '2029-01-01T00:00:00.000Z',
    },
  ];
  it('new condition: lastTransitionTime now', () => {
    const c = nextCondition(
      undefined,
      { type: 'Ready', status: 'Unknown', reason: 'Probing', message: '' },
      3,
      'T',
    );
    assert.deepEqual(c, {
      type: 'Ready',
      status: 'Unknown',
      reason: 'Probing',
      message: '',
      observedGeneration: 3,
      lastTransitionTime: 'T',
    });
  });
  it('same status, other reason/message/generation: lastTransitionTime kept, the rest updated', () => {
    const c = nextCondition(prev, { type: 'Ready', status: 'True', reason: 'Other', message: 'new' }, 2, 'T');
    assert.equal(c.lastTransitionTime, '2029-01-01T00:00:00.000Z');
    assert.equal(c.reason, 'Other');
    assert.equal(c.message, 'new');
    assert.equal(c.observedGeneration, 2);
  });
  it('status flip: lastTransitionTime now', () => {
    assert.equal(
      nextCondition(prev, { type: 'Ready', status: 'False', reason: 'X', message: '' }, 2, 'T')
        .lastTransitionTime,
      'T',
    );
  });
  it('another type is not matched', () => {
    assert.equal(
      nextCondition(prev, { type: 'Stalled', status: 'True', reason: 'X', message: '' }, 2, 'T')
        .lastTransitionTime,
      'T',
    );
  });
  it('messages are truncated to the API limit of 32768', () => {
    const c = nextCondition(
      undefined,
      { type: 'Ready', status: 'True', reason: 'X', message: 'x'.repeat(40_000) },
      1,
      'T',
    );
    assert.ok(c.message.length <= 32768);
    assert.ok(c.message.endsWith('…'));
  });
});

describe('aggregate helpers', () => {
  it('namePods names at most 3', () => {
    assert.equal(namePods([]), '');
    assert.equal(namePods(['a', 'b', 'c']), 'a, b, c');
    assert.equal(namePods(['a', 'b', 'c', 'd', 'e']), 'a, b, c and 2 more');
  });
  it('clip keeps short messages and cuts long ones to max with an ellipsis', () => {
    assert.equal(clip('abc', 3), 'abc');
    assert.equal(clip('abcd', 3), 'ab…');
    assert.equal(clip('x'.repeat(5000)).length, 512);
  });
  it('aggregateInterface: no pod declares it → Pending, unsettled', () => {
    const c = parsed(v1Raw());
    const a = aggregateInterface(c.interfaces[0]!, K[0]!, []);
    assert.equal(a.state, 'Pending');
    assert.equal(a.pending, true);
    assert.equal(a.settled, false);
  });
  it('aggregateInterface: pods with a failed card are not counted', () => {
    const c = parsed(v1Raw());
    const a = aggregateInterface(c.interfaces[0]!, K[0]!, [
      pod('a', card, allVerified),
      pod('b', failedCard()),
    ]);
    assert.equal(`${a.verified}/${a.declaredOn}`, '1/1');
  });
});

describe('status size with many failing interfaces', () => {
  it('64 failing interfaces (the cap) with 2 KB of evidence each keep status under 40 KiB, messages clipped', () => {
    const many = {
      name: 'wide',
      supportedInterfaces: Array.from({ length: 64 }, (_, i) => ({
        url: `http://billing.payments.svc:8080/a2a/jsonrpc/${'x'.repeat(40)}${i}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      })),
    };
    const c = okCard(many);
    const long = 'y'.repeat(2000);
    const verdicts = many.supportedInterfaces.map(() => ({
      state: S.Unimplemented,
      message: long,
      confirmed: true,
      failures: 2,
    }));
    const pods = ['a', 'b', 'c'].map((n) => pod(n, c, verdicts));
    const d = decide(input({ pods }));
    assert.equal(d.status.interfaces?.length, 64);
    const size = JSON.stringify(d.status).length;
    assert.ok(size < 40 * 1024, `status is ${size} bytes`);
    assert.ok(d.status.interfaces!.every((i) => i.message.length <= 160));
  });
});

describe('readiness gate opt-in', () => {
  it('pods that do not list a2a.dev/card-verified in spec.readinessGates get no gate write', () => {
    const pods = [pod('a', card, allVerified, { gateListed: false }), pod('b', card, allVerified)];
    const d = decide(input({ pods }));
    assert.deepEqual(
      d.gates.map((g) => g.pod),
      ['b'],
    );
  });
});
