/**
 * Steps of the lifecycle scenarios (issue 11) that the routing invariant test and the fault
 * suite both take: a spec problem that holds full routing, and an operator restarted under a
 * one-probe blip (the fresh leader's first failed probe must not withdraw anything).
 */
import type { Cluster } from './cluster.js';
import { agentManifest, apply } from './manifests.js';
import { startOperator, type OperatorProcess } from './operator.js';
import type { Scenario } from './scenario.js';
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

/**
 * The probe to apply before restartUnderBlip: a high failure threshold leaves seconds between
 * the fresh operator's first failed probe and a confirmation, so the blip must withdraw nothing.
 */
export const BLIP_PROBE = { periodSeconds: 8, timeoutSeconds: 2, failureThreshold: 5 } as const;

/** A pod whose gRPC server the test can stop and start. */
export interface BlipPod {
  control(path: string, body: unknown): Promise<unknown>;
}

/**
 * Stops the operator, breaks `blip`'s gRPC, starts a fresh operator (empty memory), waits for its
 * first failed gRPC probe, heals the pod and waits until `agent` shows every interface Verified
 * again. `keep(true)` opens, `keep(false)` closes the window in which the caller's watcher must
 * see every pod still routed; `mark(up)` records the pod's gRPC state on the safe side (a break
 * before the request, a heal after it).
 */
export async function restartUnderBlip(
  s: Scenario,
  agent: string,
  blip: BlipPod,
  hooks: { keep(on: boolean): void; mark(up: boolean): void },
): Promise<void> {
  await s.operator.stop();
  hooks.keep(true);
  hooks.mark(false);
  await blip.control('/grpc', { running: false });
  s.operator = await startOperator({ kubeconfig: s.cluster.kubeconfigPath, namespaces: [s.ns] });
  await s.operator.waitReady();
  await waitFailedGrpcProbe(s.operator);
  await blip.control('/grpc', { running: true });
  hooks.mark(true);
  await waitAgent(
    s.cluster,
    s.ns,
    agent,
    'gRPC verified again',
    (a) => a.status?.interfaces?.every((i) => i.state === 'Verified') === true,
  );
  hooks.keep(false);
}
