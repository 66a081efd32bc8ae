// The card endpoint's HTTP contract, against a real node:http server on port 0 fed from
// in-memory caches (the handler reads informer caches; no Kubernetes API is involved).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { createCardServer, type CardSource } from '../../src/routing/card-server.js';

const card = {
  name: 'billing',
  supportedInterfaces: [
    { url: 'http://billing:8080/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
};
const agents: ReturnType<CardSource['agents']['list']> = [
  {
    metadata: { namespace: 'pay', name: 'billing' },
    spec: { probe: { periodSeconds: 45 } },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Succeeded',
          message: '',
          lastTransitionTime: '2030-01-01T00:00:00Z',
        },
      ],
      interfaces: [
        {
          url: 'http://billing:8080/a2a/jsonrpc',
          protocolBinding: 'JSONRPC',
          protocolVersion: '1.0',
          state: 'Verified' as const,
          verifiedPods: '1/1',
          advertised: true,
          message: '',
        },
        {
          url: 'http://billing:9090',
          protocolBinding: 'GRPC',
          protocolVersion: '1.0',
          state: 'Unimplemented' as const,
          verifiedPods: '0/1',
          advertised: false,
          message: '',
        },
      ],
    },
  },
  { metadata: { namespace: 'pay', name: 'dark' }, spec: {}, status: {} },
];
const configMaps: Record<string, V1ConfigMap> = {
  'pay/billing-agent-card': {
    metadata: { name: 'billing-agent-card' },
    data: { 'agent-card.json': JSON.stringify(card) },
  },
  'pay/dark-agent-card': {
    metadata: {
      name: 'dark-agent-card',
      annotations: { 'a2a.dev/unavailable': 'no declared interface is verified on any ready pod' },
    },
    data: {},
  },
};
let synced = true;
const source: CardSource = {
  agents: {
    get: (ns, name) => agents.find((a) => a.metadata?.namespace === ns && a.metadata?.name === name),
    list: () => agents,
  },
  configMaps: { get: (ns, name) => configMaps[`${ns}/${name}`] },
  ready: () => synced,
};

let server: Server;
let base: string;
before(async () => {
  server = createCardServer(source);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

describe('card endpoint', () => {
  it('serves the advertised card with ETag and Cache-Control from the probe period', async () => {
    const res = await fetch(`${base}/cards/pay/billing`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=45');
    assert.match(res.headers.get('etag') ?? '', /^"[0-9a-f]{32}"$/);
    assert.deepEqual(await res.json(), card);
  });

  it('answers 304 to If-None-Match with the current ETag, 200 to a stale one', async () => {
    const etag = (await fetch(`${base}/cards/pay/billing`)).headers.get('etag')!;
    const same = await fetch(`${base}/cards/pay/billing`, { headers: { 'if-none-match': etag } });
    assert.equal(same.status, 304);
    assert.equal(await same.text(), '');
    const stale = await fetch(`${base}/cards/pay/billing`, { headers: { 'if-none-match': '"other"' } });
    assert.equal(stale.status, 200);
  });

  it('503 with a JSON reason when nothing is verified', async () => {
    const res = await fetch(`${base}/cards/pay/dark`);
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), {
      error: 'NoVerifiedInterface',
      message: 'no declared interface is verified on any ready pod',
    });
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  it('404 for an unknown agent or path; 405 for other methods', async () => {
    assert.equal((await fetch(`${base}/cards/pay/nobody`)).status, 404);
    assert.equal((await fetch(`${base}/elsewhere`)).status, 404);
    assert.equal((await fetch(`${base}/cards/pay/billing`, { method: 'POST' })).status, 405);
  });

  it('GET /cards lists every agent with what it advertises', async () => {
    const res = await fetch(`${base}/cards`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      agents: [
        {
          namespace: 'pay',
          name: 'billing',
          url: '/cards/pay/billing',
          ready: 'True',
          advertised: [
            { url: 'http://billing:8080/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
        },
        { namespace: 'pay', name: 'dark', url: '/cards/pay/dark', ready: 'Unknown', advertised: [] },
      ],
    });
  });

  it('503 until the caches are synced', async () => {
    synced = false;
    try {
      const res = await fetch(`${base}/cards/pay/billing`);
      assert.equal(res.status, 503);
      assert.equal(((await res.json()) as { error: string }).error, 'NotSynced');
    } finally {
      synced = true;
    }
  });
});
