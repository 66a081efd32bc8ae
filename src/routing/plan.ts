/**
 * Which interfaces to advertise and which pods to route each port to (docs/routing.md).
 *
 * Safety: every advertised interface is verified on every endpoint its port routes to.
 * Liveness: walk the card in preference order and keep an interface when at least one pod
 * verifies it together with every interface already kept on the same port; so the owner's
 * preferred interfaces survive and a port never ends up routed to no pod because of a
 * lower-preference interface.
 */
import { InterfaceState } from '../api/conditions.js';

export interface PlanInterface {
  /** interfaceKey (observation/observed.ts). */
  key: string;
  /** Agent port name this interface maps to; undefined when Unmapped or Ineligible. */
  portName?: string;
}

export interface PlanPod {
  uid: string;
  /** interfaceKey → state on this pod (effective verdict, after hysteresis). */
  states: Map<string, InterfaceState>;
}

export interface RoutingPlan {
  /** Advertised interface keys, in card order. */
  advertised: string[];
  /** Agent port name → UIDs of the pods it routes to. Ports without advertised interfaces route nowhere. */
  endpoints: Map<string, string[]>;
}

export function acceptable(state: InterfaceState | undefined, advertiseAuthRequired: boolean): boolean {
  return (
    state === InterfaceState.Verified || (advertiseAuthRequired && state === InterfaceState.AuthRequired)
  );
}

export function planRouting(
  interfaces: readonly PlanInterface[],
  pods: readonly PlanPod[],
  portNames: readonly string[],
  advertiseAuthRequired: boolean,
): RoutingPlan {
  const routed = new Map<string, Set<string>>();
  const advertised: string[] = [];
  for (const iface of interfaces) {
    if (!iface.portName) continue;
    const ok = new Set(
      pods.filter((p) => acceptable(p.states.get(iface.key), advertiseAuthRequired)).map((p) => p.uid),
    );
    const current = routed.get(iface.portName);
    const next = current ? new Set([...current].filter((uid) => ok.has(uid))) : ok;
    if (next.size === 0) continue;
    routed.set(iface.portName, next);
    advertised.push(iface.key);
  }
  const endpoints = new Map<string, string[]>();
  for (const name of portNames) {
    const uids = routed.get(name);
    endpoints.set(name, uids ? pods.map((p) => p.uid).filter((u) => uids.has(u)) : []);
  }
  return { advertised, endpoints };
}

/**
 * An EndpointSlice endpoint's conditions, mirroring its pod's Ready condition as Kubernetes'
 * EndpointSlice controller does (kube-proxy and meshes route only `ready` endpoints): a pod
 * held NotReady by its own a2a.dev/card-verified gate, or by anything else, is listed with
 * `ready: false, serving: false` even on ports where it is verified. So a gated pod serves
 * nothing until its whole card is truthful, and a gated rollout keeps traffic on the old pods
 * (docs/routing.md). `ready` undefined (not known) counts as ready: the pod is a probed
 * candidate.
 */
export function endpointConditions(ready: boolean | undefined): {
  ready: boolean;
  serving: boolean;
  terminating: boolean;
} {
  const r = ready !== false;
  return { ready: r, serving: r, terminating: false };
}
