/**
 * The real cluster of the end-to-end tests. `npm run test:e2e` (scripts/run-e2e.ts) starts one
 * for the whole run and passes it in A2A_E2E_CLUSTER; a test file run on its own
 * (`node --import tsx --test test/e2e/x.test.ts`) starts one itself and stops it after its tests.
 */
import { after } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startRealCluster, type RealCluster } from '../harness/real-cluster/cluster.js';
import { waitFor } from '../harness/wait.js';
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

/**
 * A fresh namespace that takes pods: created, then waited for until its `default`
 * ServiceAccount exists (the ServiceAccount controller makes it shortly after the namespace, and
 * the API server refuses pods until then).
 */
export async function createPodNamespace(cluster: E2ECluster, prefix: string): Promise<string> {
  const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  const ns = await cluster.createNamespace(prefix);
  try {
    await waitFor('the default ServiceAccount', () =>
      core.readNamespacedServiceAccount({ name: 'default', namespace: ns }),
    );
  } catch (err) {
    // the caller never learns the name, so its cleanup cannot delete it
    await deleteNamespace(cluster, ns);
    throw err;
  }
  return ns;
}

/** Starts the namespace's deletion without waiting for it to finish; a failure is ignored (cleanup). */
export async function deleteNamespace(cluster: E2ECluster, ns: string): Promise<void> {
  await cluster.kc
    .makeApiClient(k8s.CoreV1Api)
    .deleteNamespace({ name: ns })
    .catch(() => undefined);
}
