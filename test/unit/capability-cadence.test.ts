// Capability calls (three per verified interface) were made every probe period: three times the
// probe traffic and most of the operator's CPU at scale (docs/benchmarks.md). They now run when
// an interface is verified anew or its card changes, then every CAPABILITY_PERIODS periods while
// conclusive, every period while not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CapabilityState, InterfaceState } from '../../src/api/conditions.js';
import { MemoryStore } from '../../src/controller/agent-memory.js';
import { observePods } from '../../src/controller/observe-pods.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import { CAPABILITY_PERIODS } from '../../src/controller/probe-memory.js';
import { agentSpec, observeInput } from './observe-fixtures.js';
import type { CapabilityFinding } from '../../src/observation/observed.js';

const PERIOD_S = 10;
const spec = agentSpec(8080, { probe: { periodSeconds: PERIOD_S } });

function fleet(opts: { inconclusive?: boolean } = {}) {
  let description = 'one';
  let probeState: InterfaceState = InterfaceState.Verified;
  let capabilityCalls = 0;
  const backend: ProbeBackend = {
    fetchCard: () =>
      Promise.resolve({
        kind: 'ok',
        body: {
          name: 'a',
          description,
          capabilities: { streaming: true },
          supportedInterfaces: [
            { url: 'http://a.ns.svc:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
        },
      }),
    probe: () => Promise.resolve({ state: probeState, reason: probeState, message: 'm', durationMs: 1 }),
    probeCapabilities: (req) => {
      capabilityCalls++;
      const state = opts.inconclusive ? CapabilityState.Inconclusive : CapabilityState.Verified;
      return Promise.resolve(
        (['streaming', 'pushNotifications', 'extendedAgentCard'] as const).map((c): CapabilityFinding => ({
          capability: c,
          declared: req.claims[c],
          state,
          message: 'm',
        })),
      );
    },
  };
  return {
    backend,
    calls: () => capabilityCalls,
    newCard: () => (description = `${description}+`),
    setProbe: (s: InterfaceState) => (probeState = s),
  };
}

async function periods(
  f: ReturnType<typeof fleet>,
  n: number,
  start = 0,
  memory = new MemoryStore().for('ns/a', 1),
) {
  let now = 1_000_000 + start * PERIOD_S * 1000;
  for (let i = 0; i < n; i++) {
    await observePods(
      observeInput(spec, f.backend, {
        memory,
        now: () => now,
        random: () => 0.999_999, // no jitter: due exactly CAPABILITY_PERIODS periods later
      }),
    );
    now += PERIOD_S * 1000;
  }
  return memory;
}

void test('conclusive capability findings are rechecked every CAPABILITY_PERIODS periods, not every period', async () => {
  const f = fleet();
  await periods(f, 3 * CAPABILITY_PERIODS);
  assert.equal(f.calls(), 3, `${f.calls()} capability rounds over ${3 * CAPABILITY_PERIODS} periods`);
});

void test('findings that proved nothing are rechecked every period', async () => {
  const f = fleet({ inconclusive: true });
  await periods(f, 5);
  assert.equal(f.calls(), 5);
});

void test('a new card is checked at once', async () => {
  const f = fleet();
  const memory = await periods(f, 2);
  assert.equal(f.calls(), 1);
  f.newCard();
  await periods(f, 1, 2, memory);
  assert.equal(f.calls(), 2);
});

void test('an interface verified again is checked at once', async () => {
  const f = fleet();
  const memory = await periods(f, 2);
  f.setProbe(InterfaceState.WrongBinding);
  await periods(f, spec.probe.failureThreshold, 2, memory); // confirmed: no longer Verified
  f.setProbe(InterfaceState.Verified);
  await periods(f, 1, 2 + spec.probe.failureThreshold, memory);
  assert.equal(f.calls(), 2);
});
