// Hysteresis survives restarts and leader changes (docs/routing.md, "Hysteresis across restarts"): "was verified" is seeded from
// what is advertised and routed now, so the first failure after a restart is a first failure
// (kept Verified, reprobed fast), not a withdrawal. And memory belongs to one agent object: a
// delete and recreate under the same name starts afresh.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { InterfaceState } from '../../src/api/conditions.js';
import { observePods, rememberedObservations } from '../../src/controller/observe-pods.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import { MemoryStore, podMemory } from '../../src/controller/agent-memory.js';
import { recordProbe, seededRecord, seedFromRouting, seedKey } from '../../src/controller/probe-memory.js';
import { agentSpec, observeInput, ONE_KEY, oneInterfaceBackend, podA0 } from './observe-fixtures.js';

const slice = (port: string, endpoints: { uid: string; ip: string; ready?: boolean }[]): V1EndpointSlice => ({
  addressType: 'IPv4',
  ports: [{ name: port, port: 1 }],
  endpoints: endpoints.map((e) => ({
    addresses: [e.ip],
    conditions: { ready: e.ready ?? true },
    targetRef: { kind: 'Pod', uid: e.uid },
  })),
});
const published = [
  { key: 'J', portName: 'http' },
  { key: 'R', portName: 'http' },
  { key: 'G', portName: 'grpc' },
  { key: 'U' },
];

describe('seedFromRouting', () => {
  it('a pod in a port slice is seeded with the published interfaces of that port, at its address', () => {
    const seed = seedFromRouting(
      [
        slice('http', [
          { uid: 'a', ip: '10.0.0.1' },
          { uid: 'b', ip: '10.0.0.2' },
        ]),
        slice('grpc', [{ uid: 'a', ip: '10.0.0.1' }]),
      ],
      published,
    );
    assert.deepEqual([...seed.get(seedKey('a', '10.0.0.1'))!].sort(), ['G', 'J', 'R']);
    assert.deepEqual([...seed.get(seedKey('b', '10.0.0.2'))!].sort(), ['J', 'R']);
    assert.equal(seed.get(seedKey('b', '10.0.0.9')), undefined, 'a re-addressed pod is not seeded');
  });

  it('status narrows the seed: an interface status does not call advertised is not seeded', () => {
    const seed = seedFromRouting([slice('http', [{ uid: 'a', ip: '10.0.0.1' }])], published, new Set(['J']));
    assert.deepEqual([...seed.get(seedKey('a', '10.0.0.1'))!], ['J']);
  });

  it('nothing published, or an endpoint marked not ready, seeds nothing', () => {
    assert.equal(seedFromRouting([slice('http', [{ uid: 'a', ip: '10.0.0.1' }])], []).size, 0);
    assert.equal(
      seedFromRouting([slice('http', [{ uid: 'a', ip: '10.0.0.1', ready: false }])], published).size,
      0,
    );
  });

  it('a seeded record is due at once, and its first failure keeps it Verified (reprobed fast); the threshold still withdraws', () => {
    const timing = { periodMs: 30_000, failureThreshold: 3, random: () => 0.5 };
    const seeded = seededRecord(1000);
    assert.equal(seeded.dueAt, 1000);
    const fail = { state: InterfaceState.Unreachable, reason: 'Unreachable', message: 'ECONNREFUSED' };
    const one = recordProbe(seeded, fail, 1000, timing);
    assert.equal(one.verdict.state, InterfaceState.Verified);
    assert.equal(one.verdict.pendingFailure?.state, InterfaceState.Unreachable);
    assert.equal(one.dueAt, 2000, 'fast reprobe');
    const fresh = recordProbe(undefined, fail, 1000, timing);
    assert.equal(fresh.verdict.state, InterfaceState.Unreachable, 'without the seed: failing at once');
    const three = recordProbe(recordProbe(one, fail, 2000, timing), fail, 4000, timing);
    assert.equal(three.verdict.state, InterfaceState.Unreachable);
    assert.equal(three.verdict.confirmed, true);
  });
});

describe('MemoryStore: one memory per agent object', () => {
  it('the same name with another UID (deleted and recreated) starts afresh; the same UID keeps its records', () => {
    const store = new MemoryStore();
    const m = store.for('ns/a', 1, 'uid-1');
    podMemory(m, 'pod', '10.0.0.1').probes.set('J', seededRecord(0));
    assert.equal(store.for('ns/a', 1, 'uid-1').pods.size, 1);
    assert.equal(store.for('ns/a', 1, 'uid-2').pods.size, 0);
    assert.equal(store.peek('ns/a')?.uid, 'uid-2');
  });
});

describe('observePods with a seed (a restart under a one-probe blip)', () => {
  const spec = agentSpec();
  const key = ONE_KEY;
  const backend = (state: InterfaceState): ProbeBackend => oneInterfaceBackend(() => state);
  const observe = (seed?: Map<string, Set<string>>) =>
    observePods(
      observeInput(spec, backend(InterfaceState.Unreachable), {
        memory: new MemoryStore().for('ns/a', 1, 'uid'),
        ...(seed ? { seed: () => seed } : {}),
      }),
    );

  it('routed and advertised before: the first failure keeps it Verified, with the failure pending', async () => {
    const res = await observe(new Map([[seedKey('u', '10.0.0.1'), new Set([key])]]));
    const v = res.observations[0]!.verdicts.get(key)!;
    assert.equal(v.state, 'Verified');
    assert.equal(v.pendingFailure?.state, 'Unreachable');
    assert.equal(res.nextDueAt, 1_001_000, 'reprobed fast');
  });

  it('made only when an interface has no record: one call on a first visit, none on the next', async () => {
    const memory = new MemoryStore().for('ns/a', 1, 'uid');
    let made = 0;
    const seed = () => {
      made++;
      return new Map([[seedKey('u', '10.0.0.1'), new Set([key])]]);
    };
    const visit = (now: number) =>
      observePods(observeInput(spec, backend(InterfaceState.Verified), { memory, seed, now: () => now }));
    await visit(1_000_000);
    assert.equal(made, 1);
    await visit(1_000_000 + 30_000);
    assert.equal(made, 1, 'every interface had a record');
  });

  it('without the seed (or seeded at another address) the same failure is reported at once', async () => {
    for (const seed of [undefined, new Map([[seedKey('u', '10.0.0.9'), new Set([key])]])]) {
      const res = await observe(seed);
      assert.equal(res.observations[0]!.verdicts.get(key)!.state, 'Unreachable');
    }
  });
});

describe('rememberedObservations: what the fast withdraw path reads without probing', () => {
  const spec = agentSpec();
  const backend = oneInterfaceBackend(() => InterfaceState.Unreachable);

  for (const [what, ips] of [
    ['single-stack', undefined],
    ['dual-stack', ['10.0.0.1', 'fd00::1']],
  ] as const) {
    it(`a ${what} pod: the card and verdicts a visit recorded, at the same addresses; none after it is re-addressed`, async () => {
      const pod = { ...podA0(), ...(ips ? { ips: [...ips] } : {}) };
      const memory = new MemoryStore().for('ns/a', 1, 'uid');
      await observePods(observeInput(spec, backend, { memory, pods: [pod] }));
      const [seen] = rememberedObservations([pod], memory, spec.probe.failureThreshold);
      assert.equal(seen!.card?.ok, true);
      assert.equal(seen!.verdicts.get(ONE_KEY)?.state, 'Unreachable');
      const moved = { ...pod, ip: '10.0.0.2', ...(ips ? { ips: ['10.0.0.2', 'fd00::1'] } : {}) };
      const [gone] = rememberedObservations([moved], memory, spec.probe.failureThreshold);
      assert.equal(gone!.card, undefined, 'a new address is a new endpoint: no evidence either way');
      assert.equal(gone!.verdicts.size, 0);
    });
  }
});
