// The steady fast path (src/controller/quiet-visit.ts): a visit with the inputs of the last one,
// which changed nothing, skips decide and the apply phase. What must hold: it is taken only in
// steady state, any change to what decide reads (an answer, the card, the pod, the agent object,
// its status written by someone else, its routing objects) goes the full way, and a run with it
// ends in exactly the status, routing objects and Events of a run without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { AgentReconciler, type AgentObject } from '../../src/controller/reconciler.js';
import type { ProbeAnswer, ProbeBackend } from '../../src/controller/probe-backend.js';
import type { ApiRequest, KubeClient } from '../../src/kube/client.js';
import { ApiError } from '../../src/kube/errors.js';
import type { EventRecorder } from '../../src/kube/events.js';
import { inputsPrint, matchesPrint } from '../../src/controller/quiet-visit.js';
import { agentObject, oneInterfaceCard, pick, prng, readyPod } from './reconcile-fixtures.js';

const twoInterfaceCard = {
  name: 'a',
  supportedInterfaces: [
    ...oneInterfaceCard.supportedInterfaces,
    { url: 'http://a.ns.svc:8080/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
};
const describedCard = { ...oneInterfaceCard, description: 'pays bills' };
const VERIFIED: ProbeAnswer = { state: 'Verified', reason: 'TaskNotFound', message: 'served', durationMs: 1 };
const REFUSED: ProbeAnswer = {
  state: 'Unreachable',
  reason: 'Unreachable',
  message: 'connect ECONNREFUSED',
  durationMs: 1,
};
const PERIOD_MS = 10_000;
const dataOf = (o: KubernetesObject | undefined) =>
  (o as { data?: Record<string, string> } | undefined)?.data;
const endpointsOf = (o: KubernetesObject | undefined): unknown =>
  (o as { endpoints?: unknown } | undefined)?.endpoints;

type Kind = 'services' | 'endpointslices' | 'configmaps';

/** One agent, one pod and an in-memory API server whose caches see every write at once. */
function world(quietVisits: boolean, opts: { jitter?: boolean } = {}) {
  let rv = 100;
  const w = {
    agent: agentObject(
      { routing: { mode: 'Enforce' }, probe: { periodSeconds: PERIOD_MS / 1000, failureThreshold: 2 } },
      String(rv),
    ) as AgentObject,
    pod: readyPod(),
    store: { services: new Map(), endpointslices: new Map(), configmaps: new Map() } as Record<
      Kind,
      Map<string, KubernetesObject>
    >,
    answer: VERIFIED,
    card: oneInterfaceCard as object,
    clock: Date.parse('2030-01-01T00:00:00Z'),
    events: [] as string[],
    writes: [] as string[],
    unchanged: 0,
    decided: 0,
    nextRv: () => String(++rv),
  };
  let uids = 0;
  const request = (req: ApiRequest): Promise<unknown> => {
    const m = /\/namespaces\/ns\/([a-z0-9]+)(?:\/([^/?]+))?(\/status)?$/.exec(req.path);
    if (!m) return Promise.reject(new Error(`unexpected path ${req.path}`));
    const [, resource, name, status] = m;
    if (resource === 'a2aagents' && status && req.method === 'PATCH') {
      w.writes.push('status');
      w.agent = {
        ...w.agent,
        metadata: { ...w.agent.metadata, resourceVersion: w.nextRv() },
        status: structuredClone((req.body as { status: AgentObject['status'] }).status),
      };
      return Promise.resolve(w.agent);
    }
    const store = w.store[resource as Kind];
    if (!store) return Promise.reject(new Error(`unexpected ${req.method} ${req.path}`));
    if (req.method === 'GET') {
      if (!name) {
        const wanted = String(req.query?.fieldSelector ?? '').replace('metadata.name=', '');
        return Promise.resolve({ items: [...store.values()].filter((o) => o.metadata?.name === wanted) });
      }
      const found = store.get(name);
      return found
        ? Promise.resolve(found)
        : Promise.reject(new ApiError(404, 'NotFound', 'not found', 'GET'));
    }
    w.writes.push(`${req.method} ${resource}/${name}`);
    if (req.method === 'DELETE') {
      store.delete(name!);
      return Promise.resolve({});
    }
    if (req.method === 'PATCH') {
      const body = structuredClone(req.body as KubernetesObject);
      const before = store.get(name!);
      const obj = {
        ...body,
        metadata: {
          ...body.metadata,
          uid: before?.metadata?.uid ?? `obj-${++uids}`,
          resourceVersion: w.nextRv(),
        },
      };
      store.set(name!, obj);
      return Promise.resolve(obj);
    }
    return Promise.reject(new Error(`unexpected ${req.method} ${req.path}`));
  };
  const client = {
    request,
    get: (path: string, query?: Record<string, string>) => request({ method: 'GET', path, query }),
  } as unknown as KubeClient;
  const cache = <T>(kind: Kind) => ({
    get: (_ns: string | undefined, name: string) => w.store[kind].get(name) as T | undefined,
    list: () => [...w.store[kind].values()] as T[],
  });
  const backend: ProbeBackend = {
    fetchCard: () => Promise.resolve({ kind: 'ok', body: structuredClone(w.card) }),
    // jitter: answers of any duration, in any order (as a real agent's).
    probe: async () => {
      if (!opts.jitter) return w.answer;
      await new Promise((r) => setTimeout(r, Math.random() * 5));
      return { ...w.answer, durationMs: Math.random() * 5 };
    },
  };
  // A function, so a test can hand the world to a fresh leader: a new reconciler, empty memory.
  const newReconciler = () =>
    new AgentReconciler({
      client,
      agents: { get: () => w.agent, list: () => [w.agent] },
      pods: { get: () => w.pod, list: () => [w.pod] },
      owned: {
        services: cache('services'),
        slices: cache('endpointslices'),
        configMaps: cache('configmaps'),
      },
      backend,
      events: {
        record: (_r: unknown, type: string, reason: string, message: string) =>
          w.events.push(`${type} ${reason}: ${message}`),
      } as unknown as EventRecorder,
      log: pino({ level: 'silent' }),
      now: () => w.clock,
      progressGraceMs: 0,
      quietVisits,
      observer: { unchanged: () => w.unchanged++, decided: () => w.decided++ },
    });
  let reconciler = newReconciler();
  const newLeader = () => {
    reconciler = newReconciler();
  };
  /** One visit a period after the last: every probe and card fetch is due. */
  const visit = async () => {
    w.clock += PERIOD_MS;
    return reconciler.reconcile('ns/a', new AbortController().signal).catch(() => undefined);
  };
  /** Another writer's change to the first routing object of a kind: new fields, a new resourceVersion. */
  const edit = (kind: Kind, fields: Record<string, unknown>) => {
    const [name, obj] = [...w.store[kind]][0] ?? [];
    if (name && obj)
      w.store[kind].set(name, {
        ...obj,
        ...fields,
        metadata: { ...obj.metadata, resourceVersion: w.nextRv() },
      } as KubernetesObject);
  };
  return Object.assign(w, { visit, edit, newLeader });
}
type World = ReturnType<typeof world>;

void test('steady state: the visit after a quiet one skips decide and writes nothing', async () => {
  const w = world(true);
  await w.visit(); // first: status, Service, slice, card ConfigMap, Events
  assert.ok(w.writes.length > 0);
  await w.visit(); // quiet, decided in full: remembered
  assert.equal(w.unchanged, 0);
  const writes = w.writes.length;
  const decided = w.decided;
  for (let i = 0; i < 5; i++) await w.visit();
  assert.equal(w.unchanged, 5, 'every later steady visit takes the fast path');
  assert.equal(w.decided, decided, 'and decides nothing');
  assert.equal(w.writes.length, writes, 'and writes nothing');
});

void test('answers of any duration, in any order, leave a steady agent steady', async () => {
  const w = world(true, { jitter: true });
  w.card = twoInterfaceCard;
  for (let i = 0; i < 8; i++) await w.visit();
  assert.equal(w.unchanged, 6, 'every visit after the first two');
});

/** A world in steady state, its fast path taken once. */
async function steady() {
  const w = world(true);
  for (let i = 0; i < 3; i++) await w.visit();
  assert.equal(w.unchanged, 1);
  return w;
}

void test('a failing answer goes the full way: confirmed, withdrawn, written', async () => {
  const w = await steady();
  w.answer = REFUSED;
  await w.visit(); // first failure: still Verified (hysteresis), but the record changed
  assert.equal(w.unchanged, 1);
  await w.visit(); // confirmed
  assert.equal(w.unchanged, 1);
  const iface = w.agent.status?.interfaces?.[0];
  assert.equal(iface?.state, 'Unreachable');
  assert.equal(iface?.advertised, false);
  assert.ok(
    w.events.some((e) => e.includes('Unreachable')),
    w.events.join('\n'),
  );
});

void test('a withdrawn interface keeps its revisits urgent until it heals, on the fast path too', async () => {
  const w = await steady();
  const priorities: (string | undefined)[] = [];
  const visit = async () => priorities.push((await w.visit())?.priority);
  await visit(); // steady
  w.answer = REFUSED;
  await visit(); // first failure: confirming
  await visit(); // confirmed: withdrawn, restoring
  const writes = w.writes.length;
  const unchanged = w.unchanged;
  for (let i = 0; i < 3; i++) await visit(); // still refused: quiet after the first
  assert.equal(w.writes.length, writes, 'a broken steady state writes nothing');
  assert.equal(w.unchanged, unchanged + 2, 'and takes the fast path');
  w.answer = VERIFIED;
  await visit(); // healed: back, routine again
  await visit();
  assert.deepEqual(priorities, ['low', 'high', 'high', 'high', 'high', 'high', 'low', 'low']);
  assert.equal(w.agent.status?.interfaces?.[0]?.advertised, true);
});

void test('a status someone else wrote goes the full way and is put back', async () => {
  const w = await steady();
  const ours = w.agent.status;
  w.agent = { ...w.agent, metadata: { ...w.agent.metadata, resourceVersion: w.nextRv() }, status: {} };
  await w.visit();
  assert.equal(w.unchanged, 1);
  // The same verdicts; the transitions are dated anew (the conditions were gone).
  const untimed = (v: unknown) =>
    JSON.parse(JSON.stringify(v, (k, x: unknown) => (/^lastTransition/.test(k) ? undefined : x))) as unknown;
  assert.deepEqual(untimed(w.agent.status), untimed(ours));
});

/** One visit that must go the full way (then `check`), and two that settle into the fast path again. */
async function fullWay(w: World, check: () => void): Promise<void> {
  const before = w.unchanged;
  await w.visit();
  assert.equal(w.unchanged, before, 'the full way');
  check();
  await w.visit();
  await w.visit();
  assert.equal(w.unchanged, before + 1, 'steady again');
}

void test('a routing object deleted or edited by someone else goes the full way and is put back', async () => {
  const w = await steady();
  const [sliceName, slice] = [...w.store.endpointslices][0]!;
  const sliceBack = () =>
    assert.deepEqual(endpointsOf(w.store.endpointslices.get(sliceName)), endpointsOf(slice));
  w.store.endpointslices.delete(sliceName);
  await fullWay(w, sliceBack);
  w.edit('endpointslices', { endpoints: [] });
  await fullWay(w, sliceBack);
  const [cmName, cm] = [...w.store.configmaps][0]!;
  w.edit('configmaps', { data: { 'agent-card.json': '{}' } });
  await fullWay(w, () => assert.deepEqual(dataOf(w.store.configmaps.get(cmName)), dataOf(cm)));
});

void test('a new card, a re-addressed pod and a new generation each go the full way', async () => {
  const w = await steady();
  // The same interfaces, another description: only the card's digest tells.
  w.card = describedCard;
  await fullWay(w, () => {
    const [text = ''] = Object.values(dataOf([...w.store.configmaps.values()][0]) ?? {});
    assert.equal((JSON.parse(text) as { description?: string }).description, describedCard.description);
  });
  w.card = twoInterfaceCard;
  await fullWay(w, () => assert.equal(w.agent.status?.interfaces?.length, 2));
  w.pod = { ...w.pod, status: { ...w.pod.status, podIP: '10.0.0.2' } };
  await fullWay(w, () => {
    const endpoints = [...w.store.endpointslices.values()].flatMap(
      (s) => (endpointsOf(s) as { addresses: string[] }[] | undefined) ?? [],
    );
    assert.deepEqual(
      endpoints.flatMap((e) => e.addresses),
      ['10.0.0.2'],
    );
  });
  w.agent = {
    ...w.agent,
    metadata: { ...w.agent.metadata, generation: 2, resourceVersion: w.nextRv() },
    spec: { ...(w.agent.spec as object), probe: { periodSeconds: 10, failureThreshold: 3 } },
  };
  await fullWay(w, () => assert.equal(w.agent.status?.observedGeneration, 2));
});

/** What a world ends in: the agent's status, its routing objects, its Events and API writes. */
const seen = (w: World) => ({
  status: w.agent.status,
  store: Object.fromEntries(Object.entries(w.store).map(([k, m]) => [k, [...m]])),
  events: w.events,
  writes: w.writes,
});

/** The agent deleted and created again under its name: a new UID, generation 1 again, no status. */
function recreate(w: World, uid: string): void {
  const { status: _gone, ...rest } = w.agent;
  w.agent = { ...rest, metadata: { ...rest.metadata, uid, generation: 1, resourceVersion: w.nextRv() } };
}
const ownerUids = (w: World) =>
  Object.values(w.store).flatMap((m) =>
    [...m.values()].map((o) => o.metadata?.ownerReferences?.map((r) => r.uid).join(',')),
  );

void test('an agent recreated under its name goes the full way, before and after its predecessor is collected', async () => {
  const run = async (w: World) => {
    for (let i = 0; i < 3; i++) await w.visit();
    // Recreated at the same generation and spec while its predecessor's routing objects remain
    // (the garbage collector has not run yet). It differs from its predecessor in its UID (the
    // memory store resets), its status (none: an InProgress write is pending) and its owned
    // objects (none under its UID yet); each alone sends the visit the full way.
    recreate(w, 'u2');
    for (let i = 0; i < 3; i++) await w.visit();
    const beforeCollection = { status: w.agent.status, owners: ownerUids(w) };
    // The garbage collector removes what the old agent owned.
    for (const store of Object.values(w.store)) store.clear();
    for (let i = 0; i < 3; i++) await w.visit();
    return beforeCollection;
  };
  const fast = world(true);
  const full = world(false);
  const [a, b] = [await run(fast), await run(full)];
  assert.deepEqual(a, b, 'the same status and owners while the old objects remain');
  assert.deepEqual(seen(fast), seen(full), 'the same end, with and without the fast path');
  assert.equal(fast.agent.status?.observedGeneration, 1);
  assert.equal(fast.agent.status?.interfaces?.[0]?.state, 'Verified');
  assert.ok(ownerUids(fast).length > 0, 'routing objects exist again');
  assert.ok(
    ownerUids(fast).every((u) => u === 'u2'),
    `every routing object is the new agent's: ${ownerUids(fast).join(' ')}`,
  );
  assert.ok(fast.unchanged > 0, 'and it settled into the fast path');
});

void test('a fresh leader, with empty memory, goes the full way once, writes nothing, then settles', async () => {
  const w = await steady();
  const writes = w.writes.length;
  const decided = w.decided;
  w.newLeader();
  await w.visit();
  assert.equal(w.unchanged, 1, 'no fast path from memory it does not have');
  assert.equal(w.decided, decided + 1, 'decided in full');
  assert.deepEqual(w.writes.slice(writes), [], 'what the last leader wrote is still right');
  // That visit changed nothing, so it is remembered: the next ones take the fast path.
  await w.visit();
  await w.visit();
  assert.equal(w.unchanged, 3, 'steady again');
  assert.equal(w.writes.length, writes);
});

void test('with and without the fast path, any run ends in the same status, routing and Events', async () => {
  const random = prng(20261204);
  const perturbations: Record<string, (w: World) => void> = {
    nothing: () => undefined,
    answer: (w) => (w.answer = w.answer === VERIFIED ? REFUSED : VERIFIED),
    card: (w) => (w.card = w.card === twoInterfaceCard ? oneInterfaceCard : twoInterfaceCard),
    description: (w) => (w.card = w.card === describedCard ? oneInterfaceCard : describedCard),
    address: (w) =>
      (w.pod = {
        ...w.pod,
        status: { ...w.pod.status, podIP: w.pod.status?.podIP === '10.0.0.1' ? '10.0.0.2' : '10.0.0.1' },
      }),
    readiness: (w) => {
      const ready = w.pod.status?.conditions?.[0]?.status === 'True';
      w.pod = {
        ...w.pod,
        status: { ...w.pod.status, conditions: [{ type: 'Ready', status: ready ? 'False' : 'True' }] },
      } as V1Pod;
    },
    status: (w) =>
      (w.agent = {
        ...w.agent,
        metadata: { ...w.agent.metadata, resourceVersion: w.nextRv() },
        status: { ...w.agent.status, conditions: [] },
      }),
    slice: (w) => {
      const first = [...w.store.endpointslices.keys()][0];
      if (first) w.store.endpointslices.delete(first);
    },
    endpoints: (w) => w.edit('endpointslices', { endpoints: [] }),
    configMap: (w) => w.edit('configmaps', { data: { 'agent-card.json': '{"name":"edited"}' } }),
    mode: (w) => {
      const spec = w.agent.spec as { routing: { mode: string } };
      w.agent = {
        ...w.agent,
        metadata: {
          ...w.agent.metadata,
          generation: (w.agent.metadata?.generation ?? 1) + 1,
          resourceVersion: w.nextRv(),
        },
        spec: { ...spec, routing: { mode: spec.routing.mode === 'Enforce' ? 'Observe' : 'Enforce' } },
      };
    },
  };
  const names = Object.keys(perturbations);
  const fast = world(true);
  const full = world(false);
  for (let step = 0; step < 400; step++) {
    // Mostly nothing happens, as in steady state; sometimes one thing does.
    const what = random() < 0.6 ? 'nothing' : pick(random, names);
    perturbations[what]!(fast);
    perturbations[what]!(full);
    await fast.visit();
    await full.visit();
    const [a, b] = [JSON.stringify(seen(fast)), JSON.stringify(seen(full))];
    if (a !== b) {
      // The first difference, with some context (a deep diff of 400 steps' Events is slow to print).
      let at = 0;
      while (a[at] === b[at]) at++;
      assert.fail(
        `step ${step} (${what}):\n fast: …${a.slice(at - 300, at + 200)}\n full: …${b.slice(at - 300, at + 200)}`,
      );
    }
  }
  assert.equal(full.unchanged, 0);
  assert.ok(fast.unchanged > 100, `the fast path was taken ${fast.unchanged} times`);
});

void test('matchesPrint against inputsPrint: every field of an observation counts, and unknown values never compare equal', () => {
  const base = () => ({
    agent: { uid: 'u1', resourceVersion: '7' },
    observations: [
      {
        pod: {
          name: 'a-0',
          uid: 'p1',
          ip: '10.0.0.1',
          candidate: true,
          terminating: false,
          containerPorts: {},
          gateListed: false,
        },
        verdicts: new Map([
          ['k', { state: 'Verified' as const, reason: 'r', message: 'm', failures: 0, confirmed: false }],
        ]),
      },
    ],
    specProblems: [],
    serviceConflict: undefined,
    gateOwnedElsewhere: undefined,
    owned: [],
    signingKey: undefined,
  });
  assert.ok(matchesPrint(base(), inputsPrint(base())));
  const changed = base();
  changed.observations[0]!.verdicts.get('k')!.failures = 1;
  assert.ok(!matchesPrint(changed, inputsPrint(base())));
  const pending = base();
  (pending.observations[0]!.verdicts.get('k') as Record<string, unknown>).pendingFailure = {
    state: 'Unreachable',
    message: 'x',
  };
  assert.ok(!matchesPrint(pending, inputsPrint(base())));
  const rotated = { ...base(), signingKey: 'k2' };
  assert.ok(!matchesPrint(rotated, inputsPrint(base())));
  const odd = base();
  (odd.observations[0]!.pod as Record<string, unknown>).when = new Date(0);
  assert.ok(!matchesPrint(odd, inputsPrint(odd)), 'a class instance is never known to be the same');
  // A kept print that is a prefix of these inputs', or runs past them, is not theirs.
  const twoPods = base();
  twoPods.observations.push(twoPods.observations[0]!);
  assert.ok(!matchesPrint(twoPods, inputsPrint(base())));
  assert.ok(!matchesPrint(base(), inputsPrint(twoPods)));
  assert.ok(!matchesPrint(base(), [...inputsPrint(base()), undefined]), 'one more value, even undefined');
  assert.ok(!matchesPrint(base(), inputsPrint(base()).slice(0, -1)));
});
