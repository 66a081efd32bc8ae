// The client's card from a URL is read as the operator reads one: at most 1 MiB (declared or
// counted, the reading cancelled there, so a card URL that streams without end costs at most
// that), and the operator's verdicts on the JSON (too deep, 1e400, too large written back) as a
// CardLoadError, never a RangeError or a card holding Infinity; a fetch that stalls after its
// headers ends at the timeout; a cardUrl that is no URL is a CardLoadError too. A real local
// server; Node's fetch.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CardLoadError, loadCard } from '../../src/client/card-source.js';

const card = {
  name: 'a',
  description: 'd',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'http://a.internal:1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};
const text = JSON.stringify(card);

/** Bytes the endless route wrote before the client hung up, and the hang-up itself. */
let endlessSent = 0;
let endlessClosed: Promise<void> = new Promise(() => undefined);
const routes: Record<string, (res: ServerResponse) => void> = {
  '/ok': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(text),
  '/declared': (res) => {
    // Content-Length over the limit: refused before a byte of the body is read.
    res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) });
    res.write('{');
  },
  '/endless': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"pad":"');
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = (): void => {
      while (!res.destroyed && endlessSent < 64 * 1024 * 1024) {
        endlessSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    endlessClosed = new Promise((resolve) => res.once('close', resolve));
    pump();
  },
  '/bignum': (res) => res.writeHead(200).end(`${text.slice(0, -1)},"n":1e400}`),
  '/deep': (res) => res.writeHead(200).end(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
  '/grows': (res) =>
    res.writeHead(200).end(`${text.slice(0, -1)},"n":[${Array(200_000).fill('1e20').join(',')}]}`),
  '/broken': (res) => res.writeHead(200).end('{"name":'),
  // Within the room the operator keeps for a signature: a card it may have published, signed.
  '/near': (res) =>
    res.writeHead(200).end(`${text.slice(0, -1)},"pad":"${'x'.repeat(1024 * 1024 - 4096 - text.length)}"}`),
  // Headers, then nothing: never a body, never an end.
  '/stall': (res) => res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders(),
};

let server: Server;
let base = '';
before(async () => {
  server = createServer((req, res) => {
    req.resume();
    (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

async function refused(path: string, timeoutMs?: number): Promise<string> {
  const err = await loadCard({ cardUrl: `${base}${path}` }, fetch, timeoutMs).then(
    () => assert.fail(`${path} loaded`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof CardLoadError, `${path}: ${String(err)}`);
  return err.message;
}

void test('a card within the limits loads', async () => {
  const loaded = await loadCard({ cardUrl: `${base}/ok` }, fetch);
  assert.equal(loaded.parsed.interfaces[0]?.url, 'http://a.internal:1/');
  assert.equal(loaded.scheme, 'http');
});

void test('a card in the room the operator keeps for a signature loads: the client publishes nothing', async () => {
  const loaded = await loadCard({ cardUrl: `${base}/near` }, fetch);
  assert.equal(loaded.parsed.interfaces.length, 1);
});

void test('over 1 MiB declared: CardTooLarge', async () => {
  assert.match(
    await refused('/declared'),
    /^CardTooLarge: the card from http:\/\/127\.0\.0\.1:\d+\/declared is over the 1048576-byte card limit \(Content-Length 2097152\)$/,
  );
});

// A regression hangs rather than fails: the test's timeout turns it into a failure.
void test(
  'a card that streams without end: CardTooLarge, the reading cancelled near 1 MiB',
  { timeout: 60_000 },
  async () => {
    assert.match(await refused('/endless'), /\(reading stopped there\)$/);
    // The server writes ahead into socket buffers; what matters is that it was not read to the end,
    // and that the client hung up: backpressure alone would stop the server too, with the
    // connection held open. A liveness wait, not a time bound (the test's timeout ends it).
    await endlessClosed;
    assert.ok(endlessSent < 16 * 1024 * 1024, `the server wrote ${endlessSent} bytes`);
  },
);

void test(
  'headers, then nothing: a CardLoadError at the timeout, not a wait without end',
  { timeout: 60_000 },
  async () => {
    assert.match(await refused('/stall', 500), /^card fetch from http:\/\/127\.0\.0\.1:\d+\/stall failed/);
  },
);

void test('a cardUrl that is not a URL: a CardLoadError, before anything is dialled', async () => {
  const err = await loadCard({ cardUrl: 'not a url' }, () => assert.fail('dialled')).catch((e: unknown) => e);
  assert.ok(err instanceof CardLoadError);
  assert.equal(err.message, 'cardUrl is not an absolute URL');
});

void test("the operator's verdicts on the JSON: 1e400, too deep, not JSON (CardInvalid), grows past 1 MiB (CardTooLarge)", async () => {
  assert.match(await refused('/bignum'), /^CardInvalid: .*double range/);
  assert.match(await refused('/deep'), /^CardInvalid: .*deeper than 64/);
  assert.match(await refused('/broken'), /^CardInvalid: the card is not valid JSON at byte 8$/);
  assert.match(
    await refused('/grows'),
    /^CardTooLarge: the card takes \d+ bytes written back as JSON \(\d+ as read: .*\), over the 1048576-byte card limit$/,
  );
});
