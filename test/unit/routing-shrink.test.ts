// The shrink rule (docs/routing.md: fail static holds back additions and unproven withdrawals, never
// removals): when full routing is held, the slices in place lose exactly the endpoints with
// evidence against them, whatever else is pending or wrong, and the card drops interfaces
// left without endpoints.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { InterfaceState } from '../../src/api/conditions.js';
import { decide, decideShrink, type CurrentRouting, type DecideInput } from '../../src/controller/decide.js';
import { type PodObservation } from '../../src/observation/observed.js';
import { advertisedCard } from '../../src/routing/advertised-card.js';
import { sliceWithEndpoints } from '../../src/routing/objects.js';
import { shrinkRouting, type ShrinkPod } from '../../src/routing/shrink.js';
import {
  allVerified,
  failedCard,
  input,
  keys,
  okCard,
  parsed,
  pick,
  pod,
  prng,
  spec,
  V,
  v1Raw,
  type VerdictSpec,
} from './reconcile-fixtures.js';

const S = InterfaceState;
const card = okCard(v1Raw());
const K = keys(parsed(v1Raw())); // [JSONRPC@8080, HTTP+JSON@8080, GRPC@9090]

/** A pod observation with its own address (the fixture gives every pod 10.0.0.1). */
function at(p: PodObservation, ip: string): PodObservation {
  return { ...p, pod: { ...p.pod, ip } };
}

const IP: Record<string, string> = { a: '10.0.0.1', b: '10.0.0.2', c: '10.0.0.3' };

function slice(port: 'http' | 'grpc', names: string[]): V1EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `billing-${port}`, namespace: 'payments' },
    addressType: 'IPv4',
    ports: [{ name: port, port: port === 'http' ? 8080 : 9090, protocol: 'TCP' }],
    endpoints: names.map((n) => ({
      addresses: [IP[n]!],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'payments', name: n, uid: `uid-${n}` },
    })),
  };
}

/** All three pods routed on both ports, the full card published. */
const routedAll = (): CurrentRouting => ({
  slices: [slice('http', ['a', 'b', 'c']), slice('grpc', ['a', 'b', 'c'])],
  card: parsed(v1Raw()),
});

const healthy = (): PodObservation[] => ['a', 'b', 'c'].map((n) => at(pod(n, card, allVerified), IP[n]!));

function routed(slices: V1EndpointSlice[]): Record<string, string[]> {
  return Object.fromEntries(
    slices.map((s) => [s.ports![0]!.name!, (s.endpoints ?? []).map((e) => e.targetRef!.name!)]),
  );
}

function held(pods: PodObservation[], partial: Partial<DecideInput> = {}): ReturnType<typeof decide> {
  return decide(
    input({
      pods,
      specProblems: [{ reason: 'SecretNotFound', message: 'Secret payments/billing-probe not found' }],
      current: routedAll(),
      ...partial,
    }),
  );
}

describe('shrink: removals flow while full routing is held', () => {
  it('a spec problem holds full routing but yields a shrink that changes nothing when nothing has evidence against it', () => {
    const d = held(healthy());
    assert.equal(d.routing, undefined);
    assert.ok(d.shrink);
    assert.deepEqual(d.shrink.removed, []);
    assert.equal(d.shrink.cardChanged, false);
    assert.deepEqual(routed(d.shrink.slices), { http: ['a', 'b', 'c'], grpc: ['a', 'b', 'c'] });
  });

  it('a deleted pod leaves every slice during a spec problem (missing Secret)', () => {
    const pods = healthy().filter((p) => p.pod.name !== 'b');
    const d = held(pods);
    assert.deepEqual(routed(d.shrink!.slices), { http: ['a', 'c'], grpc: ['a', 'c'] });
    assert.deepEqual(
      d.shrink!.removed.map((r) => `${r.slice}:${r.pod}:${r.why}`),
      ['billing-http:b:pod gone or no longer selected', 'billing-grpc:b:pod gone or no longer selected'],
    );
  });

  it('a NotReady pod leaves every slice during a renamed containerPort (PortNotFound)', () => {
    const pods = healthy().map((p) =>
      p.pod.name === 'c' ? { pod: { ...p.pod, candidate: false }, verdicts: new Map() } : p,
    );
    const d = held(pods, {
      specProblems: [{ reason: 'PortNotFound', message: 'targetPort "grpc" names no containerPort' }],
    });
    assert.deepEqual(routed(d.shrink!.slices), { http: ['a', 'b'], grpc: ['a', 'b'] });
  });

  it('a terminating pod leaves every slice', () => {
    const pods = healthy().map((p) =>
      p.pod.name === 'a' ? { ...p, pod: { ...p.pod, candidate: false, terminating: true } } : p,
    );
    assert.deepEqual(routed(held(pods).shrink!.slices), { http: ['b', 'c'], grpc: ['b', 'c'] });
  });

  it('a re-addressed pod (same UID, new IP) leaves every slice: its old address may now be another pod', () => {
    const pods = healthy().map((p) => (p.pod.name === 'b' ? at(p, '10.0.0.99') : p));
    const d = held(pods);
    assert.deepEqual(routed(d.shrink!.slices), { http: ['a', 'c'], grpc: ['a', 'c'] });
    assert.ok(d.shrink!.removed.every((r) => r.why === 'pod address changed'));
  });

  it('a dual-stack pod keeps its IPv6 endpoints (its second address is no address change)', () => {
    const v6 = (port: 'http' | 'grpc'): V1EndpointSlice => ({
      ...slice(port, []),
      metadata: { name: `billing-${port}-v6`, namespace: 'payments' },
      addressType: 'IPv6',
      endpoints: [
        {
          addresses: ['fd00::a'],
          conditions: { ready: true, serving: true, terminating: false },
          targetRef: { kind: 'Pod', namespace: 'payments', name: 'a', uid: 'uid-a' },
        },
      ],
    });
    const pods = healthy().map((p) =>
      p.pod.name === 'a' ? { ...p, pod: { ...p.pod, ips: [IP.a!, 'fd00::a'] } } : p,
    );
    const current = routedAll();
    const d = held(pods, { current: { ...current, slices: [...current.slices, v6('http'), v6('grpc')] } });
    assert.deepEqual(d.shrink!.removed, []);
    assert.deepEqual(routed(d.shrink!.slices.filter((x) => x.addressType === 'IPv6')), {
      http: ['a'],
      grpc: ['a'],
    });
  });

  it('a pending verdict on pod a does not hold back withdrawing a confirmed failure on pod b', () => {
    const pods = healthy().map((p) => {
      if (p.pod.name === 'a') return at(pod('a', card, [V, V, undefined]), IP.a!); // gRPC not probed yet
      if (p.pod.name === 'b') return at(pod('b', card, [V, V, S.Unimplemented]), IP.b!); // confirmed
      return p;
    });
    const d = decide(input({ pods, current: routedAll() })); // no spec problem: held by the pending verdict
    assert.equal(d.routing, undefined);
    assert.deepEqual(routed(d.shrink!.slices), { http: ['a', 'b', 'c'], grpc: ['a', 'c'] });
  });

  it('an unconfirmed failure (hysteresis) and a pending verdict are not evidence', () => {
    const pods = healthy().map((p) =>
      p.pod.name === 'b'
        ? at(pod('b', card, [V, { state: S.Timeout, failures: 1, confirmed: false }, S.Pending]), IP.b!)
        : p,
    );
    assert.deepEqual(held(pods).shrink!.removed, []);
  });

  it('a card that failed for good, or no longer declares an advertised interface, is evidence; an unconfirmed card failure is not', () => {
    const jsonOnly = okCard(v1Raw({ supportedInterfaces: [(v1Raw().supportedInterfaces as unknown[])[0]] }));
    const pods = [
      at(pod('a', failedCard('connect ECONNREFUSED', true)), IP.a!),
      at(pod('b', failedCard('connect ECONNREFUSED', false)), IP.b!),
      at(pod('c', jsonOnly, [V]), IP.c!),
    ];
    const d = held(pods);
    assert.deepEqual(routed(d.shrink!.slices), { http: ['b'], grpc: ['b'] });
  });

  it('a memory that began after routing (restart, leader change, new generation): a first card fetch failure on routed pods holds full routing and keeps them routed', () => {
    // No good card in memory to keep through the failure: the card is ok:false, unconfirmed.
    const flapped = (n: string) =>
      at(pod(n, failedCard('GET /.well-known/agent-card.json: timeout', false)), IP[n]!);
    const pods = [flapped('a'), flapped('b'), at(pod('c', card, allVerified), IP.c!)];
    const d = decide(input({ pods, current: routedAll() }));
    assert.equal(d.routing, undefined, 'full routing is held, not applied without a and b');
    assert.deepEqual(routed(d.shrink!.slices), { http: ['a', 'b', 'c'], grpc: ['a', 'b', 'c'] });
    assert.equal(d.shrink!.cardChanged, false);
    assert.deepEqual(
      d.gates.map((g) => `${g.pod}=${g.status}`),
      ['c=True'],
      "a's and b's gates are left as they are: one flap turns no pod NotReady",
    );
    assert.equal(d.status.conditions?.find((c) => c.type === 'Reconciling')?.status, 'True');
    // Confirmed (failureThreshold fetches in a row): full routing withdraws them.
    const confirmed = decide(
      input({
        pods: [at(pod('a', failedCard()), IP.a!), at(pod('b', failedCard()), IP.b!), pods[2]!],
        current: routedAll(),
      }),
    );
    assert.deepEqual(Object.fromEntries(confirmed.routing!.plan.endpoints), {
      http: ['uid-c'],
      grpc: ['uid-c'],
    });
    assert.deepEqual(
      confirmed.gates.map((g) => `${g.pod}=${g.status}/${g.reason}`),
      ['a=False/CardFetchFailed', 'b=False/CardFetchFailed', 'c=True/CardVerified'],
    );
  });

  it('an unconfirmed card fetch failure on a pod routed nowhere does not hold full routing', () => {
    // c is new: not in the slices, its first fetch failed. a and b still get full routing.
    const pods = [...healthy().slice(0, 2), at(pod('c', failedCard('connect ECONNREFUSED', false)), IP.c!)];
    const current: CurrentRouting = {
      slices: [slice('http', ['a', 'b']), slice('grpc', ['a', 'b'])],
      card: parsed(v1Raw()),
    };
    const d = decide(input({ pods, current }));
    assert.ok(d.routing, 'full routing applies');
    assert.deepEqual(Object.fromEntries(d.routing.plan.endpoints), {
      http: ['uid-a', 'uid-b'],
      grpc: ['uid-a', 'uid-b'],
    });
    assert.deepEqual(
      d.gates.map((g) => g.pod),
      ['a', 'b'],
      "c's gate is left as it is until confirmed",
    );
  });

  it('a confirmed failure only removes the pod from the failing port', () => {
    const pods = healthy().map((p) =>
      p.pod.name === 'c' ? at(pod('c', card, [V, V, S.Timeout]), IP.c!) : p,
    );
    assert.deepEqual(routed(held(pods).shrink!.slices), { http: ['a', 'b', 'c'], grpc: ['a', 'b'] });
  });

  it('authRequired Advertise: AuthRequired is not evidence; Withdraw: it is', () => {
    const pods = healthy().map((p) =>
      p.pod.name === 'a' ? at(pod('a', card, [S.AuthRequired, V, V]), IP.a!) : p,
    );
    assert.deepEqual(held(pods).shrink!.removed, []);
    const withdraw = held(pods, { spec: spec({ routing: { authRequired: 'Withdraw' } }) });
    assert.deepEqual(routed(withdraw.shrink!.slices), { http: ['b', 'c'], grpc: ['a', 'b', 'c'] });
  });

  it('never adds: a verified candidate missing from a slice stays missing', () => {
    const current = { ...routedAll(), slices: [slice('http', ['a']), slice('grpc', ['a'])] };
    const d = held(healthy(), { current });
    assert.deepEqual(routed(d.shrink!.slices), { http: ['a'], grpc: ['a'] });
  });

  it('unchanged slices are returned as the same objects (no write)', () => {
    const current = routedAll();
    const pods = healthy().map((p) =>
      p.pod.name === 'c' ? at(pod('c', card, [V, V, S.Timeout]), IP.c!) : p,
    );
    const d = held(pods, { current });
    assert.equal(d.shrink!.slices[0], current.slices[0]);
    assert.notEqual(d.shrink!.slices[1], current.slices[1]);
  });

  it('Observe mode: no shrink (nothing is owned); full routing: no shrink', () => {
    assert.equal(held(healthy(), { spec: spec({ routing: { mode: 'Observe' } }) }).shrink, undefined);
    const full = decide(input({ pods: healthy(), current: routedAll() }));
    assert.ok(full.routing);
    assert.equal(full.shrink, undefined);
  });

  it('a Service conflict holds full routing; the shrink still withdraws a deleted pod', () => {
    const d = decide(input({ pods: healthy().slice(1), serviceConflict: 'not ours', current: routedAll() }));
    assert.deepEqual(routed(d.shrink!.slices), { http: ['b', 'c'], grpc: ['b', 'c'] });
  });
});

describe('shrink: the card follows the endpoints', () => {
  it('a port left without endpoints drops its interfaces from the card and from status', () => {
    const pods = healthy().map((p) => at(pod(p.pod.name, card, [V, V, S.Unimplemented]), p.pod.ip!));
    const d = held(pods);
    assert.deepEqual(routed(d.shrink!.slices), { http: ['a', 'b', 'c'], grpc: [] });
    assert.equal(d.shrink!.cardChanged, true);
    assert.deepEqual(d.shrink!.advertised, K.slice(0, 2));
    const urls = (d.shrink!.card!.card.supportedInterfaces as { url: string }[]).map((i) => i.url);
    assert.deepEqual(urls, ['http://agent.internal:8080/a2a', 'http://agent.internal:8080/rest']);
    assert.deepEqual(
      d.status.interfaces!.map((i) => i.advertised),
      [true, true, false],
    );
    assert.equal(d.status.advertised?.interfaces, 2);
  });

  it('every pod gone: every slice empty, no card (the ConfigMap says unavailable), nothing advertised', () => {
    const d = held([]);
    assert.deepEqual(routed(d.shrink!.slices), { http: [], grpc: [] });
    assert.equal(d.shrink!.cardChanged, true);
    assert.equal(d.shrink!.card, undefined);
    assert.equal(d.status.advertised?.interfaces, 0);
  });

  it('a card published for a subset: only its interfaces count (an unadvertised interface is no evidence)', () => {
    const current = {
      ...routedAll(),
      card: parsed(advertisedCard(parsed(v1Raw()), new Set(K.slice(0, 2)))!.card),
    };
    current.slices[1] = slice('grpc', []);
    const pods = healthy().map((p) => at(pod(p.pod.name, card, [V, V, S.Unimplemented]), p.pod.ip!));
    const d = held(pods, { current });
    assert.deepEqual(d.shrink!.removed, []);
    assert.equal(d.shrink!.cardChanged, false);
  });
});

describe('shrink: randomized (seeded) — removes only with evidence, never adds, keeps the invariant', () => {
  const states: VerdictSpec[] = [
    V,
    V,
    V,
    S.Pending,
    undefined,
    S.Unimplemented,
    S.Timeout,
    {
      state: S.Timeout,
      failures: 1,
      confirmed: false,
    },
  ];
  it('3000 random pod sets against a fully routed agent', () => {
    const random = prng(11);
    for (let n = 0; n < 3000; n++) {
      const pods: PodObservation[] = [];
      for (const name of ['a', 'b', 'c']) {
        const r = random();
        if (r < 0.15) continue; // deleted
        let p = at(
          pod(name, card, [pick(random, states), pick(random, states), pick(random, states)]),
          IP[name]!,
        );
        if (r < 0.25) p = { pod: { ...p.pod, candidate: false }, verdicts: new Map() };
        else if (r < 0.3) p = at(p, '10.9.9.9');
        pods.push(p);
      }
      const current = routedAll();
      const d = decideShrink(
        spec(),
        { spec: spec(), namespace: 'payments', serviceName: 'billing' },
        pods,
        current,
      );
      const after = routed(d.slices);
      const before = routed(current.slices);
      for (const port of ['http', 'grpc']) {
        // never adds
        for (const name of after[port]!) assert.ok(before[port]!.includes(name), `case ${n}: added ${name}`);
        const portKeys = port === 'http' ? K.slice(0, 2) : K.slice(2);
        for (const name of before[port]!) {
          const p = pods.find((q) => q.pod.name === name);
          const evidence =
            !p ||
            !p.pod.candidate ||
            p.pod.ip !== IP[name] ||
            portKeys.some((k) => {
              const v = p.verdicts.get(k);
              return v !== undefined && v.confirmed && v.state !== S.Verified && v.state !== S.AuthRequired;
            });
          assert.equal(after[port]!.includes(name), !evidence, `case ${n}: ${port} ${name}`);
        }
      }
      // invariant: every interface still advertised has an endpoint, and no endpoint refutes it
      for (const key of d.advertised) {
        const port = key === K[2] ? 'grpc' : 'http';
        assert.ok(after[port]!.length > 0, `case ${n}: ${key} advertised with no endpoint`);
      }
      assert.equal(d.cardChanged, d.advertised.length < K.length, `case ${n}`);
      // the card is built only to be published: when it loses interfaces and keeps some
      assert.equal(d.card === undefined, !d.cardChanged || d.advertised.length === 0, `case ${n}`);
    }
  });
});

describe('shrinkRouting (pure, routing layer)', () => {
  const p = (candidate: boolean, ips: string[], refused: string[] = []): ShrinkPod => ({
    candidate,
    ips,
    refuses: (k) => refused.includes(k),
  });
  it('an endpoint without a targetRef has no pod behind it: removed', () => {
    const s = slice('http', ['a']);
    delete s.endpoints![0]!.targetRef;
    const r = shrinkRouting([s], [{ key: 'k', portName: 'http' }], new Map([['uid-a', p(true, [IP.a!])]]));
    assert.deepEqual(r.slices[0]!.endpoints, []);
    assert.deepEqual(r.advertised, []);
  });
  it('a published interface mapped to no port is left out of the card', () => {
    const r = shrinkRouting(
      [slice('http', ['a'])],
      [{ key: 'k1', portName: 'http' }, { key: 'k2' }],
      new Map([['uid-a', p(true, [IP.a!])]]),
    );
    assert.deepEqual(r.advertised, ['k1']);
  });
  it('refusal is per port: a pod refusing an interface of another port stays', () => {
    const r = shrinkRouting(
      [slice('http', ['a']), slice('grpc', ['a'])],
      [
        { key: 'h', portName: 'http' },
        { key: 'g', portName: 'grpc' },
      ],
      new Map([['uid-a', p(true, [IP.a!], ['g'])]]),
    );
    assert.deepEqual(routed(r.slices), { http: ['a'], grpc: [] });
    assert.deepEqual(r.advertised, ['h']);
  });
});

describe('shrink: spec mistakes are not evidence about pods', () => {
  it('an Unmapped verdict from a renamed containerPort (no probe) keeps the pod routed', () => {
    const pods = healthy().map((p) => {
      const o = at(pod(p.pod.name, card, [V, V]), p.pod.ip!);
      o.verdicts.set(K[2]!, staticVerdictFor());
      return o;
    });
    const d = held(pods, { specProblems: [{ reason: 'PortNotFound', message: 'renamed' }] });
    assert.deepEqual(d.shrink!.removed, []);
  });
});

function staticVerdictFor() {
  return {
    state: S.Unmapped,
    reason: 'Unmapped',
    message: 'names no containerPort',
    failures: 0,
    confirmed: true,
  };
}

describe('sliceWithEndpoints: the shrink apply body', () => {
  it('only our fields, the new endpoints, and the observed resourceVersion as a precondition', () => {
    const observed = slice('grpc', ['a', 'b']);
    observed.metadata = {
      ...observed.metadata,
      resourceVersion: '42',
      uid: 'server-set',
      labels: { foreign: 'x' },
      managedFields: [{ manager: 'someone' }],
    };
    const body = sliceWithEndpoints(
      { name: 'billing', namespace: 'payments', uid: 'uid-agent' },
      'billing',
      observed,
      observed.endpoints!.slice(0, 1),
    );
    assert.equal(body.metadata?.resourceVersion, '42');
    assert.equal(body.metadata?.uid, undefined);
    assert.equal(body.metadata?.managedFields, undefined);
    assert.equal(body.metadata?.labels?.foreign, undefined);
    assert.equal(body.metadata?.labels?.['kubernetes.io/service-name'], 'billing');
    assert.deepEqual(body.ports, observed.ports);
    assert.deepEqual(
      body.endpoints!.map((e) => e.targetRef?.name),
      ['a'],
    );
  });
});
