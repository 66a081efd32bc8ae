// The classification table of reconcile errors (docs/conditions.md "Reconcile errors") and the
// status an apply failure ends in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, classifyError, NotLeaderError, TerminalError } from '../../src/kube/errors.js';
import { SigningKeyError } from '../../src/routing/card-signing.js';
import { applyFailedStatus, applyFailureMessage } from '../../src/controller/apply-failure.js';
import type { A2AAgentStatus } from '../../src/api/a2aagent.js';

const api = (status: number, reason = '') => new ApiError(status, reason, `HTTP ${status}`, 'PATCH /x');

describe('classifyError', () => {
  const table: [string, unknown, string, string][] = [
    ['422 Invalid', api(422, 'Invalid'), 'stalling', 'Invalid'],
    ['400 BadRequest', api(400, 'BadRequest'), 'stalling', 'Invalid'],
    ['413 too large', api(413, 'RequestEntityTooLarge'), 'stalling', 'Invalid'],
    ['TerminalError', new TerminalError('no'), 'stalling', 'Invalid'],
    ['403 Forbidden', api(403, 'Forbidden'), 'waiting', 'Forbidden'],
    ['signing error', new SigningKeyError('signing failed'), 'waiting', 'SigningKeyInvalid'],
    ['409 Conflict', api(409, 'Conflict'), 'transient', 'ApplyFailed'],
    ['404 NotFound', api(404, 'NotFound'), 'transient', 'ApplyFailed'],
    ['429', api(429, 'TooManyRequests'), 'transient', 'ApplyFailed'],
    ['500', api(500, 'InternalError'), 'transient', 'ApplyFailed'],
    ['503', api(503, 'ServiceUnavailable'), 'transient', 'ApplyFailed'],
    [
      'network error',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'transient',
      'ApplyFailed',
    ],
    ['not leader', new NotLeaderError('lost'), 'transient', 'ApplyFailed'],
    ['a non-Error', 'boom', 'transient', 'ApplyFailed'],
    [
      'an error with a free-text reason',
      Object.assign(new Error('x'), { reason: 'has spaces in it' }),
      'transient',
      'ApplyFailed',
    ],
  ];
  for (const [what, err, cls, reason] of table) {
    it(`${what} → ${cls} (${reason})`, () => assert.deepEqual(classifyError(err), { class: cls, reason }));
  }
});

describe('applyFailedStatus', () => {
  const before: A2AAgentStatus = {
    observedGeneration: 1,
    interfaces: [
      {
        url: 'http://a/rpc',
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
        state: 'Verified',
        verifiedPods: '1/1',
        advertised: false,
        message: '',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
    conditions: [],
  };
  const decided: A2AAgentStatus = {
    ...before,
    interfaces: before.interfaces!.map((i) => ({ ...i, advertised: true })),
    conditions: [
      {
        type: 'Advertised',
        status: 'True',
        reason: 'RoutingApplied',
        message: '1/1',
        lastTransitionTime: 't',
      },
      { type: 'Reconciling', status: 'True', reason: 'Probing', message: '', lastTransitionTime: 't' },
    ],
  };
  const cond = (s: A2AAgentStatus, t: string) => s.conditions?.find((c) => c.type === t);

  it('stalling: Advertised=False, Stalled=True, not Reconciling, advertised as before', () => {
    const s = applyFailedStatus(decided, before, { class: 'stalling', reason: 'Invalid' }, 'bad name', 1, 0);
    assert.equal(cond(s, 'Advertised')?.status, 'False');
    assert.equal(cond(s, 'Advertised')?.reason, 'Invalid');
    assert.match(cond(s, 'Advertised')?.message ?? '', /bad name/);
    assert.equal(cond(s, 'Stalled')?.status, 'True');
    assert.equal(cond(s, 'Reconciling')?.status, 'False');
    assert.equal(cond(s, 'Ready')?.status, 'False');
    assert.equal(s.interfaces![0]!.advertised, false);
  });

  it('transient: Reconciling=True with ApplyFailed, not Stalled', () => {
    const s = applyFailedStatus(decided, before, { class: 'transient', reason: 'ApplyFailed' }, 'x', 1, 0);
    assert.equal(cond(s, 'Reconciling')?.status, 'True');
    assert.equal(cond(s, 'Reconciling')?.reason, 'ApplyFailed');
    assert.equal(cond(s, 'Stalled')?.status, 'False');
  });

  it('a retry of the same failure writes the same status (no new transition time)', () => {
    const first = applyFailedStatus(
      decided,
      before,
      { class: 'waiting', reason: 'Forbidden' },
      'denied',
      1,
      1000,
    );
    const again = applyFailedStatus(
      decided,
      first,
      { class: 'waiting', reason: 'Forbidden' },
      'denied',
      1,
      9000,
    );
    assert.deepEqual(again, first);
  });

  it('the API message is one printable line, clipped', () => {
    const m = applyFailureMessage(new Error(`a\nb\u001b[31m${'x'.repeat(2000)}`));
    assert.ok(!m.includes('\n') && !m.includes('\u001b'), m);
    assert.ok(m.length <= 512, String(m.length));
  });
});
