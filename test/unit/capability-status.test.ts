/**
 * Capability truth in status and routing (docs/conditions.md, "Capability truth"), the pure part: findings of every verified
 * interface on every pod → status.capabilities[] and CapabilitiesVerified; part of Ready and
 * applied to the advertised card only with spec.probe.capabilities: Enforce.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CapabilityState, type CapabilityState as State } from '../../src/api/conditions.js';
import type { Capability } from '../../src/card/index.js';
import { judgeCapabilities } from '../../src/controller/capability-status.js';
import { decide } from '../../src/controller/decide.js';
import type { CapabilityFinding, PodObservation } from '../../src/observation/observed.js';
import { allVerified, input, keys, okCard, pod, spec, v1Raw } from './reconcile-fixtures.js';

const claims = { streaming: true, pushNotifications: true, extendedAgentCard: false };
const raw = v1Raw({ capabilities: claims });
const card = okCard(raw);
const ifaceKeys = card.ok ? keys(card.card) : [];

function finding(capability: Capability, state: State): CapabilityFinding {
  return { capability, declared: claims[capability], state, message: `${capability} ${state}` };
}

/** A pod whose three interfaces are Verified, with the given findings on every interface. */
function withFindings(name: string, states: Record<Capability, State>, onKeys = ifaceKeys): PodObservation {
  const p = pod(name, card, allVerified);
  const findings = (Object.keys(states) as Capability[]).map((c) => finding(c, states[c]));
  return { ...p, capabilities: new Map(onKeys.map((k) => [k, findings])) };
}

const good = { streaming: 'Verified', pushNotifications: 'Verified', extendedAgentCard: 'Absent' } as const;

describe('judgeCapabilities', () => {
  it('all as claimed: True, every entry n/n', () => {
    const j = judgeCapabilities(ifaceKeys, [withFindings('a', good), withFindings('b', good)], claims);
    assert.deepEqual(
      j.statuses.map((s) => [s.name, s.declared, s.state, s.interfaces]),
      [
        ['streaming', true, 'Verified', '3/3'],
        ['pushNotifications', true, 'Verified', '3/3'],
        ['extendedAgentCard', false, 'Absent', '3/3'],
      ],
    );
    assert.equal(j.condition.status, 'True');
    assert.equal(j.condition.reason, 'CapabilitiesVerified');
    assert.deepEqual(j.notServed, []);
  });

  it('the worst finding wins: NotServed on one interface of one pod', () => {
    const bad = withFindings('b', { ...good, streaming: 'NotServed' }, [ifaceKeys[2]!]);
    const j = judgeCapabilities(ifaceKeys, [withFindings('a', good), bad], claims);
    assert.equal(j.statuses[0]!.state, 'NotServed');
    assert.equal(j.statuses[0]!.interfaces, '2/3');
    assert.equal(j.statuses[0]!.message, 'streaming NotServed');
    assert.deepEqual([j.condition.status, j.condition.reason], ['False', 'CapabilityNotServed']);
    assert.deepEqual(j.notServed, ['streaming']);
  });

  it('Undeclared is reported, not failed; Inconclusive fails; nothing probed is Unknown', () => {
    const und = judgeCapabilities(
      ifaceKeys,
      [withFindings('a', { ...good, extendedAgentCard: 'Undeclared' })],
      claims,
    );
    assert.equal(und.condition.status, 'True');
    assert.match(
      und.condition.message,
      /served but not claimed by the card \(reported only\): extendedAgentCard/,
    );
    const inc = judgeCapabilities(
      ifaceKeys,
      [withFindings('a', { ...good, pushNotifications: 'Inconclusive' })],
      claims,
    );
    assert.deepEqual([inc.condition.status, inc.condition.reason], ['False', 'CapabilityInconclusive']);
    const none = judgeCapabilities(ifaceKeys, [pod('a', card, allVerified)], claims);
    assert.deepEqual([none.condition.status, none.condition.reason], ['Unknown', 'CapabilitiesPending']);
    assert.ok(none.statuses.every((s) => s.state === CapabilityState.NotProbed));
  });
});

describe('decide with capability findings', () => {
  const lying = [
    withFindings('a', { ...good, streaming: 'NotServed' }),
    withFindings('b', { ...good, streaming: 'NotServed' }),
  ];

  it('Report (default): status and condition written, Ready and the advertised card untouched', () => {
    const d = decide(input({ pods: lying, spec: spec() }));
    const caps = d.status.conditions!.find((c) => c.type === 'CapabilitiesVerified');
    assert.equal(caps?.reason, 'CapabilityNotServed');
    assert.equal(d.status.conditions!.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(d.status.capabilities?.[0]?.state, 'NotServed');
    const advertised = d.routing!.card!.card.capabilities as Record<string, unknown>;
    assert.equal(advertised.streaming, true);
  });

  it('Enforce: Ready False with CapabilityNotServed, the flag set false in the advertised card, signatures dropped', () => {
    const signedRaw = { ...raw, signatures: [{ protected: 'x', signature: 'y' }] };
    const signed = okCard(signedRaw);
    const pods = ['a', 'b'].map((n) => {
      const p = pod(n, signed, allVerified);
      const findings = (Object.keys(good) as Capability[]).map((c) =>
        finding(c, c === 'streaming' ? 'NotServed' : good[c]),
      );
      return { ...p, capabilities: new Map(ifaceKeys.map((k) => [k, findings])) };
    });
    const d = decide(input({ pods, spec: spec({ probe: { capabilities: 'Enforce' } }) }));
    const ready = d.status.conditions!.find((c) => c.type === 'Ready');
    assert.deepEqual([ready?.status, ready?.reason], ['False', 'CapabilityNotServed']);
    const out = d.routing!.card!;
    assert.deepEqual(out.card.capabilities, {
      streaming: false,
      pushNotifications: true,
      extendedAgentCard: false,
    });
    assert.equal(out.signatures, 'Removed');
    // Interfaces stay advertised: a capability is not an interface.
    assert.equal(d.routing!.plan.advertised.length, 3);
  });

  it('Enforce, every pod clean but a capability not served: Stalled True/CapabilityNotServed under either failOn; Inconclusive is not Stalled', () => {
    const three = ['a', 'b', 'c'].map((n) => withFindings(n, { ...good, streaming: 'NotServed' }));
    for (const failOn of ['AllPods', 'AnyPod'] as const) {
      const d = decide(input({ pods: three, spec: spec({ probe: { capabilities: 'Enforce', failOn } }) }));
      const c = (t: string) => d.status.conditions!.find((x) => x.type === t)!;
      assert.deepEqual([c('Ready').status, c('Ready').reason], ['False', 'CapabilityNotServed']);
      assert.deepEqual([c('Stalled').status, c('Stalled').reason], ['True', 'CapabilityNotServed'], failOn);
      assert.equal(c('Stalled').message, c('Ready').message);
      assert.doesNotMatch(c('Stalled').message, /0\/3|consecutive/);
    }
    const unsure = ['a', 'b', 'c'].map((n) =>
      withFindings(n, { ...good, pushNotifications: 'Inconclusive' }),
    );
    const d = decide(input({ pods: unsure, spec: spec({ probe: { capabilities: 'Enforce' } }) }));
    const stalled = d.status.conditions!.find((x) => x.type === 'Stalled')!;
    assert.deepEqual([stalled.status, stalled.reason], ['False', 'CapabilityInconclusive']);
  });

  it('Report mode, a round that probed nothing (no ready pod): the verdict shown before stays, unchanged', () => {
    const first = decide(input({ pods: lying, spec: spec() }));
    const shown = first.status.conditions!.find((c) => c.type === 'CapabilitiesVerified')!;
    const notReady = lying.map((p) => ({ ...p, pod: { ...p.pod, candidate: false } }));
    const later = decide(
      input({
        pods: notReady,
        spec: spec(),
        previous: first.status,
        now: new Date(Date.parse('2031-01-01T00:00:00Z')),
      }),
    );
    assert.deepEqual(
      later.status.conditions!.find((c) => c.type === 'CapabilitiesVerified'),
      shown,
      'same status, reason, message and transition time',
    );
    assert.deepEqual(later.status.capabilities, first.status.capabilities);
  });

  it('without findings (a backend without capability probes) in Report mode nothing is written', () => {
    const d = decide(input({ pods: [pod('a', card, allVerified)] }));
    assert.equal(d.status.capabilities, undefined);
    assert.equal(
      d.status.conditions!.find((c) => c.type === 'CapabilitiesVerified'),
      undefined,
    );
  });
});
