/**
 * ExtensionSupportRequiredError (§3.3.4, §5.4: -32008 / gRPC FAILED_PRECONDITION / HTTP 400, each
 * with ErrorInfo EXTENSION_SUPPORT_REQUIRED) means the GetTask handler was reached: Verified, with
 * that evidence; look-alikes are not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InterfaceState } from '../../src/api/conditions.js';
import { classifyGrpc, classifyJsonRpc, classifyRest } from '../../src/probe/index.js';

const info = (reason: string) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  domain: 'a2a-protocol.org',
  reason,
});
const answer = (status: number, body: unknown) => ({
  status,
  contentType: 'application/json',
  body: Buffer.from(JSON.stringify(body)),
});
const http = { what: 'x', request: 'r', version: '1.0', bearerSent: false };
const grpc = { ...http, request: '/lf.a2a.v1.A2AService/GetTask', timeoutMs: 1000 };
const rpc = (code: number, data?: unknown) => ({
  jsonrpc: '2.0',
  id: 'p',
  error: { code, message: 'extension required', ...(data ? { data } : {}) },
});
const S = InterfaceState;

test('each binding: the extension-required answer is Verified and says so', () => {
  const cases = [
    classifyJsonRpc(answer(200, rpc(-32008)), http),
    classifyJsonRpc(answer(200, rpc(-32600, [info('EXTENSION_SUPPORT_REQUIRED')])), http),
    classifyRest(
      answer(400, {
        error: { code: 400, status: 'FAILED_PRECONDITION', details: [info('EXTENSION_SUPPORT_REQUIRED')] },
      }),
      http,
    ),
    classifyGrpc(
      { code: 9, details: 'ext', errorInfoReasons: ['EXTENSION_SUPPORT_REQUIRED'], grpcContentType: true },
      grpc,
    ),
  ];
  for (const v of cases) {
    assert.equal(v.state, S.Verified, v.message);
    assert.match(v.message, /EXTENSION_SUPPORT_REQUIRED|ExtensionSupportRequired/);
  }
});

test('look-alikes are not: FAILED_PRECONDITION without the reason, a 500 naming it, a REST 400 without it', () => {
  assert.notEqual(
    classifyGrpc({ code: 9, details: 'x', errorInfoReasons: [], grpcContentType: true }, grpc).state,
    S.Verified,
  );
  assert.notEqual(
    classifyRest(answer(500, { error: { details: [info('EXTENSION_SUPPORT_REQUIRED')] } }), http).state,
    S.Verified,
  );
  assert.notEqual(classifyRest(answer(400, { error: { message: 'bad' } }), http).state, S.Verified);
});
