// exchange(): one request and its bounded answer under one deadline and the caller's signal,
// against real local servers (answering, hanging, silent under TLS, cut mid-body).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { Client } from 'undici';
import { DeadlineError, ProbeAbortedError } from '../../src/probe/deadline.js';
import { exchange, type ExchangeRequest } from '../../src/probe/http-exchange.js';
import { errorCode } from '../../src/probe/transport-failure.js';

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** A TCP server that accepts and never says a word; closes every socket on close(). */
async function silentServer(): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  const port = await listen(server);
  return {
    port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const request = (over: Partial<ExchangeRequest> = {}): ExchangeRequest => ({
  method: 'POST',
  path: '/rpc',
  headers: { 'content-type': 'application/json' },
  body: '{"x":1}',
  timeoutMs: 2000,
  maxBodyBytes: 1024,
  ...over,
});

void test('exchange answers status, first content type and the whole body; the request went as given', async (t) => {
  let seen = '';
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'GET') return void res.writeHead(204).end();
      seen = `${req.method} ${req.url} ${req.headers['content-type']} ${body}`;
      res.writeHead(404, { 'content-type': 'application/json' });
      res.write('{"a":');
      setTimeout(() => res.end('2}'), 5); // two chunks
    });
  });
  const port = await listen(server);
  const client = new Client(`http://127.0.0.1:${port}`);
  t.after(async () => {
    await client.close();
    server.close();
  });
  const answer = await exchange(client, request());
  assert.equal(seen, 'POST /rpc application/json {"x":1}');
  const { status, contentType, truncated } = answer;
  assert.deepEqual(
    {
      status,
      contentType,
      truncated,
      body: answer.body.toString(),
      chunked: answer.headers['transfer-encoding'],
    },
    { status: 404, contentType: 'application/json', truncated: false, body: '{"a":2}', chunked: 'chunked' },
  );
  const empty = await exchange(client, request({ method: 'GET', body: undefined }));
  assert.deepEqual(
    { status: empty.status, length: empty.body.length, contentType: empty.contentType },
    {
      status: 204,
      length: 0,
      contentType: '',
    },
  );
});

void test('exchange stops reading at the limit, answers truncated and cuts the request', async (t) => {
  let closed = 0;
  const server = createHttpServer((_req, res) => {
    res.on('close', () => closed++);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('x'.repeat(600));
    setTimeout(() => res.write('y'.repeat(600)), 5);
    // Never ends: only the cut ends this exchange.
  });
  const port = await listen(server);
  const client = new Client(`http://127.0.0.1:${port}`);
  t.after(async () => {
    await client.destroy();
    server.close();
  });
  const answer = await exchange(client, request({ maxBodyBytes: 1000 }));
  assert.equal(answer.truncated, true);
  assert.equal(answer.body.toString(), 'x'.repeat(600) + 'y'.repeat(400));
  for (let i = 0; i < 50 && closed === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(closed, 1, 'the server saw the connection go');
});

void test('exchange with readUntil: complete once the test says so, the rest never read, the request cut; asked with the Content-Type', async (t) => {
  let closed = 0;
  const server = createHttpServer((req, res) => {
    res.on('close', () => closed++);
    if (req.url === '/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"a":1}');
    setTimeout(() => res.write('\n\ndata: {"b":2}\n\n'), 5);
    // Never ends: only the cut ends this exchange.
  });
  const port = await listen(server);
  const client = new Client(`http://127.0.0.1:${port}`);
  t.after(async () => {
    await client.destroy();
    server.close();
  });
  const asked: string[] = [];
  const readUntil = (contentType: string) => {
    asked.push(contentType);
    if (contentType !== 'text/event-stream') return undefined;
    let seen = '';
    return (chunk: Buffer) => (seen += chunk.toString()).includes('\n\n');
  };
  const answer = await exchange(client, request({ readUntil }));
  assert.deepEqual(
    { truncated: answer.truncated, body: answer.body.toString() },
    { truncated: false, body: 'data: {"a":1}\n\ndata: {"b":2}\n\n' },
  );
  for (let i = 0; i < 50 && closed === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(closed, 1, 'the server saw the connection go');
  // An answer the test is not for is read to its end, on a connection kept alive.
  const json = await exchange(client, request({ path: '/json', readUntil }));
  assert.deepEqual({ status: json.status, body: json.body.toString() }, { status: 200, body: '{}' });
  assert.deepEqual(asked, ['text/event-stream', 'application/json']);
  assert.equal(closed, 2);
});

void test('exchange does not read an answer whose Content-Length is past the limit', async (t) => {
  let closed = 0;
  const server = createHttpServer((_req, res) => {
    res.on('close', () => closed++);
    res.writeHead(200, { 'content-length': '5000' });
    res.write('z'.repeat(100)); // never the rest
  });
  const port = await listen(server);
  const client = new Client(`http://127.0.0.1:${port}`);
  t.after(async () => {
    await client.destroy();
    server.close();
  });
  const answer = await exchange(client, request({ maxBodyBytes: 1000 }));
  assert.deepEqual(
    { truncated: answer.truncated, length: answer.body.length },
    { truncated: true, length: 0 },
  );
  for (let i = 0; i < 50 && closed === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(closed, 1, 'the server saw the connection go');
});

void test('exchange rejects at its deadline with ERR_PROBE_TIMEOUT, even where undici is still connecting (silent TLS peer)', async (t) => {
  const silent = await silentServer();
  const plain = new Client(`http://127.0.0.1:${silent.port}`);
  const tls = new Client(`https://127.0.0.1:${silent.port}`, { connect: { timeout: 30_000 } });
  t.after(async () => {
    await Promise.all([plain.destroy(), tls.destroy()]);
    silent.close();
  });
  for (const client of [plain, tls]) {
    const started = performance.now();
    const err = await exchange(client, request({ timeoutMs: 150 })).then(
      () => assert.fail('answered'),
      (e: unknown) => e,
    );
    const took = performance.now() - started;
    assert.ok(err instanceof DeadlineError, String(err));
    assert.equal(errorCode(err), 'ERR_PROBE_TIMEOUT');
    assert.ok(took >= 140 && took < 5000, `settled after ${took} ms`);
  }
});

void test("exchange honours the caller's signal: not dispatched when already aborted, cut in flight, listener gone after", async (t) => {
  let requests = 0;
  const server = createHttpServer((req) => {
    requests++;
    req.resume(); // never answers
  });
  const port = await listen(server);
  const client = new Client(`http://127.0.0.1:${port}`);
  t.after(async () => {
    await client.destroy();
    server.closeAllConnections();
    server.close();
  });
  const done = new AbortController();
  done.abort();
  await assert.rejects(exchange(client, request({ signal: done.signal })), ProbeAbortedError);
  assert.equal(requests, 0, 'an aborted caller dials nothing');

  const caller = new AbortController();
  const pending = exchange(client, request({ signal: caller.signal, timeoutMs: 30_000 }));
  for (let i = 0; i < 100 && requests === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(requests, 1);
  assert.equal(getEventListeners(caller.signal, 'abort').length, 1);
  caller.abort();
  await assert.rejects(pending, ProbeAbortedError);

  const answered = createHttpServer((_req, res) => res.end('ok'));
  const port2 = await listen(answered);
  const client2 = new Client(`http://127.0.0.1:${port2}`);
  t.after(async () => {
    await client2.close();
    answered.close();
  });
  const steady = new AbortController();
  await exchange(client2, request({ signal: steady.signal }));
  assert.equal(
    getEventListeners(steady.signal, 'abort').length,
    0,
    'an answered exchange leaves no listener',
  );
});

void test('exchange passes on the transport error when the server drops the connection mid-answer', async (t) => {
  const server = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('part');
    setTimeout(() => res.socket?.destroy(), 5);
  });
  const port = await listen(server);
  const client = new Client(`http://127.0.0.1:${port}`);
  t.after(async () => {
    await client.destroy();
    server.close();
  });
  const err = await exchange(client, request()).then(
    () => assert.fail('answered'),
    (e: unknown) => e,
  );
  assert.equal(errorCode(err), 'UND_ERR_SOCKET');
});
