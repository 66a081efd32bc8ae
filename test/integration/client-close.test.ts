/**
 * `FailoverClient.close()` on both runtimes: after it, no connection this process opened to the
 * agent is left (gRPC channel and the client's own HTTP pool), a second close() is harmless,
 * and a call on a closed client throws ClientClosedError. Connections are read from the
 * kernel's socket table (/proc/net/tcp*), matched to this process's own file descriptors.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { ClientClosedError, FailoverClient } from '../../src/client/index.js';
import { textMessageRequest } from '../../src/client/text-message.js';
import { card, grpc, jsonrpc } from '../harness/client-cards.js';
import { RUNTIMES, startLocalAgent } from '../harness/local-agent.js';
import { waitFor } from '../harness/wait.js';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of closers.reverse()) await c();
});

/** Established TCP connections from this process to `port` (any local address). */
function openTo(port: number): number {
  const mine = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) mine.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  let n = 0;
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const remotePort = parseInt(f[2]!.split(':')[1]!, 16);
      if (remotePort === port && f[3] === '01' && mine.has(f[9]!)) n++;
    }
  }
  return n;
}

let n = 0;
const message = () => textMessageRequest('hello', { messageId: `close-${process.pid}-${++n}` });

for (const rt of RUNTIMES) {
  void test(`[${rt}] close() leaves no connection to the agent open; twice is harmless; later calls throw ClientClosedError`, async () => {
    const a = await startLocalAgent(rt, { grpc: {} });
    closers.push(() => a.close());
    const overGrpc = await FailoverClient.create({ card: card([grpc(a.ports.grpc!)]) });
    const overHttp = await FailoverClient.create({ card: card([jsonrpc(a.ports.http!)]) });
    await overGrpc.sendMessage(message());
    await overHttp.sendMessage(message());
    assert.equal(overGrpc.lastReport?.servedBy?.protocolBinding, 'GRPC');
    assert.equal(overHttp.lastReport?.servedBy?.protocolBinding, 'JSONRPC');
    assert.ok(openTo(a.ports.grpc!) > 0, 'the gRPC channel is connected before close()');
    assert.ok(openTo(a.ports.http!) > 0, 'the HTTP pool holds a connection before close()');

    await Promise.all([overGrpc.close(), overGrpc.close(), overHttp.close()]);
    await overHttp.close();
    // Sockets close on this side as soon as the pool and the channel are shut: the waits only
    // cover the event-loop turns that takes. Left open, an idle pooled HTTP socket stays for its
    // keep-alive time (4 s in undici), an idle gRPC channel for minutes. HTTP is checked first,
    // before its keep-alive could end it anyway.
    await waitFor('no HTTP connection left', async () => openTo(a.ports.http!) === 0 || undefined, 1_000, 50);
    await waitFor(
      'no gRPC connection left',
      async () => openTo(a.ports.grpc!) === 0 || undefined,
      10_000,
      50,
    );

    await assert.rejects(overGrpc.sendMessage(message()), ClientClosedError);
    await assert.rejects(overHttp.getTask({ id: 'x' } as never), (err: unknown) => {
      assert.ok(err instanceof ClientClosedError);
      assert.equal(err.code, 'A2A_CLIENT_CLOSED');
      return true;
    });
  });
}
