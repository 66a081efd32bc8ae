/**
 * What the real cluster's undo touches on the host (test/harness/real-cluster/host-filters.ts):
 * never pid 0 or ourselves, never a netns mount or nft table that existed before, never a new
 * table something else lives in.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mountsToUnmount, pidsFromProcs, tablesToDelete } from '../harness/real-cluster/host-filters.js';

describe('real cluster host undo filters', () => {
  test('cgroup pids: 0, blanks, garbage and the excluded pids are dropped', () => {
    assert.deepEqual(pidsFromProcs('0\n12\n\n34\nx\n-5\n56\n', [34, 56]), [12]);
    assert.deepEqual(pidsFromProcs('', [1]), []);
  });

  test('mounts: the state root and below, innermost first, and only new cni netns', () => {
    const mounts = [
      '/',
      '/var/lib/a2a-real',
      '/var/lib/a2a-real/pods/x',
      '/var/lib/a2a-real-other',
      '/run/netns/cni-old',
      '/run/netns/cni-new',
      '/run/netns/other',
    ];
    assert.deepEqual(mountsToUnmount(mounts, '/var/lib/a2a-real', ['cni-old']), [
      '/run/netns/cni-new',
      '/var/lib/a2a-real/pods/x',
      '/var/lib/a2a-real',
    ]);
  });

  test('nft tables: only new ones that are removable', () => {
    const removable = (t: string) => t !== 'ip nat';
    assert.deepEqual(
      tablesToDelete(
        ['ip filter', 'ip nat', 'ip kube-proxy', 'inet old'],
        ['inet old', 'ip filter'],
        removable,
      ),
      ['ip kube-proxy'],
    );
  });
});
