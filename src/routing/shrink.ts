/**
 * The shrink-only routing plan (docs/routing.md: fail static holds back additions and unproven
 * withdrawals, never removals). When full routing is held (a spec problem, a Service conflict,
 * a verdict still pending), the slices as they are now lose exactly the endpoints that have
 * evidence against them, and nothing else:
 *
 * - the pod is gone, no longer selected, or no longer a ready candidate (NotReady, terminating,
 *   no IP): kube-proxy must not send agent traffic to it, and pod IPs are reused;
 * - the endpoint's address is not the pod's address any more (re-addressed);
 * - an interface advertised on the slice's port has a confirmed failure on that pod (or its
 *   card no longer declares it, or the card itself failed for good).
 *
 * A pending verdict is never evidence: it neither keeps nor removes anything on its own, so
 * one pod's slow probe never holds back withdrawing another pod's confirmed failure. Nothing is
 * ever added, and a slice is never wiped for lack of an answer.
 *
 * An advertised interface whose port is left with no endpoint is dropped from the card: telling
 * clients about an interface no pod behind the Service serves is a lie as well, and dropping an
 * interface from the card is always safe. Endpoints are removed before the card shrinks.
 */
import type { V1EndpointSlice } from '@kubernetes/client-node';

/** One pod as it is now, reduced to the evidence a shrink needs. */
export interface ShrinkPod {
  /** Running, ready, not terminating, has an address. */
  candidate: boolean;
  /**
   * The pod's Ready condition (readiness gates included). A kept endpoint of a pod that is not
   * Ready is marked `ready: false, serving: false` (a withdrawal); the way back to ready waits
   * for full routing, like every addition. Unset: not known, left as it is.
   */
  ready?: boolean;
  /** The pod's current addresses. */
  ips: readonly string[];
  /** Whether there is evidence that this pod does not serve the interface (confirmed failure). */
  refuses(key: string): boolean;
}

/** An interface of the card clients are told about now, with the agent port it maps to. */
export interface PublishedInterface {
  key: string;
  portName?: string;
}

export interface ShrinkResult {
  /** The owned slices with the refuted endpoints removed (same names, ports, address types). */
  slices: V1EndpointSlice[];
  /** Published interface keys still served by at least one endpoint, in card order. */
  advertised: string[];
  /** Endpoints removed, for logs and tests. */
  removed: { slice: string; address: string; pod?: string; why: string }[];
}

export function slicePortName(slice: V1EndpointSlice): string | undefined {
  return slice.ports?.[0]?.name ?? undefined;
}

/** Why an endpoint has to go, or undefined to keep it. */
function evidence(
  endpoint: NonNullable<V1EndpointSlice['endpoints']>[number],
  portKeys: readonly string[],
  pods: ReadonlyMap<string, ShrinkPod>,
): string | undefined {
  const uid = endpoint.targetRef?.uid;
  const pod = uid ? pods.get(uid) : undefined;
  if (!pod) return 'pod gone or no longer selected';
  if (!pod.candidate) return 'pod not ready';
  if (!endpoint.addresses.every((a) => pod.ips.includes(a))) return 'pod address changed';
  const refused = portKeys.find((k) => pod.refuses(k));
  return refused ? `confirmed failure of ${refused}` : undefined;
}

/**
 * `slices`: the agent's owned EndpointSlices as observed. `published`: the advertised card's
 * interfaces. `pods`: pod UID → current evidence (a UID not present is gone).
 */
export function shrinkRouting(
  slices: readonly V1EndpointSlice[],
  published: readonly PublishedInterface[],
  pods: ReadonlyMap<string, ShrinkPod>,
): ShrinkResult {
  const keysOn = new Map<string, string[]>();
  for (const p of published) {
    if (p.portName) keysOn.set(p.portName, [...(keysOn.get(p.portName) ?? []), p.key]);
  }
  const removed: ShrinkResult['removed'] = [];
  const served = new Set<string>();
  const out = slices.map((slice) => {
    const portName = slicePortName(slice);
    const portKeys = (portName && keysOn.get(portName)) || [];
    const endpoints = (slice.endpoints ?? []).filter((e) => {
      const why = evidence(e, portKeys, pods);
      if (why) {
        removed.push({
          slice: slice.metadata?.name ?? '',
          address: e.addresses.join(','),
          ...(e.targetRef?.name ? { pod: e.targetRef.name } : {}),
          why,
        });
      }
      return !why;
    });
    let marked = false;
    const shown = endpoints.map((e) => {
      const pod = e.targetRef?.uid ? pods.get(e.targetRef.uid) : undefined;
      if (pod?.ready !== false || (e.conditions?.ready === false && e.conditions.serving === false)) return e;
      marked = true;
      return { ...e, conditions: { ...e.conditions, ready: false, serving: false } };
    });
    if (endpoints.length > 0 && portName) served.add(portName);
    return endpoints.length === (slice.endpoints ?? []).length && !marked
      ? slice
      : { ...slice, endpoints: shown };
  });
  return {
    slices: out,
    advertised: published.filter((p) => p.portName && served.has(p.portName)).map((p) => p.key),
    removed,
  };
}
