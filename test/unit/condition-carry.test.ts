/**
 * Conditions that decide() does not own (TaskContinuity, from the continuity step) or writes
 * only when something was probed (CapabilitiesVerified) are carried unchanged through the
 * statuses written outside a full decision (first visit of a generation, an invalid spec, a
 * failed apply): same status, reason, message and lastTransitionTime, only the generation
 * restamped. Dropping them would flap them away and back, a status write each way.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { A2AAgentStatus, Condition } from '../../src/api/a2aagent.js';
import { applyFailedStatus } from '../../src/controller/apply-failure.js';
import { invalidSpecStatus, progressStatus } from '../../src/controller/interim-status.js';

const T = Date.parse('2030-01-01T00:05:00Z');
const since = '2029-12-31T00:00:00.000Z';

const continuity: Condition = {
  type: 'TaskContinuity',
  status: 'True',
  reason: 'TaskShared',
  message: 'card sha256:abc: every verified interface found the task',
  observedGeneration: 1,
  lastTransitionTime: since,
};
const capabilities: Condition = {
  type: 'CapabilitiesVerified',
  status: 'False',
  reason: 'CapabilityNotServed',
  message: 'streaming NotServed',
  observedGeneration: 1,
  lastTransitionTime: since,
};
const previous: A2AAgentStatus = {
  observedGeneration: 1,
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'Succeeded',
      message: 'ok',
      observedGeneration: 1,
      lastTransitionTime: since,
    },
    continuity,
    capabilities,
  ],
  capabilities: [
    {
      name: 'streaming',
      declared: true,
      state: 'NotServed',
      interfaces: '0/2',
      message: 'streaming NotServed',
    },
  ],
};

function assertCarried(s: A2AAgentStatus, generation: number): void {
  for (const want of [continuity, capabilities]) {
    const got = s.conditions?.find((c) => c.type === want.type);
    assert.deepEqual(got, { ...want, observedGeneration: generation }, want.type);
  }
}

describe('conditions outside decide() are carried', () => {
  it('first visit of a new generation (progressStatus)', () => {
    const s = progressStatus(previous, 2, T);
    assertCarried(s, 2);
    assert.deepEqual(s.capabilities, previous.capabilities);
  });

  it('an invalid spec (invalidSpecStatus)', () => {
    const s = invalidSpecStatus(previous, 2, 'spec is invalid: ports: required', T);
    assertCarried(s, 2);
    assert.equal(s.conditions?.find((c) => c.type === 'Stalled')?.reason, 'InvalidSpec');
  });

  it('a failed apply (applyFailedStatus) keeps what the decision carried', () => {
    // The reconciler appends TaskContinuity to the decision's conditions before applying.
    const decided: A2AAgentStatus = { ...previous, observedGeneration: 1 };
    for (const failure of [
      { class: 'stalling', reason: 'Invalid' },
      { class: 'waiting', reason: 'Forbidden' },
      { class: 'transient', reason: 'ServerError' },
    ] as const) {
      const s = applyFailedStatus(decided, previous, failure, 'refused', 1, T);
      assertCarried(s, 1);
      assert.equal(s.conditions?.find((c) => c.type === 'Advertised')?.status, 'False', failure.class);
    }
  });
});
