// OriginClients replaced undici's Pool for the prober's HTTP connections (a Pool allocates a
// 16 KiB request queue up front: 47 MiB at 3,000 pod addresses). What a Pool gave must still
// hold: a request never waits behind another one, sequential requests reuse one connection, and
// what it did not give: Clients whose connection is gone do not pile up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Client } from 'undici';
import { OriginClients } from '../../src/probe/origin-clients.js';

async function server(handler: (release: () => void, path: string) => void) {
  const sockets = new Set<Socket>();
  let connections = 0;
  const srv: Server = createServer((req, res) => {
    req.resume();
    handler(() => res.end('ok'), req.url ?? '');
  });
  srv.on('connection', (s: Socket) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return {
    origin,
    connections: () => connections,
    dropConnections: async () => {
      const closed = [...sockets].map((s) => new Promise((r) => s.once('close', r)));
      for (const s of sockets) s.destroy();
      await Promise.all(closed);
    },
    close: () => {
      for (const s of sockets) s.destroy();
      srv.close();
    },
  };
}

/** An OriginClients for the origin, and the Clients it made, in order. */
function originClients(origin: string, max = 32) {
  const made: Client[] = [];
  const clients = new OriginClients(() => {
    const c = new Client(origin, { pipelining: 1 });
    made.push(c);
    return c;
  }, max);
  return { clients, made };
}

const get = async (c: Client, path = '/') => {
  const res = await c.request({ method: 'GET', path });
  return res.body.text();
};

void test('OriginClients: a request in flight never holds up another; each lease gets its own connection', async () => {
  const held: (() => void)[] = [];
  const srv = await server((release, path) => (path === '/slow' ? held.push(release) : release()));
  const { clients } = originClients(srv.origin);
  try {
    const slow = clients.use((c) => get(c, '/slow'));
    // The slow answer is still pending while the fast one is served on a second connection.
    assert.equal(await clients.use((c) => get(c, '/fast')), 'ok');
    assert.equal(held.length, 1);
    assert.equal(srv.connections(), 2);
    held[0]!();
    assert.equal(await slow, 'ok');
  } finally {
    await clients.destroy();
    srv.close();
  }
});

void test('OriginClients: requests one after the other reuse one connection', async () => {
  const srv = await server((release) => release());
  const { clients } = originClients(srv.origin);
  try {
    for (let i = 0; i < 5; i++) assert.equal(await clients.use((c) => get(c)), 'ok');
    assert.equal(srv.connections(), 1);
    assert.equal(clients.size, 1);
  } finally {
    await clients.destroy();
    srv.close();
  }
});

void test('OriginClients: Clients whose connection closed are dropped, not kept for the busiest moment', async () => {
  const held: (() => void)[] = [];
  const srv = await server((release, path) => (path === '/hold' ? held.push(release) : release()));
  const { clients, made } = originClients(srv.origin);
  try {
    // A burst of 6 at once: 6 Clients.
    const burst = Array.from({ length: 6 }, () => clients.use((c) => get(c, '/hold')));
    while (held.length < 6) await new Promise((r) => setTimeout(r, 5));
    assert.equal(clients.size, 6);
    for (const release of held) release();
    await Promise.all(burst);
    // The pod closes every connection (a restart, a keep-alive timeout on its side); the Clients
    // see it when their sockets end.
    await srv.dropConnections();
    while (made.some((c) => c.stats.connected)) await new Promise((r) => setTimeout(r, 5));
    assert.equal(await clients.use((c) => get(c)), 'ok');
    assert.equal(clients.size, 1, 'the 6 unconnected Clients were dropped; one new one answered');
    assert.equal(made.length, 7);
    assert.equal(made.slice(0, 6).filter((c) => c.destroyed).length, 6);
  } finally {
    await clients.destroy();
    srv.close();
  }
});

void test('OriginClients: past its maximum a lease shares the least-used Client', async () => {
  const held: (() => void)[] = [];
  let holding = true;
  const srv = await server((release) => (holding ? held.push(release) : release()));
  const { clients, made } = originClients(srv.origin, 2);
  try {
    const seen: Client[] = [];
    const calls = Array.from({ length: 3 }, () =>
      clients.use((c) => {
        seen.push(c);
        return get(c);
      }),
    );
    assert.equal(made.length, 2);
    assert.deepEqual(seen, [made[0], made[1], made[0]]);
    while (held.length < 2) await new Promise((r) => setTimeout(r, 5));
    holding = false;
    for (const release of held) release();
    assert.deepEqual(await Promise.all(calls), ['ok', 'ok', 'ok']);
  } finally {
    await clients.destroy();
    srv.close();
  }
});
