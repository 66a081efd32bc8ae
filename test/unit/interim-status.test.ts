import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { invalidSpecStatus, progressStatus } from '../../src/controller/interim-status.js';
import type { A2AAgentStatus } from '../../src/api/a2aagent.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const T1 = Date.parse('2030-01-01T00:01:00Z');

const ready: A2AAgentStatus = {
  observedGeneration: 1,
  verified: '3/3',
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'Succeeded',
      message: 'ok',
      observedGeneration: 1,
      lastTransitionTime: '2029-12-31T00:00:00.000Z',
    },
    {
      type: 'CardValid',
      status: 'True',
      reason: 'CardValid',
      message: 'ok',
      observedGeneration: 1,
      lastTransitionTime: '2029-12-31T00:00:00.000Z',
    },
    {
      type: 'Reconciling',
      status: 'False',
      reason: 'Settled',
      message: '',
      observedGeneration: 1,
      lastTransitionTime: '2029-12-31T00:00:00.000Z',
    },
  ],
};

describe('progressStatus', () => {
  it('first visit with no status: every condition Unknown except Reconciling=True, Stalled=False', () => {
    const s = progressStatus(undefined, 1, T0);
    assert.equal(s.observedGeneration, 1);
    assert.deepEqual(
      s.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}@${c.observedGeneration}`).sort(),
      [
        'Advertised=Unknown/Probing@1',
        'CardValid=Unknown/Probing@1',
        'InterfacesVerified=Unknown/Probing@1',
        'PodsConsistent=Unknown/Probing@1',
        'Ready=Unknown/Probing@1',
        'Reconciling=True/Probing@1',
        'Stalled=False/Probing@1',
      ],
    );
    for (const c of s.conditions ?? []) assert.equal(c.lastTransitionTime, new Date(T0).toISOString());
  });

  it('a new generation keeps known verdicts (restamped) and the other status fields', () => {
    const s = progressStatus(ready, 2, T1);
    const card = s.conditions?.find((c) => c.type === 'CardValid');
    assert.deepEqual(card, { ...ready.conditions![1], observedGeneration: 2 });
    assert.equal(s.verified, '3/3');
    const r = s.conditions?.find((c) => c.type === 'Ready');
    assert.equal(r?.status, 'Unknown');
    assert.equal(r?.lastTransitionTime, new Date(T1).toISOString(), 'Ready flipped, so it transitions now');
  });
});

describe('invalidSpecStatus', () => {
  it('Stalled=True, Ready=False with InvalidSpec; unchanged statuses keep their transition time', () => {
    const s = invalidSpecStatus(ready, 3, 'spec is invalid: ports: too small', T1);
    const by = Object.fromEntries((s.conditions ?? []).map((c) => [c.type, c]));
    assert.equal(by.Stalled?.status, 'True');
    assert.equal(by.Stalled?.reason, 'InvalidSpec');
    assert.equal(by.Ready?.status, 'False');
    assert.equal(by.Ready?.message, 'spec is invalid: ports: too small');
    assert.equal(by.Reconciling?.lastTransitionTime, '2029-12-31T00:00:00.000Z', 'Reconciling stayed False');
    assert.equal(s.observedGeneration, 3);
  });
});
