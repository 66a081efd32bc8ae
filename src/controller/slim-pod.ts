/**
 * The Pod fields the operator reads, and nothing else: the pod cache holds every pod of the
 * watched namespaces, so what it keeps per pod is paid thousands of times. Readers are
 * pod-state.ts (observePod), gates.ts (readiness gate and its condition), the selector index
 * and the reconciler (labels, name, namespace, uid, deletionTimestamp); the informer needs
 * resourceVersion. A unit test runs those readers on a full pod and on its slim copy.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';

/** Copies the keys of `from` that are set, so absent fields stay absent. */
function defined<T extends object>(from: T): Partial<T> {
  const out: Partial<T> = {};
  for (const k of Object.keys(from) as (keyof T)[]) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

export function slimPod(pod: V1Pod): V1Pod {
  const m = pod.metadata;
  const spec = pod.spec;
  const st = pod.status;
  return {
    metadata: m
      ? defined({
          name: m.name,
          namespace: m.namespace,
          uid: m.uid,
          resourceVersion: m.resourceVersion,
          labels: m.labels,
          deletionTimestamp: m.deletionTimestamp,
        })
      : undefined,
    spec: spec
      ? {
          containers: (spec.containers ?? []).map((c) =>
            defined({
              name: c.name,
              ports: c.ports?.map((p) => defined({ name: p.name, containerPort: p.containerPort })),
            }),
          ) as V1Container[],
          ...defined({ readinessGates: spec.readinessGates, nodeName: spec.nodeName }),
        }
      : undefined,
    status: st
      ? defined({
          phase: st.phase,
          podIP: st.podIP,
          podIPs: st.podIPs?.map((a) => ({ ip: a.ip })),
          conditions: st.conditions?.map((c) =>
            defined({ type: c.type, status: c.status, reason: c.reason, message: c.message }),
          ),
        })
      : undefined,
  } as V1Pod;
}
