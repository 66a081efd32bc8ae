// The supervised informer against a real kube-apiserver: events, bookmarks, watchdog
// restarts, and (when this process owns the control plane) API server restarts and 410 relists.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { KubeClient } from '../../src/kube/client.js';
import { Informer } from '../../src/kube/informer.js';
import { clientNodeWatch, type WatchFn } from '../../src/kube/watch-source.js';

let cluster: Cluster;
let client: KubeClient;
let ns: string;
const informers: Informer<KubernetesObject>[] = [];

async function until(what: string, pred: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function cm(name: string, data: Record<string, string> = {}, namespace = ns): KubernetesObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data } as KubernetesObject;
}

async function create(obj: KubernetesObject): Promise<void> {
  await client.request({
    method: 'POST',
    path: `/api/v1/namespaces/${obj.metadata!.namespace}/configmaps`,
    body: obj,
  });
}

async function update(name: string, data: Record<string, string>): Promise<void> {
  await client.request({
    method: 'PATCH',
    path: `/api/v1/namespaces/${ns}/configmaps/${name}`,
    body: { data },
    contentType: 'application/merge-patch+json',
  });
}

async function remove(name: string): Promise<void> {
  await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}/configmaps/${name}` });
}

function track(inf: Informer<KubernetesObject>): string[] {
  const log: string[] = [];
  inf.addHandlers({
    onAdd: (o) => log.push(`add ${o.metadata?.name}`),
    onUpdate: (_o, n) => log.push(`update ${n.metadata?.name}`),
    onDelete: (o) => log.push(`delete ${o.metadata?.name}`),
  });
  return log;
}

function informer(opts: Partial<ConstructorParameters<typeof Informer<KubernetesObject>>[0]> = {}) {
  const inf = new Informer<KubernetesObject>({
    client,
    path: `/api/v1/namespaces/${ns}/configmaps`,
    ...opts,
  });
  informers.push(inf);
  return inf;
}

before(async () => {
  cluster = await useCluster();
  client = new KubeClient(cluster.kc);
});

// Each test stops its informers: with another watch of the same resource open, this API
// server was seen to skip the pre-timeout bookmark, which the bookmark test relies on.
afterEach(async () => {
  await Promise.all(informers.splice(0).map((i) => i.stop()));
});

after(() => client.close());

describe('Informer on a real API server', () => {
  test('sees adds, updates and deletes; caches without managedFields', async () => {
    ns = await cluster.createNamespace('kinf');
    await create(cm('pre', { a: '1' }));
    const inf = informer();
    const log = track(inf);
    inf.start();
    await inf.waitForSync();
    assert.deepEqual(log, ['add pre']);
    assert.equal(inf.get(ns, 'pre')?.metadata?.managedFields, undefined);
    await create(cm('x'));
    await update('x', { b: '2' });
    await remove('pre');
    await until('three events', () => log.length === 4);
    assert.deepEqual(log, ['add pre', 'add x', 'update x', 'delete pre']);
    assert.deepEqual(
      inf.list(ns).map((o) => o.metadata?.name),
      ['x'],
    );
    assert.equal((inf.get(ns, 'x') as { data?: Record<string, string> }).data?.b, '2');
  });

  test('bookmarks advance the resourceVersion of a quiet watch; server-closed watches resume', async () => {
    ns = await cluster.createNamespace('kbm');
    const other = await cluster.createNamespace('kbm-other');
    // A 6 s server timeout: the API server sends a bookmark shortly before it closes the watch.
    const inf = informer({ watchTimeoutSeconds: [6, 6] });
    const log = track(inf);
    inf.start();
    await inf.waitForSync();
    const rv0 = Number(inf.resourceVersion);
    // Writes elsewhere move the configmap watch cache's resourceVersion on.
    let n = 0;
    const ticker = setInterval(() => void create(cm(`tick-${n++}`, {}, other)).catch(() => undefined), 1_000);
    try {
      await until('a bookmark', () => Number(inf.resourceVersion) > rv0, 30_000);
    } finally {
      clearInterval(ticker);
    }
    assert.equal(log.length, 0, 'nothing happened in this namespace');
    await until('a clean server close', () => inf.stats.restarts.closed >= 1, 20_000);
    await create(cm('after-close'));
    await until('event after resume', () => log.includes('add after-close'));
    assert.equal(inf.stats.lists, 1, 'resumed from the bookmark, no relist');
  });

  test('the watchdog restarts a silent watch and events keep flowing', async () => {
    ns = await cluster.createNamespace('kwd');
    const inf = informer({ watchdogMs: 1_500, watchTimeoutSeconds: [120, 120] });
    const log = track(inf);
    inf.start();
    await inf.waitForSync();
    await until('a watchdog restart', () => inf.stats.restarts.watchdog >= 1, 10_000);
    await create(cm('y'));
    await until('event after watchdog restart', () => log.includes('add y'));
    assert.equal(inf.stats.lists, 1);
  });

  test('survives an API server restart, and relists after 410 with synthesised events', async (t) => {
    const cp = cluster.controlPlane;
    if (!cp) {
      t.skip('needs a control plane owned by this process (run this file on its own)');
      return;
    }
    ns = await cluster.createNamespace('k410');
    for (const n of ['keep', 'change', 'gone']) await create(cm(n));
    // A watch that can be "partitioned": events are dropped, as on a half-open connection.
    const base = clientNodeWatch(cluster.kc);
    let partitioned = false;
    const watch: WatchFn = (path, query, onEvent, onDone) =>
      base(path, query, (type, obj) => !partitioned && onEvent(type, obj), onDone);
    const inf = informer({ watch });
    const log = track(inf);
    inf.start();
    await inf.waitForSync();
    log.length = 0;

    partitioned = true;
    await update('change', { v: '2' });
    await remove('gone');
    await create(cm('new'));
    // Compact etcd so the old resourceVersion is really gone, then restart the API server:
    // its fresh watch cache starts after our resourceVersion, so the re-watch gets 410.
    await compactEtcd(cp.etcdEndpoint);
    // Keeps the event loop alive: the informer's own timers are unref'd by design.
    const keepAlive = setInterval(() => undefined, 1_000);
    try {
      await cp.restartApiserver(500);
      partitioned = false;
      await until('relist events', () => log.length >= 3, 60_000);
    } finally {
      clearInterval(keepAlive);
    }

    assert.deepEqual([...log].sort(), ['add new', 'delete gone', 'update change']);
    assert.ok(inf.stats.relists >= 1, 'relisted');
    assert.deepEqual(
      inf
        .list(ns)
        .map((o) => o.metadata?.name)
        .sort(),
      ['change', 'keep', 'new'],
    );
  });
});

/** Compacts etcd to its current revision through the v3 JSON gateway. */
async function compactEtcd(endpoint: string): Promise<void> {
  const range = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: 'AA==' }),
  });
  const { header } = (await range.json()) as { header: { revision: string } };
  const res = await fetch(`${endpoint}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision: header.revision, physical: true }),
  });
  assert.equal(res.status, 200);
}
