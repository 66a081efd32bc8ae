// Card fetches opened and closed a connection each (every period, every pod): the largest item of
// the operator's CPU profile. They now go over the prober's pooled connections, and a pooled
// connection the pod closed meanwhile is retried once on a fresh one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Prober } from '../../src/probe/index.js';

const CARD = JSON.stringify({ name: 'a', supportedInterfaces: [] });

async function cardServer(opts: { dropReused?: boolean } = {}) {
  const sockets: Socket[] = [];
  const served = new Map<Socket, number>();
  let dropped = 0;
  const server: Server = createServer((req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    // A pod that restarted (or timed the connection out) between two fetches.
    if (opts.dropReused && n > 1) {
      dropped++;
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(CARD);
  });
  server.on('connection', (s: Socket) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => sockets.length,
    /** Requests that came over a reused connection and were dropped (dropReused). */
    dropped: () => dropped,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const fetchOpts = (port: number) => ({
  address: '127.0.0.1',
  port,
  scheme: 'http' as const,
  path: '/.well-known/agent-card.json',
  hostHeader: 'a.ns.svc',
  timeoutMs: 2000,
});

void test('Prober.fetchCard keeps the connection to a pod alive across fetches', async () => {
  const server = await cardServer();
  const prober = new Prober();
  try {
    for (let i = 0; i < 6; i++) {
      const res = await prober.fetchCard(fetchOpts(server.port), 'ns/a');
      assert.equal(res.kind, 'ok');
    }
    // undici may open a second connection while the first is being released; not one per fetch.
    assert.ok(server.connections() <= 2, `${server.connections()} connections for 6 fetches`);
  } finally {
    await prober.close();
    server.close();
  }
});

void test('Prober.fetchCard retries once on a fresh connection when the pooled one was closed', async () => {
  const server = await cardServer({ dropReused: true });
  const prober = new Prober();
  try {
    for (let i = 0; i < 4; i++) {
      const res = await prober.fetchCard(fetchOpts(server.port), 'ns/a');
      assert.equal(res.kind, 'ok', `fetch ${i}: ${res.kind === 'error' ? res.error.message : res.kind}`);
    }
    // Every fetch succeeded although the pooled connection was reused and dropped: the retry ran.
    assert.ok(server.dropped() >= 1, 'no fetch reused a pooled connection');
  } finally {
    await prober.close();
    server.close();
  }
});
