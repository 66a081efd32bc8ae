/**
 * The API client's write guard (KubeClient `mayWrite`), against a real HTTP server on loopback:
 * while the guard says no, reads go out and writes are refused with NotLeaderError, unsent.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { KubeClient } from '../../src/kube/client.js';
import { isNotLeader } from '../../src/kube/errors.js';
import { loopbackKubeConfig } from './loopback-kubeconfig.js';

test('writes are refused unsent while mayWrite() is false; reads always go out', async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
  const kc = await loopbackKubeConfig(server);
  let leading = true;
  const client = new KubeClient(kc, { mayWrite: () => leading });
  try {
    await client.request({ method: 'PATCH', path: '/api/v1/namespaces/a/pods/p/status', body: {} });
    leading = false;
    await client.get('/api/v1/namespaces/a/pods');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const err = await client.request({ method, path: '/api/v1/namespaces/a/configmaps/c', body: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isNotLeader(err), `${method}: ${String(err)}`);
    }
    assert.deepEqual(seen, ['PATCH /api/v1/namespaces/a/pods/p/status', 'GET /api/v1/namespaces/a/pods']);
  } finally {
    await client.close();
    server.close();
  }
});
