import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Backoff } from '../../src/kube/backoff.js';
import type { QueryValue } from '../../src/kube/client.js';
import { ApiError } from '../../src/kube/errors.js';
import { Informer } from '../../src/kube/informer.js';
import type { ListResult } from '../../src/kube/watch-source.js';
import { FakeClock, flush } from './kube-fake-clock.js';

function pod(name: string, rv: string, labels: Record<string, string> = {}): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'ns', name, resourceVersion: rv, labels, managedFields: [{ manager: 'x' }] },
  };
}

interface FakeWatch {
  query: Record<string, QueryValue>;
  emit(type: string, obj: unknown): void;
  done(err?: unknown): void;
  aborted: boolean;
}

function harness(opts: { watchdogMs?: number } = {}) {
  const clock = new FakeClock();
  const lists: (() => Promise<ListResult<KubernetesObject>>)[] = [];
  const watches: FakeWatch[] = [];
  const events: string[] = [];
  let listCalls = 0;
  const informer = new Informer<KubernetesObject>({
    path: '/api/v1/namespaces/ns/pods',
    clock,
    random: () => 0.5,
    backoff: new Backoff({ initialMs: 500, maxMs: 30_000, random: () => 0 }),
    watchdogMs: opts.watchdogMs ?? 300_000,
    list: () => {
      listCalls++;
      const next = lists.shift();
      if (!next) return Promise.reject(new Error('unexpected list'));
      return next();
    },
    watch: (_path, query, onEvent, onDone) => {
      const w: FakeWatch = {
        query,
        emit: onEvent,
        done: (err) => onDone(err),
        aborted: false,
      };
      watches.push(w);
      return Promise.resolve({ abort: () => void (w.aborted = true) });
    },
  });
  informer.addHandlers({
    onAdd: (o) => events.push(`add ${o.metadata?.name}`),
    onUpdate: (a, b) =>
      events.push(
        `update ${b.metadata?.name} ${a.metadata?.resourceVersion}->${b.metadata?.resourceVersion}`,
      ),
    onDelete: (o) => events.push(`delete ${o.metadata?.name}`),
  });
  const listReturns = (rv: string, items: KubernetesObject[]) =>
    lists.push(() => Promise.resolve({ resourceVersion: rv, items }));
  return { clock, informer, watches, events, listReturns, lists, listCount: () => listCalls };
}

describe('Informer', () => {
  it('lists, then watches from the list RV with bookmarks and a server timeout', async () => {
    const h = harness();
    h.listReturns('10', [pod('a', '5'), pod('b', '6')]);
    h.informer.start();
    await h.informer.waitForSync();
    await flush();
    assert.equal(h.informer.hasSynced(), true);
    assert.deepEqual(h.events, ['add a', 'add b']);
    assert.equal(h.watches.length, 1);
    const q = h.watches[0]!.query;
    assert.equal(q.resourceVersion, '10');
    assert.equal(q.allowWatchBookmarks, true);
    assert.equal(q.timeoutSeconds, 450);
    assert.equal(h.informer.get('ns', 'a')?.metadata?.managedFields, undefined, 'managedFields stripped');
    await h.informer.stop();
    assert.equal(h.watches[0]!.aborted, true);
  });

  it('applies watch events and bookmarks advance the RV', async () => {
    const h = harness();
    h.listReturns('10', [pod('a', '5')]);
    h.informer.start();
    await flush();
    const w = h.watches[0]!;
    w.emit('ADDED', pod('c', '11', { app: 'x' }));
    w.emit('MODIFIED', pod('a', '12'));
    w.emit('DELETED', pod('c', '13'));
    w.emit('BOOKMARK', { kind: 'Pod', metadata: { resourceVersion: '20' } });
    assert.deepEqual(h.events, ['add a', 'add c', 'update a 5->12', 'delete c']);
    assert.equal(h.informer.resourceVersion, '20');
    assert.deepEqual(
      h.informer.list('ns').map((p) => p.metadata?.name),
      ['a'],
    );
    // A clean server close re-watches at once from the bookmark's RV, without relisting.
    await h.clock.advance(60_000);
    w.done(null);
    await flush();
    assert.equal(h.watches.length, 2);
    assert.equal(h.watches[1]!.query.resourceVersion, '20');
    assert.equal(h.listCount(), 1);
    assert.equal(h.informer.stats.restarts.closed, 1);
    await h.informer.stop();
  });

  it('relists on a 410 ERROR event, synthesising deletes and updates only for changed RVs', async () => {
    const h = harness();
    h.listReturns('10', [pod('a', '5'), pod('b', '6'), pod('c', '7')]);
    h.informer.start();
    await flush();
    h.events.length = 0;
    h.listReturns('50', [pod('a', '5'), pod('b', '40'), pod('d', '41')]);
    h.watches[0]!.emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
    await flush();
    assert.deepEqual(h.events.sort(), ['add d', 'delete c', 'update b 6->40']);
    assert.equal(h.informer.stats.relists, 1);
    assert.equal(h.watches.length, 2);
    assert.equal(h.watches[1]!.query.resourceVersion, '50');
    await h.informer.stop();
  });

  it('relists when the watch request itself answers 410', async () => {
    const h = harness();
    h.listReturns('10', []);
    h.informer.start();
    await flush();
    h.listReturns('60', [pod('z', '59')]);
    h.watches[0]!.done(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await flush();
    assert.deepEqual(h.events, ['add z']);
    assert.equal(h.informer.stats.restarts.gone, 1);
    await h.informer.stop();
  });

  it('restarts after errors with exponential backoff', async () => {
    const h = harness();
    h.listReturns('10', []);
    h.informer.start();
    await flush();
    h.watches[0]!.done(new Error('ECONNRESET'));
    await flush();
    assert.equal(h.watches.length, 1, 'waits before reconnecting');
    await h.clock.advance(500);
    assert.equal(h.watches.length, 2);
    h.watches[1]!.done(new Error('ECONNRESET'));
    await h.clock.advance(999);
    assert.equal(h.watches.length, 2);
    await h.clock.advance(1);
    assert.equal(h.watches.length, 3, 'second delay doubled');
    assert.equal(h.informer.stats.restarts.error, 2);
    await h.informer.stop();
  });

  it('retries a failed list with backoff and only then reports synced', async () => {
    const h = harness();
    h.lists.push(() => Promise.reject(new ApiError(503, 'ServiceUnavailable', 'down', 'GET pods')));
    h.listReturns('10', [pod('a', '1')]);
    h.informer.start();
    await flush();
    assert.equal(h.informer.hasSynced(), false);
    assert.equal(h.informer.stats.errors, 1);
    await h.clock.advance(500);
    assert.equal(h.informer.hasSynced(), true);
    await h.informer.stop();
  });

  it('the watchdog restarts a silent watch', async () => {
    const h = harness({ watchdogMs: 10_000 });
    h.listReturns('10', []);
    h.informer.start();
    await flush();
    await h.clock.advance(9_000);
    h.watches[0]!.emit('BOOKMARK', { metadata: { resourceVersion: '11' } });
    await h.clock.advance(9_000);
    assert.equal(h.watches.length, 1, 'a bookmark re-arms the watchdog');
    await h.clock.advance(1_000);
    assert.equal(h.watches[0]!.aborted, true);
    assert.equal(h.watches.length, 2);
    assert.equal(h.watches[1]!.query.resourceVersion, '11');
    assert.equal(h.informer.stats.restarts.watchdog, 1);
    await h.informer.stop();
  });

  it('a throwing handler does not break the cache', async () => {
    const h = harness();
    h.informer.addHandlers({
      onAdd: () => {
        throw new Error('handler bug');
      },
    });
    h.listReturns('10', [pod('a', '1')]);
    h.informer.start();
    await flush();
    assert.ok(h.informer.get('ns', 'a'));
    assert.equal(h.informer.stats.errors, 1);
    await h.informer.stop();
  });

  it('select filters a namespace by label selector', async () => {
    const h = harness();
    h.listReturns('10', [pod('a', '1', { app: 'x' }), pod('b', '2', { app: 'y' })]);
    h.informer.start();
    await flush();
    assert.deepEqual(
      h.informer.select('ns', { matchLabels: { app: 'x' } }).map((p) => p.metadata?.name),
      ['a'],
    );
    assert.deepEqual(h.informer.select('other', {}), []);
    await h.informer.stop();
  });
});
