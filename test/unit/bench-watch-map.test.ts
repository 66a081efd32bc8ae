// The benchmark's WatchMap (bench/lib/watch-map.ts): its group index and `untilEvery`, which
// re-evaluates only the group an event touched and resolves when every group holds at once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { WatchMap } from '../../bench/lib/watch-map.js';

type Obj = KubernetesObject & { group?: string; ok?: boolean };

const obj = (name: string, group: string, ok: boolean): Obj => ({
  metadata: { namespace: 'ns', name, resourceVersion: '1' },
  group,
  ok,
});

const map = () => new WatchMap<Obj>(new KubeConfig(), '/unused', {}, (o) => o.group);

const allOk = (objects: ReadonlyMap<string, Obj>) =>
  objects.size > 0 && [...objects.values()].every((o) => o.ok);

describe('WatchMap groups', () => {
  test('indexes objects by group and moves them when their group changes or they go', () => {
    const wm = map();
    wm.apply('ADDED', obj('a', 'g1', true));
    wm.apply('ADDED', obj('b', 'g1', false));
    assert.deepEqual([...wm.group('g1').keys()], ['ns/a', 'ns/b']);
    wm.apply('MODIFIED', obj('b', 'g2', false));
    assert.deepEqual([...wm.group('g1').keys()], ['ns/a']);
    assert.deepEqual([...wm.group('g2').keys()], ['ns/b']);
    wm.apply('DELETED', obj('a', 'g1', true));
    assert.equal(wm.group('g1').size, 0);
    assert.equal(wm.group('none').size, 0);
  });

  test('untilEvery resolves at the event after which every group holds, evaluating only touched groups', async () => {
    const wm = map();
    const seen: string[] = [];
    const done = wm.untilEvery(
      'all ok',
      ['g1', 'g2'],
      (g, objects) => {
        seen.push(g);
        return allOk(objects);
      },
      10_000,
    );
    assert.deepEqual(seen, ['g1', 'g2'], 'each group once at the start');
    let resolved = false;
    void done.then(() => (resolved = true));
    wm.apply('ADDED', obj('a', 'g1', true));
    wm.apply('ADDED', obj('x', 'other', true));
    assert.deepEqual(seen, ['g1', 'g2', 'g1'], 'an event of a group not waited for evaluates nothing');
    wm.apply('ADDED', obj('b', 'g2', false));
    // g1 held, then stops holding before g2 does: never both at once yet.
    wm.apply('MODIFIED', obj('a', 'g1', false));
    wm.apply('MODIFIED', obj('b', 'g2', true));
    await new Promise((r) => setImmediate(r));
    assert.equal(resolved, false, 'g1 no longer holds when g2 starts to');
    wm.apply('MODIFIED', obj('a', 'g1', true));
    const at = await done;
    assert.ok(Number.isFinite(at));
    assert.equal(resolved, true);
  });

  test('untilEvery resolves at once when every group already holds, and rejects on timeout', async () => {
    const wm = map();
    wm.apply('ADDED', obj('a', 'g1', true));
    assert.ok(Number.isFinite(await wm.untilEvery('g1 ok', ['g1'], (_g, o) => allOk(o), 1000)));
    await assert.rejects(
      wm.untilEvery('g2 ok', ['g2'], (_g, o) => allOk(o), 20),
      /g2 ok \(1 left\)/,
    );
  });

  test('stop rejects every waiter', async () => {
    const wm = map();
    const a = wm.until('never', () => false, 10_000);
    const b = wm.untilEvery('never', ['g'], () => false, 10_000);
    wm.stop();
    await assert.rejects(a, /watch stopped/);
    await assert.rejects(b, /watch stopped/);
  });
});
