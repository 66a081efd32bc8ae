/** Pure choices of what undoHost touches (tested in test/unit/host-filters.test.ts). */

/**
 * Pids listed in a cgroup.procs file, without 0 (`kill(0)` would signal our own process group)
 * and without the given pids (ourselves and our parent).
 */
export function pidsFromProcs(text: string, exclude: readonly number[]): number[] {
  return text
    .split('\n')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0 && !exclude.includes(n));
}

/**
 * Mount points to unmount, innermost first: the state root and what is under it, and the CRI
 * network namespaces `/run/netns/cni-*` not in the record (those existed before the run).
 */
export function mountsToUnmount(
  mounts: readonly string[],
  stateRoot: string,
  recordNetns: readonly string[],
): string[] {
  return mounts
    .filter((m) => {
      if (m === stateRoot || m.startsWith(`${stateRoot}/`)) return true;
      if (!m.startsWith('/run/netns/cni-')) return false;
      return !recordNetns.includes(m.slice('/run/netns/'.length));
    })
    .reverse();
}

/** nft tables to delete: new since the record and removable (nothing but ours is in them). */
export function tablesToDelete(
  now: readonly string[],
  recorded: readonly string[],
  removable: (t: string) => boolean,
): string[] {
  return now.filter((t) => !recorded.includes(t) && removable(t));
}
