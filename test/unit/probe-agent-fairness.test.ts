// Regression (found by test/faults/hostile-agents.test.ts): the Prober's one FIFO limit let one
// agent's backlog of slow probes queue in front of every other agent's probes (healthy agents
// reconciled ~10 s late beside a hostile one). Each agent now waits for its own slots first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { CardParseError, parseCard, type ParsedCard } from '../../src/card/index.js';
import { KeyedConcurrencyLimit } from '../../src/probe/concurrency-limit.js';
import { Prober } from '../../src/probe/index.js';

function listen(server: ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

const iface = { url: 'http://a:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' };

/** `task` in one of `key`'s slots, as the Prober schedules a probe. */
async function run(limit: KeyedConcurrencyLimit, key: string, task: () => Promise<void>): Promise<void> {
  const wait = limit.acquire(key);
  if (wait) await wait;
  try {
    await task();
  } finally {
    limit.release(key);
  }
}

void test('KeyedConcurrencyLimit: one key at its limit does not delay another key', async () => {
  const limit = new KeyedConcurrencyLimit(2);
  const release: (() => void)[] = [];
  let running = 0;
  const hostile = Array.from({ length: 6 }, () =>
    run(limit, 'hostile', async () => {
      running++;
      await new Promise<void>((r) => release.push(r));
      running--;
    }),
  );
  await new Promise((r) => setImmediate(r));
  assert.equal(running, 2, 'the hostile key runs only its limit');
  let other = false;
  await run(limit, 'healthy', async () => {
    other = true;
  });
  assert.ok(other, 'another key ran while the hostile key had a backlog');
  while (release.length > 0 || running > 0) {
    release.shift()?.();
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(hostile);
  assert.equal(limit.size, 0, 'idle keys are dropped');
});

void test("Prober: one agent's backlog of hanging probes does not queue in front of another agent's probe", async () => {
  const sockets = new Set<Socket>();
  const hang = createTcpServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  const port = await listen(hang);
  const prober = new Prober({ concurrency: 4, perAgentConcurrency: 2 });
  const target = { address: '127.0.0.1', port };
  const card = parseCard({ name: 'h', supportedInterfaces: [{ ...iface, url: `http://a:${port}/rpc` }] });
  assert.ok(!(card instanceof CardParseError));
  const i = (card as ParsedCard).interfaces[0]!;
  try {
    const backlog = Array.from({ length: 12 }, () =>
      prober.probe(target, i, { timeoutMs: 1_000, agent: 'ns/hostile' }),
    );
    await new Promise((r) => setTimeout(r, 50));
    const other = await prober.probe(target, i, { timeoutMs: 1_000, agent: 'ns/healthy' });
    // With one shared FIFO it waited for three waves of the backlog (~3 s) before its own second.
    assert.ok(other.durationMs < 2_500, `the other agent's probe took ${other.durationMs}ms`);
    assert.equal(other.state, 'Timeout');
    await Promise.all(backlog);
  } finally {
    await prober.close();
    for (const s of sockets) s.destroy();
    hang.close();
  }
});
