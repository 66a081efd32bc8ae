// Hostile text from cards and answers, on its way to status, Events and logs: control and bidi
// characters escaped, ErrorInfo reasons and URLs clipped, URL credentials redacted, and the
// probe's random task id never quoted (a message that changes on every probe churns status).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { InterfaceStatus } from '../../src/api/a2aagent.js';
import { InterfaceState } from '../../src/api/conditions.js';
import { aggregateInterface, clip } from '../../src/controller/aggregate.js';
import { interfacesCondition } from '../../src/controller/condition-policies.js';
import { interfaceEvents } from '../../src/controller/transition-events.js';
import { classifyGrpc, classifyJsonRpc, classifyRest } from '../../src/probe/index.js';
import {
  TASK_ID_PLACEHOLDER,
  withoutTaskId,
  withoutUrlCredentials,
} from '../../src/probe/settled-verdict.js';
import type { Verdict } from '../../src/probe/probe-result.js';
import { clip as clipAnswer, MAX_ERROR_INFO_REASON, verdict } from '../../src/probe/verdict.js';

const HOSTILE = '\u001b[31mred\u001b[0m\n::error::pwned\u202eevil\u0007\u009b';
// A raw control or bidi character anywhere: exactly what must never get through.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function assertSafe(v: Verdict): void {
  assert.doesNotMatch(v.message, RAW, v.message);
  for (const [k, val] of Object.entries(v.evidence))
    if (typeof val === 'string') assert.doesNotMatch(val, RAW, `evidence.${k}: ${val}`);
}

const ctx = { what: `JSONRPC ${HOSTILE}`, request: 'POST /a2a', version: '1.0', bearerSent: false };
const errorInfo = (reason: string) => [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason }];
const json = (status: number, body: unknown, contentType = 'application/json') => ({
  status,
  contentType,
  body: Buffer.from(JSON.stringify(body)),
});

test('JSON-RPC: a hostile error message and ErrorInfo reason are escaped and clipped', () => {
  const long = `${HOSTILE}${'R'.repeat(10_000)}`;
  const v = classifyJsonRpc(
    json(200, { jsonrpc: '2.0', id: 1, error: { code: -32000, message: HOSTILE, data: errorInfo(long) } }),
    ctx,
  );
  assert.equal(v.state, InterfaceState.Inconclusive);
  assertSafe(v);
  assert.match(v.message, /\\u\{1b\}\[31mred/);
  assert.ok(v.evidence.errorInfoReason!.length <= MAX_ERROR_INFO_REASON);
  assert.ok(v.message.length < 1100, `${v.message.length}`);
});

test('REST: a hostile error body and content type are escaped', () => {
  const v = classifyRest(json(500, { error: { message: HOSTILE, details: errorInfo(HOSTILE) } }), ctx);
  assertSafe(v);
  const wrong = classifyRest(
    { status: 200, contentType: `text/html\u009b31m${HOSTILE}`, body: Buffer.from('<x>') },
    ctx,
  );
  assert.equal(wrong.state, InterfaceState.WrongBinding);
  assertSafe(wrong);
});

test('gRPC: hostile status details and ErrorInfo reason are escaped and clipped', () => {
  const v = classifyGrpc(
    {
      code: GrpcStatus.INTERNAL,
      details: HOSTILE,
      errorInfoReasons: [`${HOSTILE}${'X'.repeat(5000)}`],
      grpcContentType: true,
    },
    { ...ctx, timeoutMs: 1000 },
  );
  assertSafe(v);
  assert.ok(v.evidence.errorInfoReason!.length <= MAX_ERROR_INFO_REASON);
  assert.ok(!v.message.includes('X'.repeat(MAX_ERROR_INFO_REASON)));
});

test('verdict() escapes whatever message and evidence a caller builds', () => {
  assertSafe(
    verdict(InterfaceState.Unreachable, HOSTILE, { detail: HOSTILE, errorCode: HOSTILE, request: HOSTILE }),
  );
});

test('server text: ids normalised before clipping, so a message is the same on every probe', () => {
  const a = clipAnswer('task 0b6c1f0e-3f0a-4b8e-9a51-2f4c5d6e7f80 not found', 40);
  const b = clipAnswer('task 5D2A6C1B-0000-4ABC-8DEF-0123456789AB not found', 40);
  assert.equal(a, b);
  assert.equal(a, 'task <id> not found');
  // An id straddling the cut would leave a different fragment each time: normalised first.
  const cutA = clipAnswer(`${'x'.repeat(30)} 0b6c1f0e-3f0a-4b8e-9a51-2f4c5d6e7f80`, 36);
  const cutB = clipAnswer(`${'x'.repeat(30)} 11111111-2222-4333-8444-555555555555`, 36);
  assert.equal(cutA, cutB);
});

test('withoutTaskId replaces the probe task id in the message and evidence', () => {
  const id = 'f00dfeed-0000-4000-8000-000000000001';
  const v = withoutTaskId(
    verdict(InterfaceState.Inconclusive, `GET /tasks/${id}: no task ${id}`, {
      request: `GET /a2a/rest/tasks/${id}`,
      detail: `no task ${id}`,
    }),
    id,
  );
  assert.ok(!JSON.stringify(v).includes(id));
  assert.equal(v.evidence.request, `GET /a2a/rest/tasks/${TASK_ID_PLACEHOLDER}`);
  assert.equal(v.evidence.detail, `no task ${TASK_ID_PLACEHOLDER}`);
  assert.equal(v.message, `GET /tasks/${TASK_ID_PLACEHOLDER}: no task ${TASK_ID_PLACEHOLDER}`);
});

test('withoutTaskId and withoutUrlCredentials: a verdict with nothing to rewrite is returned as is', () => {
  const v = verdict(InterfaceState.Verified, 'POST /a2a GetTask answered TaskNotFoundError', {
    request: 'POST /a2a GetTask',
    detail: 'task <id> not found',
  });
  assert.equal(withoutTaskId(v, 'f00dfeed-0000-4000-8000-000000000001'), v);
  assert.equal(withoutUrlCredentials(v), v);
  const secret = verdict(InterfaceState.Verified, 'POST /a2a?token=SECRET1 GetTask', {
    request: 'POST /a2a?token=SECRET1 GetTask',
  });
  const redacted = withoutUrlCredentials(secret);
  assert.notEqual(redacted, secret);
  assert.ok(!JSON.stringify(redacted).includes('SECRET1'));
  assert.ok(JSON.stringify(secret).includes('SECRET1'), 'the input is not changed');
});

const URL_WITH_SECRETS = `http://alice:pw@billing:8080/a2a?token=SECRET1&x=1${HOSTILE}`;
const iface = {
  url: URL_WITH_SECRETS,
  protocolBinding: 'JSONRPC',
  protocolVersion: '1.0',
  index: 0,
  declaredAt: 'supportedInterfaces[0]',
};

test('controller messages: clip escapes; URLs shown redacted and escaped in conditions and Events', () => {
  assert.doesNotMatch(clip(HOSTILE), RAW);
  const status = (state: InterfaceState): InterfaceStatus => ({
    url: URL_WITH_SECRETS,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    state,
    verifiedPods: '0/1',
    advertised: false,
    message: HOSTILE,
  });
  const events = interfaceEvents([status(InterfaceState.Verified)], [status(InterfaceState.Inconclusive)]);
  assert.equal(events.length, 1);
  for (const e of events) {
    assert.doesNotMatch(e.message, RAW);
    assert.ok(!e.message.includes('SECRET1') && !e.message.includes(':pw@'), e.message);
  }
  const agg = aggregateInterface(iface, 'k', []);
  const cond = interfacesCondition(
    [{ ...agg, state: InterfaceState.Inconclusive, message: HOSTILE, pending: false }],
    1,
    true,
    1,
  );
  assert.doesNotMatch(cond.message, RAW);
  assert.ok(!cond.message.includes('SECRET1') && !cond.message.includes(':pw@'), cond.message);
});
