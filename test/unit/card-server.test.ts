// The card endpoint's HTTP contract, against a real node:http server on port 0 fed from
// in-memory caches (the handler reads informer caches; no Kubernetes API is involved).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { createCardServer, type CardIndexMode, type CardSource } from '../../src/routing/card-server.js';

const card = {
  name: 'billing',
  supportedInterfaces: [
    { url: 'http://billing:8080/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
};
const agents: ReturnType<CardSource['agents']['list']> = [
  {
    metadata: { namespace: 'pay', name: 'billing', uid: 'uid-billing' },
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
  { metadata: { namespace: 'pay', name: 'dark', uid: 'uid-dark' }, spec: {}, status: {} },
  { metadata: { namespace: 'hr', name: 'payroll' }, spec: {}, status: {} },
];
function ownerRef(name: string, uid: string) {
  return { apiVersion: 'a2a.dev/v1alpha1', kind: 'A2AAgent', name, uid, controller: true };
}
const configMaps: Record<string, V1ConfigMap> = {
  'pay/billing-agent-card': {
    metadata: { name: 'billing-agent-card', ownerReferences: [ownerRef('billing', 'uid-billing')] },
    data: { 'agent-card.json': JSON.stringify(card) },
  },
  'pay/dark-agent-card': {
    metadata: {
      name: 'dark-agent-card',
      ownerReferences: [ownerRef('dark', 'uid-dark')],
      // What status says may quote an answer; none of it belongs in an unauthenticated body.
      annotations: { 'a2a.dev/unavailable': 'JSONRPC: answered 500 "db password=hunter2 at 10.0.0.7"' },
    },
    data: {},
  },
};
let synced = true;
const source: CardSource = {
  agents: {
    get: (ns, name) => agents.find((a) => a.metadata?.namespace === ns && a.metadata?.name === name),
    list: (ns) => (ns === undefined ? agents : agents.filter((a) => a.metadata?.namespace === ns)),
  },
  configMaps: { get: (ns, name) => configMaps[`${ns}/${name}`] },
  ready: () => synced,
};

const servers: Server[] = [];
async function serve(index?: CardIndexMode): Promise<string> {
  const server = createCardServer(source, index ? { index } : {});
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
let base: string; // the default: a per-namespace index
before(async () => {
  base = await serve();
});
after(() => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))));

const payIndex = [
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
];

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

  it('503 with a stable reason and no probe evidence when nothing is verified', async () => {
    const res = await fetch(`${base}/cards/pay/dark`);
    assert.equal(res.status, 503);
    const text = await res.text();
    assert.deepEqual(JSON.parse(text), {
      error: 'NothingVerified',
      message: 'no interface of this agent is verified; see kubectl describe a2aagent -n pay dark',
    });
    assert.doesNotMatch(text, /hunter2|10\.0\.0\.7|500/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  it('503 NotPublished before the operator has written the ConfigMap', async () => {
    const res = await fetch(`${base}/cards/hr/payroll`);
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as { error: string }).error, 'NotPublished');
  });

  it('503 NotPublished for a same-named ConfigMap this agent did not create', async () => {
    const own = configMaps['pay/billing-agent-card']!;
    configMaps['pay/billing-agent-card'] = { ...own, metadata: { name: 'billing-agent-card' } };
    try {
      const res = await fetch(`${base}/cards/pay/billing`);
      assert.equal(res.status, 503);
      assert.equal(((await res.json()) as { error: string }).error, 'NotPublished');
    } finally {
      configMaps['pay/billing-agent-card'] = own;
    }
  });

  it('503 NotPublished in Observe mode: a card left from Enforce is frozen, not served', async () => {
    const billing = agents[0]!;
    const spec = billing.spec;
    billing.spec = { probe: { periodSeconds: 45 }, routing: { mode: 'Observe' } };
    try {
      const res = await fetch(`${base}/cards/pay/billing`);
      assert.equal(res.status, 503);
      assert.equal(((await res.json()) as { error: string }).error, 'NotPublished');
    } finally {
      billing.spec = spec;
    }
  });

  it('404 for an unknown agent or path; 405 for other methods', async () => {
    assert.equal((await fetch(`${base}/cards/pay/nobody`)).status, 404);
    assert.equal((await fetch(`${base}/elsewhere`)).status, 404);
    assert.equal((await fetch(`${base}/cards/pay/billing/extra`)).status, 404);
    assert.equal((await fetch(`${base}/cards/pay/billing`, { method: 'POST' })).status, 405);
  });

  it('by default GET /cards/<ns> lists that namespace only and GET /cards is 404', async () => {
    const res = await fetch(`${base}/cards/pay`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { agents: payIndex });
    assert.deepEqual(await (await fetch(`${base}/cards/nowhere`)).json(), { agents: [] });
    const all = await fetch(`${base}/cards`);
    assert.equal(all.status, 404);
    assert.doesNotMatch(await all.text(), /billing|payroll/);
  });

  it('index=cluster: GET /cards lists every agent of every namespace', async () => {
    const cluster = await serve('cluster');
    const res = await fetch(`${cluster}/cards`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      agents: [
        ...payIndex,
        { namespace: 'hr', name: 'payroll', url: '/cards/hr/payroll', ready: 'Unknown', advertised: [] },
      ],
    });
    assert.equal((await fetch(`${cluster}/cards/hr`)).status, 200);
  });

  it('index=none: no index at all, cards still served', async () => {
    const none = await serve('none');
    assert.equal((await fetch(`${none}/cards`)).status, 404);
    assert.equal((await fetch(`${none}/cards/pay`)).status, 404);
    assert.equal((await fetch(`${none}/cards/pay/billing`)).status, 200);
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
