import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transitions } from '../harness/routing-observer.js';
import { judgeCall, tallyCalls, type ClientCall, type JudgeOptions } from '../harness/traffic-verdict.js';

const D = 12_000;
const A = '10.0.0.1';
const B = '10.0.0.2';

/** A and B up from 0; A breaks at `aDown` (and heals at `aUp`), B at `bDown`. */
function opts(t: { aDown?: number; aUp?: number; bDown?: number } = {}): JudgeOptions {
  const history = new Transitions();
  history.set(A, true, 0);
  history.set(B, true, 0);
  if (t.aDown !== undefined) history.set(A, false, t.aDown);
  if (t.aUp !== undefined) history.set(A, true, t.aUp);
  if (t.bDown !== undefined) history.set(B, false, t.bDown);
  return { history, addresses: [A, B], churned: ['GRPC'], boundMs: D };
}

const failed = (t0: number, extra: Partial<ClientCall> = {}): ClientCall => ({
  binding: 'GRPC',
  tc: t0 - 100,
  t0,
  t1: t0 + 50,
  cause: 'refused',
  ...extra,
});

describe('traffic verdict', () => {
  it('an answered call is answered, whatever the history says', () => {
    assert.deepEqual(judgeCall({ ...failed(50_000), pod: 'p1' }, opts({ aDown: 1_000 })), {
      kind: 'answered',
      pod: 'p1',
    });
  });

  it('a failure with no pod down, or of a binding never broken, is unexplained', () => {
    assert.equal(judgeCall(failed(50_000), opts()).kind, 'unexplained');
    assert.equal(
      judgeCall(failed(50_000, { binding: 'JSONRPC' }), opts({ aDown: 1_000 })).kind,
      'unexplained',
    );
    // A was down before the call and healed before it began
    assert.equal(judgeCall(failed(50_000), opts({ aDown: 30_000, aUp: 40_000 })).kind, 'unexplained');
  });

  it('a failure while a pod is broken for less than D is excused', () => {
    assert.deepEqual(judgeCall(failed(50_000), opts({ aDown: 45_000 })), { kind: 'excused', pods: [A] });
    // broke during the call
    assert.equal(judgeCall(failed(50_000), opts({ aDown: 50_020 })).kind, 'excused');
  });

  it('a failure while every broken pod is broken for longer than D is a violation', () => {
    assert.deepEqual(judgeCall(failed(50_000), opts({ aDown: 30_000 })), { kind: 'violation', pods: [A] });
  });

  it('one pod broken long ago and one freshly: the fresh one may have caused it', () => {
    assert.deepEqual(judgeCall(failed(50_000), opts({ aDown: 30_000, bDown: 48_000 })), {
      kind: 'excused',
      pods: [B],
    });
  });

  it('the bound counts from when the client fetched the card it followed', () => {
    // A broke 13 s before the call, but the card was fetched 2 s before the call
    const call = failed(50_000, { tc: 48_000 });
    assert.equal(judgeCall(call, opts({ aDown: 37_000 })).kind, 'excused');
    assert.equal(judgeCall(call, opts({ aDown: 35_000 })).kind, 'violation');
  });

  it('tallies per binding: answers per pod, failures per cause, verdicts', () => {
    const calls: ClientCall[] = [
      { ...failed(50_000), pod: 'p1' },
      { ...failed(50_100), pod: 'p1' },
      { ...failed(50_200), pod: 'p2', binding: 'JSONRPC' },
      failed(50_300),
      failed(50_400, { cause: 'timeout' }),
      failed(50_500, { binding: 'JSONRPC', cause: 'reset' }),
    ];
    const t = tallyCalls(calls, opts({ aDown: 45_000 }));
    assert.deepEqual(t.GRPC, {
      calls: 4,
      answeredBy: { p1: 2 },
      failures: { refused: 1, timeout: 1 },
      excused: 2,
      violations: 0,
      unexplained: 0,
    });
    assert.deepEqual(t.JSONRPC, {
      calls: 2,
      answeredBy: { p2: 1 },
      failures: { reset: 1 },
      excused: 0,
      violations: 0,
      unexplained: 1,
    });
  });
});
