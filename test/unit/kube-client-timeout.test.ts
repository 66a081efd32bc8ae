/**
 * The API client's per-request timeout, against a real HTTP server on loopback that stalls: no
 * headers, or headers and then no body. Either ends the request with an error after about
 * timeoutMs, and a caller's abort still ends it at once.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { test } from 'node:test';
import { KubeClient } from '../../src/kube/client.js';
import { loopbackKubeConfig } from './loopback-kubeconfig.js';

const TIMEOUT_MS = 300;

async function stallingServer(t: { after: (fn: () => unknown) => void }) {
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    held.push(res);
    if (req.url?.includes('headers-then-stall')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items": [');
    }
    // else: nothing at all
  });
  const kc = await loopbackKubeConfig(server);
  const client = new KubeClient(kc, { timeoutMs: TIMEOUT_MS });
  t.after(async () => {
    for (const r of held) r.destroy();
    await client.close();
    server.closeAllConnections();
    server.close();
  });
  return client;
}

async function failure(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = performance.now();
  const err = await p.then(
    () => assert.fail('the request should not succeed'),
    (e: unknown) => e,
  );
  return { err, ms: performance.now() - started };
}

void test(
  'a server that sends no headers: the request fails after the timeout',
  { timeout: 20_000 },
  async (t) => {
    const client = await stallingServer(t);
    const { err, ms } = await failure(client.get('/api/v1/namespaces/a/pods/no-headers'));
    assert.match(String((err as { code?: string }).code), /UND_ERR_HEADERS_TIMEOUT/);
    assert.ok(ms >= TIMEOUT_MS * 0.9, `failed after ${ms.toFixed(0)} ms, before the timeout`);
  },
);

void test(
  'a server that stalls in the body: the request fails after the timeout',
  { timeout: 20_000 },
  async (t) => {
    const client = await stallingServer(t);
    const { err, ms } = await failure(client.get('/api/v1/namespaces/a/pods/headers-then-stall'));
    assert.match(String((err as { code?: string }).code), /UND_ERR_BODY_TIMEOUT/);
    assert.ok(ms >= TIMEOUT_MS * 0.9, `failed after ${ms.toFixed(0)} ms, before the timeout`);
  },
);

void test("the caller's abort ends a stalled request before the timeout", { timeout: 20_000 }, async (t) => {
  const client = await stallingServer(t);
  const ac = new AbortController();
  const pending = failure(client.get('/api/v1/namespaces/a/pods/no-headers', undefined, ac.signal));
  ac.abort(new Error('reconcile cancelled'));
  const { err } = await pending;
  assert.match(String(err), /reconcile cancelled/);
});
