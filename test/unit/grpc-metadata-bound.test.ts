// Regression: the gRPC channels set `grpc.max_metadata_size`, which grpc-js does not read, so the
// bound on answer metadata was a claim, not a fact. The bound is Node's http2 default (a 64 KiB
// header list), which grpc-js keeps. A raw HTTP/2 server that ignores the client's SETTINGS sends
// a 256 KiB header block: the channel does not take it in; 60 KB is still read. How the refusal
// shows differs by runtime: on Node 20 the session answers with GOAWAY (COMPRESSION_ERROR) and the
// call ends at its deadline (the probe's timeout); on Node 24 the call ends at once with INTERNAL
// (RST_STREAM, protocol error). Either is a refusal; a hang is neither, so the GOAWAY is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { GrpcChannels } from '../../src/probe/grpc-channels.js';

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** HPACK integer with a 7-bit prefix (RFC 7541 5.1), H bit clear. */
function hpackInt(n: number): Buffer {
  if (n < 127) return Buffer.from([n]);
  const out = [127];
  n -= 127;
  while (n >= 128) {
    out.push((n % 128) + 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/** Literal header field without indexing, new name (RFC 7541 6.2.2). */
function literal(name: string, value: string): Buffer {
  return Buffer.concat([
    Buffer.from([0]),
    hpackInt(name.length),
    Buffer.from(name),
    hpackInt(value.length),
    Buffer.from(value),
  ]);
}

/** A trailers-only gRPC answer (NOT_FOUND) carrying `bigBytes` of metadata, in 16 KiB frames. */
function hostileAnswer(stream: number, bigBytes: number): Buffer {
  const block = Buffer.concat([
    Buffer.from([0x88]), // :status 200 (static table)
    literal('content-type', 'application/grpc'),
    literal('x-big', 'a'.repeat(bigBytes)),
    literal('grpc-status', '5'),
  ]);
  const frames: Buffer[] = [];
  for (let off = 0; off < block.length; off += 16_384) {
    const last = off + 16_384 >= block.length;
    const chunk = block.subarray(off, off + 16_384);
    // HEADERS (END_STREAM) then CONTINUATIONs; END_HEADERS on the last.
    frames.push(frame(off === 0 ? 1 : 9, (off === 0 ? 0x1 : 0) | (last ? 0x4 : 0), stream, chunk));
  }
  return Buffer.concat(frames);
}

interface Outcome {
  code: number | undefined;
  details: string;
  /** Error code of a GOAWAY the client sent after the answer, if any. */
  goaway: number | undefined;
}

async function callAgainst(bigBytes: number): Promise<Outcome> {
  const sockets = new Set<Socket>();
  let goaway: number | undefined;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let prefaceSeen = false;
    let answered = false;
    socket.write(frame(4, 0, 0, Buffer.alloc(0))); // our SETTINGS: none
    socket.on('data', (data: Buffer) => {
      buf = Buffer.concat([buf, data]);
      if (!prefaceSeen) {
        if (buf.length < 24) return;
        buf = buf.subarray(24);
        prefaceSeen = true;
      }
      while (buf.length >= 9) {
        const len = buf.readUIntBE(0, 3);
        if (buf.length < 9 + len) return;
        const type = buf[3]!;
        const flags = buf[4]!;
        const stream = buf.readUInt32BE(5) & 0x7fffffff;
        if (type === 7 && answered && len >= 8) goaway = buf.readUInt32BE(9 + 4);
        buf = buf.subarray(9 + len);
        if (type === 4 && !(flags & 0x1)) socket.write(frame(4, 0x1, 0, Buffer.alloc(0))); // ACK
        if (type === 1 && !answered) {
          answered = true;
          socket.write(hostileAnswer(stream, bigBytes));
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const channels = new GrpcChannels(1_000);
  try {
    const answer = await channels.use(
      {
        target: { address: '127.0.0.1', port },
        tls: false,
        urlHost: '127.0.0.1',
        authority: `127.0.0.1:${port}`,
      },
      (client) =>
        new Promise<Omit<Outcome, 'goaway'>>((resolve) => {
          client.makeUnaryRequest(
            '/a2a.v1.A2AService/GetTask',
            (x: Buffer) => x,
            (x: Buffer) => x,
            Buffer.alloc(0),
            { deadline: Date.now() + 3_000 },
            (err) => resolve({ code: err?.code, details: String(err?.details ?? '') }),
          );
        }),
    );
    return { ...answer, goaway };
  } finally {
    await channels.close();
    for (const s of sockets) s.destroy();
    server.close();
  }
}

void test('answer metadata over 64 KiB is refused by the channel; a small answer is read', async () => {
  const small = await callAgainst(1_000);
  assert.equal(small.code, 5, `a 1 KB header block is read (NOT_FOUND): ${JSON.stringify(small)}`);
  assert.equal(small.goaway, undefined, 'the session stays up after a small answer');
  const big = await callAgainst(256 * 1024);
  console.log(`# 256 KiB of metadata: ${JSON.stringify(big)}`);
  const refused =
    big.code === 13 || // Node 24: INTERNAL at once
    (big.code === 4 && big.goaway !== undefined && big.goaway !== 0); // Node 20: GOAWAY, then deadline
  assert.ok(refused, `a 256 KiB header block is refused, not read or left hanging: ${JSON.stringify(big)}`);
  // Just under the bound is still read.
  assert.equal((await callAgainst(60_000)).code, 5);
});
