/** Classification tables: one answer in, one interface state and reason out (docs/conditions.md). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  classifyGrpc,
  classifyJsonRpc,
  classifyRest,
  classifyTransportFailure,
} from '../../src/probe/index.js';
import { httpAnswer, rpcError } from './answer-fixtures.js';

const ctx = { what: 'x', request: 'r', version: '1.0', bearerSent: false };
const json = httpAnswer;

const jsonRpcCases: [string, ReturnType<typeof json>, string, string][] = [
  ['-32001 TaskNotFound', json(200, rpcError(-32001)), 'Verified', 'Verified'],
  ['-32009 VersionNotSupported', json(200, rpcError(-32009)), 'VersionNotSupported', 'VersionNotSupported'],
  [
    'ErrorInfo VERSION_NOT_SUPPORTED under another code',
    json(
      200,
      rpcError(-32600, [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'VERSION_NOT_SUPPORTED' },
      ]),
    ),
    'VersionNotSupported',
    'VersionNotSupported',
  ],
  ['-32601 method not found', json(200, rpcError(-32601)), 'Unimplemented', 'InterfaceUnimplemented'],
  ['-32603 internal (HTTP 500)', json(500, rpcError(-32603)), 'Inconclusive', 'ProbeInconclusive'],
  ['-32004 unsupported operation', json(200, rpcError(-32004)), 'Inconclusive', 'ProbeInconclusive'],
  ['401', json(401, { error: 'x' }), 'AuthRequired', 'InterfaceAuthRequired'],
  ['403', json(403, ''), 'AuthRequired', 'InterfaceAuthRequired'],
  [
    '404 HTML route',
    json(404, '<html>Cannot POST</html>', 'text/html'),
    'Unimplemented',
    'InterfaceUnimplemented',
  ],
  ['200 HTML', json(200, '<html></html>', 'text/html'), 'WrongBinding', 'WrongBinding'],
  ['415', json(415, ''), 'WrongBinding', 'WrongBinding'],
  ['200 JSON but not JSON-RPC', json(200, { ok: true }), 'WrongBinding', 'WrongBinding'],
  ['502 plain', json(502, 'bad gateway', 'text/plain'), 'Inconclusive', 'ProbeInconclusive'],
  ['result', json(200, { jsonrpc: '2.0', id: 'p', result: { id: 't' } }), 'Verified', 'Verified'],
];
for (const [name, answer, state, reason] of jsonRpcCases) {
  void test(`JSON-RPC: ${name} → ${state}`, () => {
    const v = classifyJsonRpc(answer, ctx);
    assert.deepEqual([v.state, v.reason], [state, reason]);
  });
}

const info = (reason: string) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain: 'a2a-protocol.org',
});
const restCases: [string, ReturnType<typeof json>, string][] = [
  [
    '404 TASK_NOT_FOUND',
    json(404, { error: { code: 404, status: 'NOT_FOUND', details: [info('TASK_NOT_FOUND')] } }),
    'Verified',
  ],
  ['404 v0.3 body', json(404, { code: -32001, message: 'Task not found' }), 'Verified'],
  [
    '400 VERSION_NOT_SUPPORTED',
    json(400, { error: { details: [info('VERSION_NOT_SUPPORTED')] } }),
    'VersionNotSupported',
  ],
  ['404 HTML route', json(404, '<html></html>', 'text/html'), 'Unimplemented'],
  ['404 JSON without ErrorInfo', json(404, { error: { code: 404 } }), 'Unimplemented'],
  ['405', json(405, ''), 'Unimplemented'],
  ['401', json(401, ''), 'AuthRequired'],
  ['415', json(415, ''), 'WrongBinding'],
  ['500', json(500, { error: { code: 500, status: 'INTERNAL' } }), 'Inconclusive'],
  ['200 HTML', json(200, '<html></html>', 'text/html'), 'WrongBinding'],
  ['200 task', json(200, { id: 't', status: {} }), 'Verified'],
];
for (const [name, answer, state] of restCases) {
  void test(`REST: ${name} → ${state}`, () => assert.equal(classifyRest(answer, ctx).state, state));
}

const gctx = {
  what: 'x',
  request: '/lf.a2a.v1.A2AService/GetTask',
  version: '1.0',
  bearerSent: false,
  timeoutMs: 100,
};
const grpcCases: [string, number, string[], boolean, string, string][] = [
  ['NOT_FOUND + TASK_NOT_FOUND', 5, ['TASK_NOT_FOUND'], true, '1.0', 'Verified'],
  ['NOT_FOUND without ErrorInfo (v1.0)', 5, [], true, '1.0', 'Inconclusive'],
  ['NOT_FOUND without ErrorInfo (v0.3)', 5, [], true, '0.3', 'Verified'],
  ['UNIMPLEMENTED', 12, [], true, '1.0', 'Unimplemented'],
  ['UNIMPLEMENTED from a non-gRPC HTTP/2 404', 12, [], false, '1.0', 'WrongBinding'],
  ['UNKNOWN from a non-gRPC HTTP/2 415', 2, [], false, '1.0', 'WrongBinding'],
  [
    'FAILED_PRECONDITION + VERSION_NOT_SUPPORTED',
    9,
    ['VERSION_NOT_SUPPORTED'],
    true,
    '1.0',
    'VersionNotSupported',
  ],
  [
    'UNIMPLEMENTED + VERSION_NOT_SUPPORTED (v1.0.0)',
    12,
    ['VERSION_NOT_SUPPORTED'],
    true,
    '1.0',
    'VersionNotSupported',
  ],
  ['UNAUTHENTICATED', 16, [], true, '1.0', 'AuthRequired'],
  ['PERMISSION_DENIED', 7, [], true, '1.0', 'AuthRequired'],
  ['DEADLINE_EXCEEDED', 4, [], false, '1.0', 'Timeout'],
  ['INTERNAL', 13, [], true, '1.0', 'Inconclusive'],
  ['OK', 0, [], true, '1.0', 'Verified'],
];
for (const [name, code, reasons, grpcContentType, version, state] of grpcCases) {
  void test(`gRPC: ${name} → ${state}`, () => {
    const v = classifyGrpc(
      { code, details: '', errorInfoReasons: reasons, grpcContentType },
      { ...gctx, version },
    );
    assert.equal(v.state, state);
  });
}

const transportCases: [string, unknown, boolean, string][] = [
  ['ECONNREFUSED', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), false, 'Unreachable'],
  ['undici socket closed', Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }), false, 'Unreachable'],
  ['headers timeout', Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), false, 'Timeout'],
  ['abort signal timeout', new DOMException('t', 'TimeoutError'), false, 'Timeout'],
  [
    'plaintext answer to TLS',
    Object.assign(new Error('x'), { code: 'ERR_SSL_WRONG_VERSION_NUMBER' }),
    true,
    'TLSError',
  ],
  [
    'untrusted certificate',
    Object.assign(new Error('x'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }),
    true,
    'TLSError',
  ],
  [
    'ALPN h2 refused',
    Object.assign(new Error('x'), { code: 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' }),
    true,
    'WrongBinding',
  ],
  [
    'HTTP/0.9 answer',
    Object.assign(new Error('x'), { name: 'HTTPParserError', data: 'garbage' }),
    false,
    'WrongBinding',
  ],
  [
    'cause chain',
    new Error('outer', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
    false,
    'Unreachable',
  ],
];
for (const [name, err, tls, state] of transportCases) {
  void test(`transport: ${name} → ${state}`, () => {
    assert.equal(classifyTransportFailure(err, { what: 'x', tls, timeoutMs: 1, evidence: {} }).state, state);
  });
}
