/**
 * Steps of the lifecycle scenarios (issue 11) that the routing invariant test and the fault
 * suite both take: a spec problem that holds full routing, and the first failed probe after a
 * restart (the moment a one-probe blip must not withdraw anything).
 */
import type { Cluster } from './cluster.js';
import { agentManifest, apply } from './manifests.js';
import type { OperatorProcess } from './operator.js';
import { condition, waitAgent, waitFor } from './wait.js';

/** Applies `spec` with a bearer token from a Secret that does not exist; waits for Stalled=SecretNotFound. */
export async function applyWithMissingSecret(
  cluster: Cluster,
  ns: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await apply(
    cluster,
    agentManifest(ns, name, {
      ...spec,
      auth: { bearerToken: { secretKeyRef: { name: 'missing', key: 'token' } } },
    }),
  );
  await waitAgent(
    cluster,
    ns,
    name,
    'Stalled SecretNotFound',
    (a) => condition(a, 'Stalled')?.reason === 'SecretNotFound',
  );
}

/** Waits until the operator's metrics count a gRPC probe that did not verify. */
export async function waitFailedGrpcProbe(operator: OperatorProcess): Promise<void> {
  const failed = async () =>
    [...(await operator.metrics()).matchAll(/^a2a_operator_probes_total\{([^}]*)\} (\d+)/gm)]
      .filter((m) => m[1]!.includes('binding="GRPC"') && !m[1]!.includes('state="Verified"'))
      .reduce((n, m) => n + Number(m[2]), 0);
  await waitFor('the first failed gRPC probe', async () => (await failed()) > 0, 60_000, 100);
}
