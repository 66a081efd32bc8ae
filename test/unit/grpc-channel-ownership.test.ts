// A Prober's gRPC channels own their connections (`grpc.use_local_subchannel_pool`). grpc-js
// otherwise keeps connections in a process-wide pool: a second Prober (the `check` CLI, the
// benchmark's bound) would find the first one's connection open and dial nothing, and a closed
// Prober's connection would stay open until the pool's 10 s sweep. Against a real SDK agent's
// gRPC listener behind a TCP forwarder that counts the open connections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { CardParseError, parseCard, type ParsedCard } from '../../src/card/index.js';
import { Prober } from '../../src/probe/index.js';
import { startAgent } from '../agents/start-agent.js';
import { waitFor } from '../harness/wait.js';

/** Forwards 127.0.0.1:<port> to `target`; `open` counts the client connections open now. */
async function countingForwarder(
  target: number,
): Promise<{ port: number; open: () => number; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    const upstream = createConnection(target, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const done = () => {
      sockets.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', done).on('error', done);
    upstream.on('close', done).on('error', done);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    open: () => sockets.size,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

void test('two Probers dial their own gRPC connections, and closing one closes its connection at once', async () => {
  const agent = await startAgent({ http: false, grpc: {} });
  const fwd = await countingForwarder(agent.ports.grpc!);
  const card = parseCard({
    name: 'a',
    supportedInterfaces: [
      { url: `http://a.ns.svc:${fwd.port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
  });
  assert.ok(!(card instanceof CardParseError));
  const iface = (card as ParsedCard).interfaces[0]!;
  const target = { address: '127.0.0.1', port: fwd.port };
  const first = new Prober();
  const second = new Prober();
  try {
    assert.equal((await first.probe(target, iface, { timeoutMs: 5000 })).state, 'Verified');
    assert.equal(fwd.open(), 1);
    assert.equal((await second.probe(target, iface, { timeoutMs: 5000 })).state, 'Verified');
    assert.equal(fwd.open(), 2, "the second Prober dialled its own connection, not the first one's");
    await first.close();
    // Well under grpc-js's 10 s sweep of its global pool.
    await waitFor("the first Prober's connection closed", () => Promise.resolve(fwd.open() === 1), 3000, 20);
    assert.equal((await second.probe(target, iface, { timeoutMs: 5000 })).state, 'Verified');
    assert.equal(fwd.open(), 1, 'the second one still uses its own');
  } finally {
    await first.close();
    await second.close();
    fwd.close();
    await agent.close();
  }
});
