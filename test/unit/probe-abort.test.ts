// Probes honour the reconcile's AbortSignal: a probe (or card fetch) whose turn comes after the
// abort is not dialled, an in-flight one is cut, and both answer Pending / `deferred`, which is
// no verdict: an aborted probe never counts as a failure. Against real local servers that hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { InterfaceState } from '../../src/api/conditions.js';
import { CardParseError, parseCard, type CardInterface, type ParsedCard } from '../../src/card/index.js';
import { MemoryStore } from '../../src/controller/agent-memory.js';
import { observePods } from '../../src/controller/observe-pods.js';
import { recordProbe } from '../../src/controller/probe-memory.js';
import { LiveProbeBackend } from '../../src/operator/live-probe-backend.js';
import { Prober } from '../../src/probe/index.js';
import { agentSpec, observeInput, podA0 } from './observe-fixtures.js';

/**
 * A TCP server that accepts and never answers; counts the connections that sent something (a
 * request, an HTTP/2 preface). undici reopens an idle connection after an aborted request
 * destroyed its socket; that one carries nothing and is not a dial of a probe.
 */
async function hangingServer(): Promise<{ port: number; dials: () => number; close: () => void }> {
  const sockets = new Set<Socket>();
  let dials = 0;
  const server = createTcpServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.once('data', () => dials++);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    dials: () => dials,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

function iface(binding: string, port: number): CardInterface {
  const card = parseCard({
    name: 'h',
    supportedInterfaces: [
      {
        url: `http://a.ns.svc:${port}${binding === 'GRPC' ? '' : '/rpc'}`,
        protocolBinding: binding,
        protocolVersion: '1.0',
      },
    ],
  });
  assert.ok(!(card instanceof CardParseError));
  return (card as ParsedCard).interfaces[0]!;
}

/** Waits until `ok()` (a probe has dialled); fails rather than hangs if it never does. */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), 'the probe never dialled');
}

const LONG_TIMEOUT_MS = 60_000;

for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
  void test(`Prober: an in-flight ${binding} probe is cut by the abort and answers Pending, long before its timeout`, async () => {
    const srv = await hangingServer();
    const prober = new Prober();
    try {
      const ac = new AbortController();
      const started = performance.now();
      const pending = prober.probe({ address: '127.0.0.1', port: srv.port }, iface(binding, srv.port), {
        timeoutMs: LONG_TIMEOUT_MS,
        agent: 'ns/a',
        signal: ac.signal,
      });
      // Abort once the probe has dialled (so it is in flight, not queued).
      await until(() => srv.dials() > 0);
      ac.abort(new Error('reconcile timeout'));
      const r = await pending;
      const ms = performance.now() - started;
      assert.equal(r.state, InterfaceState.Pending, r.message);
      assert.match(r.message, /cut short/);
      assert.ok(ms < LONG_TIMEOUT_MS / 2, `answered after ${Math.round(ms)} ms`);
      // No retry and no gRPC diagnosis dial after the abort.
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(srv.dials(), 1, 'nothing dialled after the abort');
    } finally {
      await prober.close();
      srv.close();
    }
  });
}

void test('Prober: probes whose turn comes after the abort are not dialled and answer Pending', async () => {
  const srv = await hangingServer();
  const prober = new Prober({ perAgentConcurrency: 1 });
  try {
    const ac = new AbortController();
    const i = iface('JSONRPC', srv.port);
    const all = Promise.all(
      [0, 1, 2].map(() =>
        prober.probe({ address: '127.0.0.1', port: srv.port }, i, {
          timeoutMs: LONG_TIMEOUT_MS,
          agent: 'ns/a',
          signal: ac.signal,
        }),
      ),
    );
    await until(() => srv.dials() > 0);
    ac.abort();
    const states = (await all).map((r) => r.state);
    assert.deepEqual(states, ['Pending', 'Pending', 'Pending']);
    assert.equal(srv.dials(), 1, 'only the probe in flight at the abort had dialled');
    // A probe asked for after the abort is not dialled either.
    const late = await prober.probe({ address: '127.0.0.1', port: srv.port }, i, {
      timeoutMs: LONG_TIMEOUT_MS,
      signal: ac.signal,
    });
    assert.equal(late.state, InterfaceState.Pending);
    assert.equal(srv.dials(), 1);
  } finally {
    await prober.close();
    srv.close();
  }
});

void test('Prober: a card fetch cut by the abort, or asked for after it, is deferred (no CardFetchFailed)', async () => {
  const srv = await hangingServer();
  const prober = new Prober();
  try {
    const ac = new AbortController();
    const opts = {
      address: '127.0.0.1',
      port: srv.port,
      scheme: 'http' as const,
      path: '/.well-known/agent-card.json',
      hostHeader: 'a.ns.svc',
      timeoutMs: LONG_TIMEOUT_MS,
      signal: ac.signal,
    };
    const inFlight = prober.fetchCard(opts, 'ns/a');
    await until(() => srv.dials() > 0);
    ac.abort();
    assert.deepEqual(await inFlight, { kind: 'deferred', why: 'aborted' });
    assert.deepEqual(await prober.fetchCard(opts, 'ns/a'), { kind: 'deferred', why: 'aborted' });
    assert.equal(srv.dials(), 1);
    const backend = new LiveProbeBackend(prober);
    assert.deepEqual(await backend.fetchCard({ ...opts, agent: 'ns/a' }), { kind: 'deferred' });
    assert.equal(srv.dials(), 1);
  } finally {
    await prober.close();
    srv.close();
  }
});

void test('recordProbe: a Pending answer is no verdict: no failure counted, what was known stays, due at once', () => {
  const timing = { periodMs: 30_000, failureThreshold: 2, random: () => 0.5 };
  const verified = recordProbe(
    undefined,
    { state: InterfaceState.Verified, reason: 'Verified', message: 'ok' },
    1000,
    timing,
  );
  const pending = { state: InterfaceState.Pending, reason: 'ProbePending', message: 'cut short' };
  const after = recordProbe(verified, pending, 2000, timing);
  assert.deepEqual(after.verdict, verified.verdict);
  assert.equal(after.dueAt, 2000);
  // Twice the failure threshold of Pending answers still confirms nothing.
  let r = after;
  for (let i = 0; i < 4; i++) r = recordProbe(r, pending, 3000 + i, timing);
  assert.equal(r.verdict.state, InterfaceState.Verified);
  assert.equal(r.verdict.failures, 0);
  const failing = recordProbe(
    undefined,
    { state: InterfaceState.Timeout, reason: 'Timeout', message: 'slow' },
    1000,
    timing,
  );
  assert.equal(recordProbe(failing, pending, 2000, timing).verdict.failures, 1);
  const fresh = recordProbe(undefined, pending, 1000, timing);
  assert.equal(fresh.verdict.failures, 0);
  assert.equal(fresh.verdict.confirmed, false);
});

void test('observePods: a verified interface whose probe is cut by the reconcile abort stays Verified with no failure counted', async () => {
  let hang = false;
  const held: ServerResponse[] = [];
  let rpcCalls = 0;
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/.well-known/agent-card.json') {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          name: 'a',
          supportedInterfaces: [
            { url: `http://a.ns.svc:${port}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
        }),
      );
      return;
    }
    rpcCalls++;
    req.resume();
    if (hang) {
      held.push(res);
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 'p', error: { code: -32001, message: 'no such task' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const prober = new Prober();
  const backend = new LiveProbeBackend(prober);
  const spec = agentSpec(port, { probe: { periodSeconds: 30, timeoutSeconds: 20, failureThreshold: 1 } });
  const memory = new MemoryStore().for('ns/a', 1);
  let shift = 0;
  const observe = (signal?: AbortSignal) =>
    observePods(
      observeInput(spec, backend, {
        pods: [podA0('127.0.0.1')],
        memory,
        now: () => Date.now() + shift,
        signal,
      }),
    );
  try {
    const first = await observe();
    const v1 = [...first.observations[0]!.verdicts.values()][0]!;
    assert.equal(v1.state, InterfaceState.Verified, v1.message);
    // A period later the interface hangs and the reconcile is aborted mid-probe. With
    // failureThreshold 1, one counted failure would withdraw it at once.
    hang = true;
    shift = 31_000;
    const ac = new AbortController();
    const second = observe(ac.signal);
    await until(() => rpcCalls >= 2);
    ac.abort();
    const res = await second;
    const v2 = [...res.observations[0]!.verdicts.values()][0]!;
    assert.equal(v2.state, InterfaceState.Verified);
    assert.equal(v2.failures, 0);
    assert.equal(v2.pendingFailure, undefined);
    assert.equal(res.probes, 0, 'the cut probe is not counted as made');
    assert.ok(res.nextDueAt !== undefined && res.nextDueAt <= Date.now() + shift, 'due again at once');
  } finally {
    for (const r of held) r.destroy();
    await prober.close();
    server.close();
  }
});

void test('Prober: everything a probe does (attempt and retry) is cut at notAfter + timeout + 1 s, as Pending', async () => {
  // Each attempt ends in a reset after 90% of the timeout: Unreachable, retried once. Two
  // attempts take 1.8x the timeout, past the cut at notAfter (now) + timeout + 1 s.
  const TIMEOUT = 2000;
  let requests = 0;
  const server = createHttpServer((req) => {
    requests++;
    req.resume();
    setTimeout(() => req.socket.destroy(), TIMEOUT * 0.9);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const prober = new Prober();
  try {
    const i = iface('JSONRPC', port);
    const alone = await prober.probe({ address: '127.0.0.1', port }, i, { timeoutMs: TIMEOUT });
    assert.equal(alone.state, InterfaceState.Unreachable, 'without a budget: both attempts run, a verdict');
    assert.equal(requests, 2);
    const cut = await prober.probe({ address: '127.0.0.1', port }, i, {
      timeoutMs: TIMEOUT,
      notAfter: Date.now() + 50,
    });
    assert.equal(cut.state, InterfaceState.Pending, cut.message);
  } finally {
    await prober.close();
    server.closeAllConnections();
    server.close();
  }
});
