/**
 * Auth failures in every shape the spec allows (v1.0 §3.3.2: "HTTP 401, gRPC UNAUTHENTICATED,
 * JSON-RPC custom error"), one table: each is AuthRequired, with or without a token sent, and
 * nothing that merely resembles one is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyGrpc, classifyJsonRpc, classifyRest } from '../../src/probe/index.js';
import type { Verdict } from '../../src/probe/probe-result.js';
import { errorInfo, httpAnswer, rpcError } from './answer-fixtures.js';

const info = (reason: string) => errorInfo(reason, 'a2a-protocol.org');
const answer = httpAnswer;
const httpCtx = (bearerSent: boolean) => ({ what: 'x', request: 'r', version: '1.0', bearerSent });
const grpcCtx = (bearerSent: boolean) => ({
  what: 'x',
  request: '/lf.a2a.v1.A2AService/GetTask',
  version: '1.0',
  bearerSent,
  timeoutMs: 1000,
});

type Classify = (bearerSent: boolean) => Verdict;
const jsonRpc =
  (status: number, body: unknown): Classify =>
  (b) =>
    classifyJsonRpc(answer(status, body), httpCtx(b));
const rest =
  (status: number, body: unknown): Classify =>
  (b) =>
    classifyRest(answer(status, body), httpCtx(b));
const grpc =
  (code: number, errorInfoReasons: string[] = []): Classify =>
  (b) =>
    classifyGrpc({ code, details: 'denied', errorInfoReasons, grpcContentType: true }, grpcCtx(b));

/** [binding and shape, classifier, expected state]. */
const cases: [string, Classify, string][] = [
  // JSON-RPC: HTTP status from middleware in front (the JS SDK's shape)
  ['JSON-RPC HTTP 401', jsonRpc(401, { error: 'unauthorized' }), 'AuthRequired'],
  ['JSON-RPC HTTP 403', jsonRpc(403, ''), 'AuthRequired'],
  // JSON-RPC: HTTP 200 with a custom error (a2a-go's shape), with and without ErrorInfo
  [
    'JSON-RPC -31401 + ErrorInfo UNAUTHENTICATED',
    jsonRpc(200, rpcError(-31401, [info('UNAUTHENTICATED')])),
    'AuthRequired',
  ],
  [
    'JSON-RPC -31403 + ErrorInfo PERMISSION_DENIED',
    jsonRpc(200, rpcError(-31403, [info('PERMISSION_DENIED')])),
    'AuthRequired',
  ],
  [
    'JSON-RPC -31403 + ErrorInfo UNAUTHORIZED (a2a-go)',
    jsonRpc(200, rpcError(-31403, [info('UNAUTHORIZED')])),
    'AuthRequired',
  ],
  ['JSON-RPC -31401 without data', jsonRpc(200, rpcError(-31401)), 'AuthRequired'],
  ['JSON-RPC -31403 without data', jsonRpc(200, rpcError(-31403)), 'AuthRequired'],
  [
    'JSON-RPC other code + ErrorInfo UNAUTHENTICATED',
    jsonRpc(200, rpcError(-32000, [info('UNAUTHENTICATED')])),
    'AuthRequired',
  ],
  [
    'JSON-RPC other code + ErrorInfo PERMISSION_DENIED',
    jsonRpc(200, rpcError(-32603, [info('PERMISSION_DENIED')])),
    'AuthRequired',
  ],
  // JSON-RPC: not auth
  ['JSON-RPC -32001 TaskNotFound', jsonRpc(200, rpcError(-32001, [info('TASK_NOT_FOUND')])), 'Verified'],
  ['JSON-RPC -32004 UnsupportedOperation', jsonRpc(200, rpcError(-32004)), 'Inconclusive'],
  ['JSON-RPC -31400 (not an auth code)', jsonRpc(200, rpcError(-31400)), 'Inconclusive'],
  [
    'JSON-RPC reason UNAUTHENTICATED outside an ErrorInfo',
    jsonRpc(
      200,
      rpcError(-32000, [
        { '@type': 'type.googleapis.com/google.protobuf.Struct', reason: 'UNAUTHENTICATED' },
      ]),
    ),
    'Inconclusive',
  ],
  // REST
  [
    'REST 401',
    rest(401, { error: { code: 401, status: 'UNAUTHENTICATED', details: [info('UNAUTHENTICATED')] } }),
    'AuthRequired',
  ],
  [
    'REST 403',
    rest(403, { error: { code: 403, status: 'PERMISSION_DENIED', details: [info('PERMISSION_DENIED')] } }),
    'AuthRequired',
  ],
  ['REST 401 without a body', rest(401, ''), 'AuthRequired'],
  // gRPC
  ['gRPC UNAUTHENTICATED', grpc(16), 'AuthRequired'],
  ['gRPC PERMISSION_DENIED', grpc(7), 'AuthRequired'],
  ['gRPC UNAUTHENTICATED + ErrorInfo', grpc(16, ['UNAUTHENTICATED']), 'AuthRequired'],
];

for (const [name, classify, state] of cases) {
  void test(`${name} → ${state}`, () => {
    const none = classify(false);
    assert.equal(none.state, state, none.message);
    const sent = classify(true);
    assert.equal(sent.state, state, sent.message);
    if (state === 'AuthRequired') {
      assert.equal(none.reason, 'InterfaceAuthRequired');
      assert.match(none.message, /configure a probe token/);
      assert.match(sent.message, /bearer token was sent/);
    }
  });
}

void test('JSON-RPC auth error keeps its code and reason as evidence', () => {
  const v = classifyJsonRpc(answer(200, rpcError(-31401, [info('UNAUTHENTICATED')])), httpCtx(false));
  assert.deepEqual(
    [v.evidence.httpStatus, v.evidence.jsonRpcCode, v.evidence.errorInfoReason],
    [200, -31401, 'UNAUTHENTICATED'],
  );
  assert.match(v.message, /-31401 UNAUTHENTICATED/);
});
