/**
 * The `churn` agent of the routing-invariant scenarios (test/integration/routing-invariant.test.ts
 * and the fault suite): agent pods labelled `app: churn` serving a healthy card for
 * `churn.<ns>.svc`, judged with a fast probe so breaks are found within seconds, and the
 * detection bound that probe gives the outside watchers.
 */
import { startAgentPod, type AgentPod } from './agent-pod.js';
import type { Cluster } from './cluster.js';
import { healthyAgentConfig, healthySpec } from './manifests.js';
import type { PodHostFamilies } from './podhost.js';

export const CHURN_PROBE = { periodSeconds: 3, timeoutSeconds: 1, failureThreshold: 2 } as const;

/** How long a reconcile's writes (card, then slices, or the reverse) may take on a busy machine. */
export const WRITES_MS = 3000;

/**
 * Detection bound D: a period, confirmation reprobes (1 s, 2 s), probe timeouts, and a
 * reconcile's writes. A pod broken for longer than that is never routed.
 */
export const CHURN_DETECTION_MS =
  (CHURN_PROBE.periodSeconds + 1 + 2 + CHURN_PROBE.failureThreshold * CHURN_PROBE.timeoutSeconds) * 1000 +
  WRITES_MS;

/** The churn agent's spec with the fast probe, plus `extra` (top-level fields replaced). */
export function churnSpec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...healthySpec('churn', { ...CHURN_PROBE }), ...extra };
}

/** Starts an agent pod `name` that the churn agent selects. */
export function startChurnPod(
  cluster: Cluster,
  ns: string,
  name: string,
  families?: PodHostFamilies,
): Promise<AgentPod> {
  return startAgentPod(cluster, {
    namespace: ns,
    name,
    labels: { app: 'churn' },
    config: healthyAgentConfig(`churn.${ns}.svc`),
    families,
  });
}
