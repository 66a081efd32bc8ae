// The client's card from a URL is read as the operator reads one: at most 1 MiB (declared or
// counted, the reading stopped there, so a card URL that streams without end costs at most
// that), and the operator's verdicts on the JSON (too deep, 1e400, too large written back) as a
// CardLoadError, never a RangeError or a card holding Infinity. A real local server; Node's fetch.
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

/** Bytes the endless route wrote before the client hung up. */
let endlessSent = 0;
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
    res.on('close', () => undefined);
    pump();
  },
  '/bignum': (res) => res.writeHead(200).end(`${text.slice(0, -1)},"n":1e400}`),
  '/deep': (res) => res.writeHead(200).end(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
  '/grows': (res) =>
    res.writeHead(200).end(`${text.slice(0, -1)},"n":[${Array(200_000).fill('1e20').join(',')}]}`),
  '/broken': (res) => res.writeHead(200).end('{"name":'),
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

async function refused(path: string): Promise<string> {
  const err = await loadCard({ cardUrl: `${base}${path}` }, fetch).then(
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

void test('over 1 MiB declared: CardTooLarge', async () => {
  assert.match(await refused('/declared'), /^CardTooLarge: the card is over the 1048576-byte limit$/);
});

void test('a card that streams without end: CardTooLarge, the reading stopped near 1 MiB', async () => {
  assert.match(await refused('/endless'), /^CardTooLarge: /);
  // The server writes ahead into socket buffers; what matters is that it was not read to the end.
  assert.ok(endlessSent < 16 * 1024 * 1024, `the server wrote ${endlessSent} bytes`);
});

void test("the operator's verdicts on the JSON: 1e400, too deep, not JSON (CardInvalid), grows past 1 MiB (CardTooLarge)", async () => {
  assert.match(await refused('/bignum'), /^CardInvalid: .*double range/);
  assert.match(await refused('/deep'), /^CardInvalid: .*deeper than 64/);
  assert.match(await refused('/broken'), /^CardInvalid: the card is not valid JSON at byte 8$/);
  assert.match(await refused('/grows'), /^CardTooLarge: the card takes \d+ bytes written back as JSON/);
});
