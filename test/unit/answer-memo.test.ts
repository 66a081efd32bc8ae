/**
 * The answer memo: a pod's same answer (the task id it echoes aside) is not classified again, and
 * any other answer is. Against a real HTTP server whose answers the test changes, and on the
 * memo's keys directly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CardParseError, parseCard, type ParsedCard } from '../../src/card/index.js';
import { AnswerMemo } from '../../src/probe/answer-memo.js';
import { Prober } from '../../src/probe/index.js';
import { TASK_ID_PLACEHOLDER } from '../../src/probe/settled-verdict.js';
import { verdict } from '../../src/probe/verdict.js';
import { InterfaceState } from '../../src/api/conditions.js';
import { Metadata, Server, ServerCredentials, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { encodeVarint, stringField } from '../../src/probe/protobuf-wire.js';

/** A JSON-RPC server whose error code the test sets; its message echoes the task id asked for. */
async function jsonRpcServer(): Promise<{ port: number; setCode(code: number): void; close(): void }> {
  let code = -32001;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id, params } = JSON.parse(body) as { id: string; params: { id: string } };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: `no task ${params.id} (é)` } }));
    });
  });
  // Every address: the test dials 127.0.0.1 and 127.0.0.2 (two pods).
  await new Promise<void>((r) => server.listen(0, r));
  return {
    port: (server.address() as AddressInfo).port,
    setCode: (c) => void (code = c),
    close: () => server.close(),
  };
}

function jsonRpcInterface(port: number, binding = 'JSONRPC') {
  const card = parseCard({
    name: 'm',
    supportedInterfaces: [
      {
        url: binding === 'GRPC' ? `http://a.ns.svc:${port}` : `http://a.ns.svc:${port}/rpc`,
        protocolBinding: binding,
        protocolVersion: '1.0',
      },
    ],
  });
  assert.ok(!(card instanceof CardParseError));
  return (card as ParsedCard).interfaces[0]!;
}

void test('the same answer is reused (one frozen verdict), a changed answer is classified afresh', async () => {
  const server = await jsonRpcServer();
  const prober = new Prober();
  try {
    const iface = jsonRpcInterface(server.port);
    const probe = () => prober.probe({ address: '127.0.0.1', port: server.port }, iface, { timeoutMs: 5000 });
    const first = await probe();
    assert.equal(first.state, InterfaceState.Verified);
    // The echoed task id is a placeholder (or the classifier's <id>): the message is stable.
    assert.doesNotMatch(JSON.stringify(first), /[0-9a-f]{8}-[0-9a-f]{4}-/);
    const second = await probe();
    assert.equal(second.evidence, first.evidence, 'the second answer (another task id) reused the verdict');
    assert.equal(second.message, first.message);
    assert.ok(Object.isFrozen(second.evidence));

    server.setCode(-32601);
    const changed = await probe();
    assert.equal(changed.state, InterfaceState.Unimplemented, 'a changed answer is not the memo’s');
    assert.equal(changed.evidence.jsonRpcCode, -32601);

    server.setCode(-32001);
    const back = await probe();
    assert.equal(back.state, InterfaceState.Verified);
    assert.equal(back.evidence, first.evidence, 'both forms are kept');

    // Another dialled address is another exchange: its own verdict, naming its own address.
    const other = await prober.probe({ address: '127.0.0.2', port: server.port }, iface, { timeoutMs: 5000 });
    assert.equal(other.state, InterfaceState.Verified);
    assert.notEqual(other.evidence, first.evidence);
    assert.match(other.message, /127\.0\.0\.2/);
    // A bearer token changes how an auth answer reads: another key.
    const withToken = await prober.probe({ address: '127.0.0.1', port: server.port }, iface, {
      timeoutMs: 5000,
      bearerToken: 'tok',
    });
    assert.notEqual(withToken.evidence, first.evidence);
  } finally {
    await prober.close();
    server.close();
  }
});

/**
 * A grpc-js server of lf.a2a.v1.A2AService/GetTask answering with the status the test sets; its
 * message echoes the task id asked for, and NOT_FOUND carries ErrorInfo TASK_NOT_FOUND as A2A's.
 */
const bytesField = (n: number, bytes: Buffer) =>
  Buffer.concat([Buffer.from([...encodeVarint((n << 3) | 2), ...encodeVarint(bytes.length)]), bytes]);
/** google.rpc.Status { code: NOT_FOUND, details: [Any(ErrorInfo { reason: TASK_NOT_FOUND })] }. */
const TASK_NOT_FOUND_STATUS = Buffer.concat([
  Buffer.from([0x08, GrpcStatus.NOT_FOUND]),
  bytesField(
    3,
    Buffer.concat([
      stringField(1, 'type.googleapis.com/google.rpc.ErrorInfo'),
      bytesField(2, Buffer.concat([stringField(1, 'TASK_NOT_FOUND'), stringField(2, 'a2a-protocol.org')])),
    ]),
  ),
]);

async function grpcServer(): Promise<{ port: number; setCode(code: GrpcStatus): void; close(): void }> {
  let code = GrpcStatus.NOT_FOUND;
  const server = new Server();
  // The SDK's own service definition (path and codecs of lf.a2a.v1.A2AService/GetTask).
  server.addService(
    { GetTask: A2AService.getTask },
    {
      GetTask: (call: { request: { id: string } }, callback: (err: Partial<ServiceError>) => void) => {
        const metadata = new Metadata();
        if (code === GrpcStatus.NOT_FOUND) metadata.set('grpc-status-details-bin', TASK_NOT_FOUND_STATUS);
        callback({ code, details: `no task ${call.request.id}`, metadata });
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('0.0.0.0:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { port, setCode: (c) => void (code = c), close: () => server.forceShutdown() };
}

void test('gRPC: the same status is reused, a changed one is classified afresh', async () => {
  const server = await grpcServer();
  const prober = new Prober();
  try {
    const iface = jsonRpcInterface(server.port, 'GRPC');
    const probe = () => prober.probe({ address: '127.0.0.1', port: server.port }, iface, { timeoutMs: 5000 });
    const first = await probe();
    assert.equal(first.state, InterfaceState.Verified, first.message);
    assert.doesNotMatch(JSON.stringify(first), /[0-9a-f]{8}-[0-9a-f]{4}-/);
    const second = await probe();
    assert.equal(second.evidence, first.evidence, 'the second status (another task id) reused the verdict');
    server.setCode(GrpcStatus.PERMISSION_DENIED);
    const denied = await probe();
    assert.equal(denied.state, InterfaceState.AuthRequired);
    assert.equal(denied.evidence.grpcCodeName, 'PERMISSION_DENIED');
    // UNIMPLEMENTED asks the other version's service too: two answers, never kept.
    server.setCode(GrpcStatus.UNIMPLEMENTED);
    const unimplemented = await probe();
    assert.equal(unimplemented.state, InterfaceState.Unimplemented);
    assert.notEqual((await probe()).evidence, unimplemented.evidence);
    server.setCode(GrpcStatus.NOT_FOUND);
    assert.equal((await probe()).evidence, first.evidence);
  } finally {
    await prober.close();
    server.close();
  }
});

const exchange = {
  what: 'JSONRPC v1.0 http://a:1/rpc (dialled 10.0.0.1:1)',
  request: 'POST /rpc GetTask',
  bearerSent: false,
};
const answer = (body: string | Buffer, status = 200) => ({
  status,
  contentType: 'application/json',
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
});
const T1 = '6f1c2a9e-0b7d-4e51-9a3c-5d2e8f7a1b40';
const T2 = 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d';

void test('keys: equal when only the task id differs, different for any other byte', () => {
  const memo = new AnswerMemo();
  const k1 = memo.key(exchange, answer(`{"error":{"message":"no task ${T1}"}}`), T1);
  assert.equal(memo.key(exchange, answer(`{"error":{"message":"no task ${T2}"}}`), T2), k1);
  // The id of another probe is not abstracted: an answer quoting it is another answer.
  assert.notEqual(memo.key(exchange, answer(`{"error":{"message":"no task ${T1}"}}`), T2), k1);
  // One byte inside a multi-byte UTF-8 character.
  const e = Buffer.from('{"m":"é"}');
  const f = Buffer.from(e);
  f[f.length - 3]! ^= 1;
  assert.notEqual(memo.key(exchange, answer(e), T1), memo.key(exchange, answer(f), T1));
  // Status, content type, bearer, request (a REST path holds the id), dialled address.
  const base = memo.key(exchange, answer('{}'), T1);
  assert.notEqual(memo.key(exchange, answer('{}', 500), T1), base);
  assert.notEqual(memo.key(exchange, { ...answer('{}'), contentType: 'text/plain' }, T1), base);
  assert.notEqual(memo.key({ ...exchange, bearerSent: true }, answer('{}'), T1), base);
  assert.notEqual(memo.key({ ...exchange, what: `${exchange.what}x` }, answer('{}'), T1), base);
  assert.equal(
    memo.key({ ...exchange, request: `GET /tasks/${T1}` }, answer('{}'), T1),
    memo.key({ ...exchange, request: `GET /tasks/${T2}` }, answer('{}'), T2),
  );
  // An answer holding the mark itself (NUL) would read like one holding the task id: not kept.
  assert.equal(memo.key(exchange, answer(`{"m":"no task \u0000"}`), T1), undefined);
  assert.notEqual(memo.key(exchange, answer(`{"m":"no task ${T1}"}`), T1), undefined);
  // A long answer is classified every time.
  assert.equal(memo.key(exchange, answer(`"${'x'.repeat(2048)}"`), T1), undefined);
});

void test('per interface, the oldest form goes past the bound; a kept verdict is frozen and known', () => {
  const memo = new AnswerMemo();
  const iface = {};
  const v = (n: number) =>
    verdict(InterfaceState.Verified, `v${n} ${TASK_ID_PLACEHOLDER}`, { detail: `${n}` });
  const keys = Array.from({ length: 3 }, (_, n) => memo.key(exchange, answer(`{"n":${n}}`), T1)!);
  const kept = keys.map((k, n) => memo.set(iface, k, v(n), T1));
  assert.equal(memo.get(iface, keys[0]!), undefined, 'the oldest of 3 forms is gone');
  for (let n = 1; n < 3; n++) assert.equal(memo.get(iface, keys[n]!), kept[n]);
  assert.equal(memo.get({}, keys[1]!), undefined, 'another interface has its own forms');
  assert.ok(memo.holds(kept[2]!));
  assert.ok(!memo.holds(v(1)));
  assert.throws(() => {
    (kept[2]!.evidence as { detail?: string }).detail = 'changed';
  }, TypeError);
});
