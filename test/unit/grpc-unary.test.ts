// grpcUnary(): one unary call on a grpc-js channel's call API, against a real grpc-js server (an
// error status with its headers, trailers and details; OK with a message) and a raw HTTP/2 server
// (OK without a message, a silent one for the deadline and the caller's abort).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer as createH2Server, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import {
  Client,
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type ServiceDefinition,
  type handleUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { CANCELLED_ON_CLIENT, grpcUnary, type GrpcUnaryRequest } from '../../src/probe/grpc-unary.js';

const METHOD = '/test.Echo/Get';
const raw = (b: Buffer) => b;
const definition: ServiceDefinition = {
  Get: {
    path: METHOD,
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
};

/** A grpc-js server with `definition` served by `impl`; its client's channel and a close(). */
async function serve(definition: ServiceDefinition, impl: UntypedServiceImplementation) {
  const server = new Server();
  server.addService(definition, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  return {
    channel: client.getChannel(),
    close: () => {
      client.close();
      server.forceShutdown();
    },
  };
}

/** A grpc-js server whose Get handler is `handler`. */
function grpcServer(handler: handleUnaryCall<Buffer, Buffer>) {
  return serve(definition, { Get: handler });
}

/** A raw HTTP/2 server answering every stream with `answer` (or nothing). */
async function h2Server(answer?: (stream: ServerHttp2Stream) => void) {
  const server: Http2Server = createH2Server();
  server.on('stream', (stream) => {
    stream.on('error', () => undefined);
    answer?.(stream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const client = new Client(
    `127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials.createInsecure(),
  );
  return {
    channel: client.getChannel(),
    close: () => {
      client.close();
      server.close();
    },
  };
}

const request = (over: Partial<GrpcUnaryRequest> = {}): GrpcUnaryRequest => {
  const metadata = new Metadata();
  metadata.set('a2a-version', '1.0');
  return { method: METHOD, message: Buffer.from('ping'), metadata, deadline: Date.now() + 5000, ...over };
};

test('an error status: its code, details, trailers and the response headers', async () => {
  let seen: { message: string; version: unknown } | undefined;
  const s = await grpcServer((call, callback) => {
    seen = { message: call.request.toString(), version: call.metadata.get('a2a-version')[0] };
    call.sendMetadata(new Metadata());
    const trailers = new Metadata();
    trailers.set('x-reason', 'gone');
    callback({ code: GrpcStatus.NOT_FOUND, details: 'task 42 not found', metadata: trailers });
  });
  try {
    const a = await grpcUnary(s.channel, request());
    assert.deepEqual(seen, { message: 'ping', version: '1.0' });
    assert.equal(a.code, GrpcStatus.NOT_FOUND);
    assert.equal(a.details, 'task 42 not found');
    assert.equal(a.trailers.get('x-reason')[0], 'gone');
    assert.equal(a.headers?.get('content-type')[0], 'application/grpc+proto');
  } finally {
    s.close();
  }
});

test('OK with a message is OK with no details', async () => {
  const s = await grpcServer((_call, callback) => callback(null, Buffer.from('task')));
  try {
    const a = await grpcUnary(s.channel, request());
    assert.equal(a.code, GrpcStatus.OK);
    assert.equal(a.details, '');
  } finally {
    s.close();
  }
});

test('OK without a message is UNIMPLEMENTED, as the client surface reports it', async () => {
  const s = await h2Server((stream) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end();
  });
  try {
    const a = await grpcUnary(s.channel, request());
    assert.equal(a.code, GrpcStatus.UNIMPLEMENTED);
    assert.equal(a.details, 'No message received');
    assert.equal(a.headers?.get('content-type')[0], 'application/grpc');
  } finally {
    s.close();
  }
});

test('a silent server: the call ends DEADLINE_EXCEEDED at its deadline', async () => {
  const s = await h2Server();
  try {
    const started = Date.now();
    const a = await grpcUnary(s.channel, request({ deadline: Date.now() + 300 }));
    assert.equal(a.code, GrpcStatus.DEADLINE_EXCEEDED);
    assert.ok(Date.now() - started >= 250, 'not before the deadline');
  } finally {
    s.close();
  }
});

test("the caller's abort ends the call CANCELLED at once and leaves no listener behind", async () => {
  const s = await h2Server();
  const ac = new AbortController();
  try {
    const pending = grpcUnary(s.channel, request({ deadline: Date.now() + 60_000, signal: ac.signal }));
    await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    const a = await pending;
    assert.equal(a.code, GrpcStatus.CANCELLED);
    assert.equal(a.details, CANCELLED_ON_CLIENT);
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
  } finally {
    s.close();
  }
});

test('a signal aborted before the call: CANCELLED; a call that ends removes its abort listener', async () => {
  const s = await grpcServer((_call, callback) => callback({ code: GrpcStatus.NOT_FOUND }));
  try {
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(
      (await grpcUnary(s.channel, request({ signal: aborted.signal }))).code,
      GrpcStatus.CANCELLED,
    );
    const live = new AbortController();
    assert.equal((await grpcUnary(s.channel, request({ signal: live.signal }))).code, GrpcStatus.NOT_FOUND);
    assert.equal(getEventListeners(live.signal, 'abort').length, 0);
  } finally {
    s.close();
  }
});

const STREAM = '/test.Echo/Watch';

/** A grpc-js server whose server-streaming Watch handler is `handler`. */
function streamServer(handler: (call: ServerWritableStream<Buffer, Buffer>) => void) {
  return serve(
    {
      Watch: {
        path: STREAM,
        requestStream: false,
        responseStream: true,
        requestSerialize: raw,
        requestDeserialize: raw,
        responseSerialize: raw,
        responseDeserialize: raw,
      },
    },
    { Watch: handler },
  );
}

test('firstMessage: a served stream answers OK at its first message and is cancelled, not read on', async () => {
  let cancelled = false;
  const s = await streamServer((call) => {
    call.on('cancelled', () => (cancelled = true));
    call.sendMetadata(new Metadata());
    call.write(Buffer.from('event-1'));
    call.write(Buffer.from('event-2'));
    // Never ends: only the client's cancel ends this call.
  });
  try {
    const answer = await grpcUnary(s.channel, request({ method: STREAM, firstMessage: true }));
    assert.equal(answer.code, GrpcStatus.OK);
    assert.equal(answer.headers?.get('content-type')[0], 'application/grpc+proto');
    for (let i = 0; i < 50 && !cancelled; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(cancelled, true, 'the server saw the call cancelled');
  } finally {
    s.close();
  }
});

test('firstMessage: a stream that ends OK without a message is OK; an error status is that status with its trailers', async () => {
  let fail = false;
  const s = await streamServer((call) => {
    if (!fail) return void call.end();
    const trailers = new Metadata();
    trailers.set('x-reason', 'unsupported');
    call.emit('error', { code: GrpcStatus.UNIMPLEMENTED, details: 'no streaming', metadata: trailers });
  });
  try {
    const empty = await grpcUnary(s.channel, request({ method: STREAM, firstMessage: true }));
    assert.deepEqual({ code: empty.code, details: empty.details }, { code: GrpcStatus.OK, details: '' });
    fail = true;
    const refused = await grpcUnary(s.channel, request({ method: STREAM, firstMessage: true }));
    assert.equal(refused.code, GrpcStatus.UNIMPLEMENTED);
    assert.equal(refused.details, 'no streaming');
    assert.deepEqual(refused.trailers.get('x-reason'), ['unsupported']);
  } finally {
    s.close();
  }
});
