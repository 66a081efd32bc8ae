// The prober runs up to perAgentConcurrency (8) probes of one agent at once, and each probe's
// deadline starts before undici sends its request. Pools held 4 connections per host:port, so
// the 5th..8th probe of a pod waited for a connection inside its own timeout and an honest
// interface came back Timeout. Pools now hold as many connections as probes can be in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CardParseError, parseCard, type ParsedCard } from '../../src/card/index.js';
import { Prober } from '../../src/probe/index.js';

const TIMEOUT_MS = 4000;
/** Each answer takes ~70% of the timeout: two in a row on one connection would not fit. */
const HANDLER_MS = Math.round(TIMEOUT_MS * 0.7);

void test('Prober: 8 concurrent probes of one agent at one pod, each answered in 70% of the timeout, all verify', async () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 'p', error: { code: -32001, message: 'no such task' } }));
    }, HANDLER_MS);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const card = parseCard({
    name: 'a',
    supportedInterfaces: Array.from({ length: 8 }, (_, i) => ({
      url: `http://a.ns.svc:${port}/rpc${i}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    })),
  });
  assert.ok(!(card instanceof CardParseError));
  const prober = new Prober({ perAgentConcurrency: 8 });
  try {
    const results = await Promise.all(
      (card as ParsedCard).interfaces.map((i) =>
        prober.probe({ address: '127.0.0.1', port }, i, { timeoutMs: TIMEOUT_MS, agent: 'ns/a' }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.state),
      Array(8).fill('Verified'),
      results.map((r) => r.message).join('\n'),
    );
    assert.equal(maxInFlight, 8, 'all 8 were served at once, none queued for a connection');
    assert.equal(prober.openConnections.httpPools, 1, 'one pool for the pod');
  } finally {
    await prober.close();
    server.close();
  }
});
