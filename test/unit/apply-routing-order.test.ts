// Make before break (docs/routing.md: the safety invariant at every instant): the routing writes of one
// reconcile are ordered so that between any two of them every advertised interface is verified
// on every endpoint of its port. A card that loses interfaces is written before slices that
// grow because of it; a card that gains interfaces after slices that shrink for it; a card
// that does both is written twice. Recorded against a fake client whose caches follow the writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject, V1ConfigMap, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { InterfaceState } from '../../src/api/conditions.js';
import { parseCard, CardParseError } from '../../src/card/index.js';
import { applyRouting, type OwnedCaches } from '../../src/controller/apply-routing.js';
import { decide, type CurrentRouting } from '../../src/controller/decide.js';
import { mapInterfaces } from '../../src/observation/interface-map.js';
import { interfaceKey, type PodObservation } from '../../src/observation/observed.js';
import type { ApiRequest, KubeClient } from '../../src/kube/client.js';
import { ApiError } from '../../src/kube/errors.js';
import { advertisedCard } from '../../src/routing/advertised-card.js';
import {
  buildCardConfigMap,
  buildEndpointSlices,
  buildService,
  CARD_KEY,
  type Owner,
} from '../../src/routing/objects.js';
import { input, keys, okCard, parsed, pod, spec, V, v1Raw, type VerdictSpec } from './reconcile-fixtures.js';

const S = InterfaceState;
const owner: Owner = { name: 'billing', namespace: 'payments', uid: 'uid-agent' };
const card = okCard(v1Raw());
const K = keys(parsed(v1Raw())); // J, R on http; G on grpc
const [J, R, G] = K as [string, string, string];
const IP: Record<string, string> = { a: '10.0.0.1', b: '10.0.0.2' };
const ctx = { spec: spec(), namespace: owner.namespace, serviceName: 'billing' };

function pods(states: Record<string, VerdictSpec[]>): PodObservation[] {
  return Object.entries(states).map(([name, s]) => {
    const p = pod(name, card, s);
    return { ...p, pod: { ...p.pod, ip: IP[name]! } };
  });
}

/** The objects of a routing state: card publishing `cardKeys`, each port routed to the named pods. */
function state(cardKeys: string[], endpoints: Record<string, string[]>, obs: PodObservation[]) {
  const plan = {
    advertised: cardKeys,
    endpoints: new Map(Object.entries(endpoints).map(([p, n]) => [p, n.map((x) => `uid-${x}`)])),
  };
  const mapped = mapInterfaces(parsed(v1Raw()), ctx);
  return {
    slices: buildEndpointSlices(owner, 'billing', ctx.spec, plan, obs, mapped),
    configMap: buildCardConfigMap(owner, advertisedCard(parsed(v1Raw()), new Set(cardKeys)), 'none'),
    service: buildService(owner, 'billing', ctx.spec, mapped),
  };
}

/** A client and caches over one in-memory store; every write lands in the store (and the log). */
/** Refuses (422) writes of the kinds named: every one, or the first `times`. */
interface Refusal {
  kind: string | readonly string[];
  times?: number;
  /** The Service is not there yet (so its write is due). */
  noService?: boolean;
  /** Kinds whose refusal is no API error (a connection reset, say), with this text. */
  plain?: { kinds: readonly string[]; text: string };
}

function cluster(initial: KubernetesObject[], refuse?: Refusal) {
  let refused = 0;
  const store = new Map<string, KubernetesObject>();
  for (const o of initial) store.set(`${o.kind}/${o.metadata!.name}`, structuredClone(o));
  const log: string[] = [];
  const snapshots: Map<string, KubernetesObject>[] = [];
  const client = {
    request: (req: ApiRequest) => {
      const body = (typeof req.body === 'string' ? JSON.parse(req.body) : req.body) as KubernetesObject;
      if (
        refuse &&
        req.method === 'PATCH' &&
        body?.kind !== undefined &&
        [refuse.kind].flat().includes(body.kind) &&
        refused < (refuse.times ?? Infinity)
      ) {
        refused++;
        if (refuse.plain?.kinds.includes(body.kind)) return Promise.reject(new Error(refuse.plain.text));
        return Promise.reject(new ApiError(422, 'Invalid', `${body.kind} refused by policy`, 'PATCH'));
      }
      if (req.method === 'PATCH' && body?.kind) {
        store.set(`${body.kind}/${body.metadata!.name}`, structuredClone(body));
        log.push(`${body.kind}/${body.metadata!.name}`);
        snapshots.push(new Map(store));
      }
      return Promise.resolve(body ?? {});
    },
    get: () => Promise.reject(new ApiError(404, 'NotFound', 'not found', 'GET')),
  } as unknown as KubeClient;
  const of = <T>(kind: string) => ({
    get: (_ns: string, name: string) => store.get(`${kind}/${name}`) as T | undefined,
    list: () => [...store.entries()].filter(([k]) => k.startsWith(`${kind}/`)).map(([, v]) => v as T),
  });
  const caches: OwnedCaches = {
    services: of<V1Service>('Service'),
    slices: of<V1EndpointSlice>('EndpointSlice'),
    configMaps: of<V1ConfigMap>('ConfigMap'),
  };
  const current = (): CurrentRouting => {
    const text = (store.get('ConfigMap/billing-agent-card') as V1ConfigMap | undefined)?.data?.[CARD_KEY];
    const c = text ? parseCard(JSON.parse(text)) : undefined;
    return {
      slices: caches.slices.list('payments'),
      ...(c && !(c instanceof CardParseError) ? { card: c } : {}),
    };
  };
  return { client, caches, log, snapshots, current, snapshot: () => new Map(store) };
}

/** `key@pod` pairs where the card advertises key and its port routes to a pod that does not verify it. */
function violations(snapshot: Map<string, KubernetesObject>, obs: PodObservation[]): Set<string> {
  const out = new Set<string>();
  const text = (snapshot.get('ConfigMap/billing-agent-card') as V1ConfigMap | undefined)?.data?.[CARD_KEY];
  if (!text) return out;
  const c = parseCard(JSON.parse(text));
  if (c instanceof CardParseError) throw c;
  for (const m of mapInterfaces(c, ctx)) {
    if (!m.mapped) continue;
    const slice = snapshot.get(`EndpointSlice/billing-${m.port.name}`) as V1EndpointSlice | undefined;
    for (const e of slice?.endpoints ?? []) {
      const p = obs.find((o) => o.pod.uid === e.targetRef?.uid);
      if (p?.verdicts.get(m.key)?.state !== S.Verified)
        out.add(`${interfaceKey(m.iface)}@${e.targetRef?.name}`);
    }
  }
  return out;
}

/** The published routing `before` in a fresh cluster, and the routing decided for `now` over it. */
function decided(
  before: { card: string[]; endpoints: Record<string, string[]> } | undefined,
  now: Record<string, VerdictSpec[]>,
  refuse?: Refusal,
) {
  const obs = pods(now);
  const init = before && state(before.card, before.endpoints, obs);
  const c = cluster(
    init ? [...(refuse?.noService ? [] : [init.service]), ...init.slices, init.configMap] : [],
    refuse,
  );
  const d = decide(input({ pods: obs, current: c.current() }));
  assert.ok(d.routing, 'full routing expected');
  const r = d.routing;
  const mapped = mapInterfaces(parsed(v1Raw()), ctx);
  const apply = () =>
    applyRouting(c.client, c.caches, owner, 'billing', {
      service: buildService(owner, 'billing', ctx.spec, mapped),
      slices: buildEndpointSlices(owner, 'billing', ctx.spec, r.plan, r.pods, mapped),
      configMap: buildCardConfigMap(owner, r.card, 'none'),
      ...(r.interim ? { interimConfigMap: buildCardConfigMap(owner, r.interim.card, 'none') } : {}),
    });
  return { obs, c, d, apply };
}

/** Applies the routing decided for `now` over `before` (nothing published when undefined). */
async function transition(
  before: { card: string[]; endpoints: Record<string, string[]> } | undefined,
  now: Record<string, VerdictSpec[]>,
) {
  const { obs, c, d, apply } = decided(before, now);
  const initial = violations(c.snapshot(), obs);
  await apply();
  // No write may introduce a violation; the last leaves none.
  for (const [i, snap] of c.snapshots.entries()) {
    for (const v of violations(snap, obs))
      assert.ok(initial.has(v), `write ${i + 1} (${c.log[i]}) introduced ${v}; order ${c.log.join(' → ')}`);
  }
  assert.equal(violations(c.snapshots.at(-1) ?? new Map(), obs).size, 0);
  return { log: c.log, decision: d };
}

describe('apply-routing: make before break', () => {
  it('dropping an interface lets a slice grow: the card without it is written first', async () => {
    // R was verified on a only, so http routed to a only; now R failed on a (confirmed): R goes,
    // and http grows to b, which lacked only R.
    const { log } = await transition(
      { card: [J, R, G], endpoints: { http: ['a'], grpc: ['a', 'b'] } },
      { a: [V, S.Unimplemented, V], b: [V, S.Unimplemented, V] },
    );
    assert.deepEqual(log, ['ConfigMap/billing-agent-card', 'EndpointSlice/billing-http']);
  });

  it('adding an interface shrinks a slice: slices first, then the card', async () => {
    const { log } = await transition(
      { card: [J, G], endpoints: { http: ['a', 'b'], grpc: ['a', 'b'] } },
      { a: [V, V, V], b: [V, S.Unimplemented, V] },
    );
    assert.deepEqual(log, ['EndpointSlice/billing-http', 'ConfigMap/billing-agent-card']);
  });

  it('dropping one interface and adding another: the card is written twice around the slices', async () => {
    // R goes (failed on a), G comes (verified now on both): the interim card has J only.
    const { log } = await transition(
      { card: [J, R], endpoints: { http: ['a'], grpc: [] } },
      { a: [V, S.Unimplemented, V], b: [V, S.Unimplemented, V] },
    );
    assert.deepEqual(log, [
      'ConfigMap/billing-agent-card',
      'EndpointSlice/billing-http',
      'EndpointSlice/billing-grpc',
      'ConfigMap/billing-agent-card',
    ]);
  });

  it('nothing published yet (first apply): slices, then the card; no interim write', async () => {
    const { log, decision } = await transition(undefined, { a: allV(), b: allV() });
    assert.ok(decision.routing);
    assert.equal(decision.routing.interim, undefined);
    // The two slices may be written concurrently: their order is not fixed, the card's is.
    const card = log.filter((w) => w === 'ConfigMap/billing-agent-card');
    assert.deepEqual(card, ['ConfigMap/billing-agent-card'], log.join(' → '));
    assert.equal(log.at(-1), 'ConfigMap/billing-agent-card', log.join(' → '));
    for (const slice of ['EndpointSlice/billing-http', 'EndpointSlice/billing-grpc'])
      assert.ok(log.includes(slice), `${slice} written: ${log.join(' → ')}`);
  });

  it('the card only losing: written once, before the slices', async () => {
    const { log, decision } = await transition(
      { card: [J, R, G], endpoints: { http: ['a', 'b'], grpc: ['a', 'b'] } },
      { a: [V, V, S.Unimplemented], b: [V, V, S.Unimplemented] },
    );
    assert.ok(decision.routing?.interim);
    assert.deepEqual(log, ['ConfigMap/billing-agent-card', 'EndpointSlice/billing-grpc']);
  });
});

describe('apply-routing: a refused card never holds a withdrawal back', () => {
  /** Applies with ConfigMap writes refused; asserts no write introduced a violation. */
  async function refused(
    before: { card: string[]; endpoints: Record<string, string[]> },
    now: Record<string, VerdictSpec[]>,
    refusal: Refusal,
  ) {
    const { obs, c, apply } = decided(before, now, refusal);
    const initial = violations(c.snapshot(), obs);
    const outcome = await apply().then(
      () => undefined,
      (err: unknown) => err,
    );
    for (const [i, snap] of c.snapshots.entries()) {
      for (const v of violations(snap, obs))
        assert.ok(initial.has(v), `write ${i + 1} (${c.log[i]}) introduced ${v}; order ${c.log.join(' → ')}`);
    }
    const endpoints = (port: string) =>
      (c.caches.slices.get('payments', `billing-${port}`)?.endpoints ?? []).map((e) => e.targetRef?.name);
    return { outcome, log: c.log, endpoints, violations: violations(c.snapshot(), obs) };
  }

  it('the interim card refused: the slices withdraw all the same, then the apply fails', async () => {
    // G confirmed broken on both pods: the card only loses G, so the interim goes first.
    const r = await refused(
      { card: [J, R, G], endpoints: { http: ['a', 'b'], grpc: ['a', 'b'] } },
      { a: [V, V, S.Unimplemented], b: [V, V, S.Unimplemented] },
      { kind: 'ConfigMap' },
    );
    assert.ok(r.outcome instanceof ApiError && r.outcome.status === 422, String(r.outcome));
    assert.deepEqual(r.log, ['EndpointSlice/billing-grpc'], 'the withdrawal landed');
    assert.deepEqual(r.endpoints('grpc'), []);
    assert.deepEqual(r.endpoints('http'), ['a', 'b']);
  });

  it('the interim card refused: a slice that would grow because of it does not', async () => {
    // R failed on a (confirmed) and never verified on b: R goes, so http would grow to b. The
    // published card still names R, so b (which lacks R) must stay out; a (routed now) stays.
    const r = await refused(
      { card: [J, R, G], endpoints: { http: ['a'], grpc: ['a', 'b'] } },
      { a: [V, S.Unimplemented, V], b: [V, S.Unimplemented, V] },
      { kind: 'ConfigMap' },
    );
    assert.ok(r.outcome instanceof ApiError && r.outcome.status === 422, String(r.outcome));
    assert.deepEqual(r.endpoints('http'), ['a']);
    assert.deepEqual(r.endpoints('grpc'), ['a', 'b']);
  });

  it('the Service refused: the slices withdraw, nothing grows, only the card that drops is written, the apply fails', async () => {
    // R failed on a (confirmed), G on b: R and G go from the card; http would grow to b.
    const r = await refused(
      { card: [J, R, G], endpoints: { http: ['a'], grpc: ['a', 'b'] } },
      { a: [V, S.Unimplemented, V], b: [V, S.Unimplemented, S.Unimplemented] },
      { kind: 'Service', noService: true },
    );
    assert.ok(r.outcome instanceof ApiError && r.outcome.status === 422, String(r.outcome));
    assert.deepEqual(r.endpoints('grpc'), ['a'], 'b withdrawn from grpc');
    assert.deepEqual(r.endpoints('http'), ['a'], 'http does not grow');
    // The card that only drops R is written (dropping is always safe), the final one is not.
    assert.deepEqual(r.log, ['ConfigMap/billing-agent-card', 'EndpointSlice/billing-grpc']);
  });

  it('the Service and the card refused: the slices withdraw, the error names both', async () => {
    const r = await refused(
      { card: [J, R, G], endpoints: { http: ['a'], grpc: ['a', 'b'] } },
      { a: [V, S.Unimplemented, V], b: [V, S.Unimplemented, S.Unimplemented] },
      { kind: ['Service', 'ConfigMap'], noService: true },
    );
    assert.ok(r.outcome instanceof ApiError && r.outcome.status === 422, String(r.outcome));
    assert.equal(
      r.outcome.message,
      'Service billing: Service refused by policy; card ConfigMap billing-agent-card: ConfigMap refused by policy',
    );
    assert.deepEqual(r.endpoints('grpc'), ['a'], 'b withdrawn from grpc');
    assert.deepEqual(r.endpoints('http'), ['a'], 'http does not grow');
    assert.deepEqual(r.log, ['EndpointSlice/billing-grpc']);
  });

  it('the Service and the card refused, the card by no API error: its text is withheld', async () => {
    const r = await refused(
      { card: [J, R, G], endpoints: { http: ['a'], grpc: ['a', 'b'] } },
      { a: [V, S.Unimplemented, V], b: [V, S.Unimplemented, S.Unimplemented] },
      {
        kind: ['Service', 'ConfigMap'],
        noService: true,
        plain: { kinds: ['ConfigMap'], text: 'socket hang up (authorization: Bearer s3cr3t)' },
      },
    );
    assert.ok(r.outcome instanceof ApiError && r.outcome.status === 422, String(r.outcome));
    assert.match(
      r.outcome.message,
      /^Service billing: Service refused by policy; card ConfigMap billing-agent-card: Error: message withheld/,
    );
    assert.doesNotMatch(r.outcome.message, /s3cr3t/);
    assert.deepEqual(r.endpoints('grpc'), ['a'], 'b withdrawn from grpc');
  });

  it('the interim refused once, the final card written: the slices grow after it', async () => {
    const r = await refused(
      { card: [J, R, G], endpoints: { http: ['a'], grpc: ['a', 'b'] } },
      { a: [V, S.Unimplemented, V], b: [V, S.Unimplemented, V] },
      { kind: 'ConfigMap', times: 1 },
    );
    assert.equal(r.outcome, undefined);
    assert.deepEqual(r.endpoints('http'), ['a', 'b']);
    assert.equal(r.violations.size, 0);
    assert.deepEqual(r.log, ['ConfigMap/billing-agent-card', 'EndpointSlice/billing-http']);
  });
});

function allV(): VerdictSpec[] {
  return [V, V, V];
}
