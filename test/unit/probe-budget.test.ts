// Regression (found by test/faults/hostile-agents.test.ts): an agent whose card declares 32 gRPC
// interfaces on a port that accepts and never answers, probed its own few at a time, took longer
// than the controller's 60 s reconcile timeout: every reconcile was aborted and its status never
// said why. A probe whose turn comes after the reconcile's budget is now not dialled (Pending),
// and the reconcile requeues at once to go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { CardParseError, parseCard, type ParsedCard } from '../../src/card/index.js';
import { observePods } from '../../src/controller/observe-pods.js';
import type { ProbeBackend, ProbeRequest } from '../../src/controller/probe-backend.js';
import { Prober } from '../../src/probe/index.js';
import { agentSpec, observeInput } from './observe-fixtures.js';

void test('Prober: a probe whose turn comes after notAfter answers Pending and is not dialled', async () => {
  const sockets = new Set<Socket>();
  const hang = createTcpServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  const port = (hang.address() as AddressInfo).port;
  const card = parseCard({
    name: 'h',
    supportedInterfaces: [
      { url: `http://a:${port}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  });
  assert.ok(!(card instanceof CardParseError));
  const iface = (card as ParsedCard).interfaces[0]!;
  const prober = new Prober({ perAgentConcurrency: 1 });
  try {
    const notAfter = Date.now() + 300;
    const states = await Promise.all(
      [0, 1, 2].map(() =>
        prober
          .probe({ address: '127.0.0.1', port }, iface, { timeoutMs: 800, agent: 'ns/a', notAfter })
          .then((r) => r.state),
      ),
    );
    assert.deepEqual(states, ['Timeout', 'Pending', 'Pending']);
    assert.equal(sockets.size, 1, 'only the probe that started in time dialled');
  } finally {
    await prober.close();
    for (const s of sockets) s.destroy();
    hang.close();
  }
});

void test('observePods: deferred probes keep the interface Pending and make the next reconcile due now', async () => {
  const spec = agentSpec();
  const now = 1_000_000;
  const seen: ProbeRequest[] = [];
  const backend: ProbeBackend = {
    fetchCard: () =>
      Promise.resolve({
        kind: 'ok',
        body: {
          name: 'a',
          supportedInterfaces: [
            { url: 'http://a.ns.svc:8080/one', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            { url: 'http://a.ns.svc:8080/two', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
        },
      }),
    probe: (req) => {
      seen.push(req);
      return Promise.resolve(
        req.iface.url.endsWith('/one')
          ? { state: 'Verified', reason: 'Verified', message: 'ok', durationMs: 1 }
          : {
              state: 'Pending',
              reason: 'ProbePending',
              message: 'not probed in this reconcile',
              durationMs: 0,
            },
      );
    },
  };
  const res = await observePods(observeInput(spec, backend, { now: () => now, probeBudgetMs: 5_000 }));
  assert.ok(
    seen.every((r) => r.notAfter === now + 5_000),
    'the budget reaches the backend',
  );
  const verdicts = [...res.observations[0]!.verdicts.values()].map((v) => v.state).sort();
  assert.deepEqual(verdicts, ['Pending', 'Verified']);
  assert.equal(res.probes, 1);
  assert.ok(res.nextDueAt !== undefined && res.nextDueAt <= now, `next due ${res.nextDueAt}`);
});
