/**
 * The API client reuses the kubeconfig's auth headers for AUTH_REUSE_MS instead of asking the
 * kubeconfig on every request (issue 15: 0.15 ms a request on the cold start), against a real
 * HTTP server on loopback: a token rotated in the kubeconfig is sent once the reuse time has
 * passed, and at once after the API server refused the old one (401).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { AUTH_REUSE_MS, KubeClient } from '../../src/kube/client.js';
import { loopbackKubeConfig } from './loopback-kubeconfig.js';

test('auth headers: asked once per reuse window, again after it and after a 401', async () => {
  const sent: string[] = [];
  let refuse = false;
  const server = createServer((req, res) => {
    sent.push(req.headers.authorization ?? '');
    res.setHeader('content-type', 'application/json');
    if (refuse) {
      res.statusCode = 401;
      res.end('{"kind":"Status","reason":"Unauthorized","message":"Unauthorized"}');
      return;
    }
    res.end('{}');
  });
  let token = 'one';
  const kc = await loopbackKubeConfig(server);
  let asked = 0;
  const apply = kc.applyToHTTPSOptions.bind(kc);
  kc.applyToHTTPSOptions = async (opts) => {
    asked++;
    await apply(opts);
    opts.headers = { ...opts.headers, Authorization: `Bearer ${token}` };
  };
  let now = 0;
  const client = new KubeClient(kc, { now: () => now });
  try {
    await Promise.all([1, 2, 3].map(() => client.get('/api/v1/pods')));
    await client.get('/api/v1/pods');
    assert.equal(asked, 1, 'the kubeconfig is asked once within the window (the first requests raced)');

    token = 'two';
    now += AUTH_REUSE_MS - 1;
    await client.get('/api/v1/pods');
    assert.equal(sent.at(-1), 'Bearer one', 'still within the window');
    now += 1;
    await client.get('/api/v1/pods');
    assert.equal(sent.at(-1), 'Bearer two', 'the window passed: asked again');

    token = 'three';
    refuse = true;
    await assert.rejects(client.get('/api/v1/pods'), /Unauthorized/);
    refuse = false;
    await client.get('/api/v1/pods');
    assert.equal(sent.at(-1), 'Bearer three', 'a 401 drops the reused headers');
    assert.deepEqual(sent.slice(0, 4), ['Bearer one', 'Bearer one', 'Bearer one', 'Bearer one']);
  } finally {
    await client.close();
    server.close();
  }
});
