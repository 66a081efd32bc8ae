/**
 * The real cluster of the end-to-end tests. `npm run test:e2e` (scripts/run-e2e.ts) starts one
 * for the whole run and passes it in A2A_E2E_CLUSTER; a test file run on its own
 * (`node --import tsx --test test/e2e/x.test.ts`) starts one itself and stops it after its tests.
 */
import { after } from 'node:test';
import { startRealCluster, type RealCluster } from '../harness/real-cluster/cluster.js';
import { describeForTests, handleOf, wrap, type Description, type E2ECluster } from './cluster-handle.js';

export { describeForTests, type E2ECluster };

let current: Promise<E2ECluster> | undefined;
let own: RealCluster | undefined;

// Registered at load (top level: the file's root), not from inside a hook, where it would run
// as soon as that hook ended.
if (!process.env.A2A_E2E_CLUSTER) after(() => own?.stop());

async function connect(): Promise<E2ECluster> {
  const shared = process.env.A2A_E2E_CLUSTER;
  if (shared) return wrap(JSON.parse(shared) as Description);
  own = await startRealCluster({ log: (l) => process.stderr.write(`[real-cluster] ${l}\n`) });
  return handleOf(own);
}

/** The real cluster of this run (started on first use when no runner started one). */
export function useRealCluster(): Promise<E2ECluster> {
  current ??= connect();
  return current;
}
