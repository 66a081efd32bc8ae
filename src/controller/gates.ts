/**
 * The readiness-gate decision (a2a.dev/card-verified) per pod: True when every interface the
 * pod's card declares is verified on that pod. Only changes are returned, so an unchanged gate
 * costs no write, and only pods that list the gate in spec.readinessGates are written to.
 *
 * One writer per pod (docs/conditions.md, "The pod readiness gate"): the gate of a pod belongs
 * to the oldest A2AAgent (creationTimestamp, then name) in mode Enforce, not being deleted, that
 * selects it. Others write nothing there (two verdicts would ping-pong, each write requeuing
 * both). Observe mode writes no gate (status only). A gate left `False` with no owner (its agent
 * was deleted, switched to Observe, or no longer selects the pod) is released to `True` so that no
 * pod stays NotReady because of an agent that no longer judges it; a missing condition is never
 * set, since that pod was never judged (its agent may not exist yet).
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { LabelSelector } from '../api/a2aagent.js';
import { CardReason, InterfaceReason, InterfaceState, Reason } from '../api/conditions.js';
import { matchesSelector } from '../kube/selector.js';
import { acceptable } from '../routing/plan.js';
import { displayUrl } from '../text/display-url.js';
import { clip, interfaceEvidence } from './aggregate.js';
import type { DecideInput, GateDecision } from './decide.js';
import type { MappedInterface } from '../observation/interface-map.js';
import { CARD_VERIFIED_GATE as GATE } from './pod-state.js';
import type { PodObservation } from '../observation/observed.js';

export function gateDecisions(
  input: DecideInput,
  mappedByKey: (p: PodObservation) => readonly MappedInterface[] | undefined,
): GateDecision[] {
  if (input.spec.routing.mode !== 'Enforce') return []; // Observe writes status only
  const authOk = input.spec.routing.authRequired === 'Advertise';
  const out: GateDecision[] = [];
  for (const p of input.pods) {
    // Only pods that opted in (spec.readinessGates) get the condition: no write for the others.
    if (p.pod.terminating || !p.pod.gateListed) continue;
    if (input.gateOwnedElsewhere?.has(p.pod.name)) continue;
    let d: Omit<GateDecision, 'pod'> | undefined;
    if (!p.pod.candidate) {
      d = {
        status: 'False',
        reason: Reason.PodNotServing,
        message: 'pod is not running with ready containers; not probed',
      };
    } else if (!p.card) {
      d = undefined; // not fetched yet: leave the gate as it is
    } else if (!p.card.ok) {
      // An unconfirmed fetch failure leaves the gate as it is, as an unconfirmed probe failure
      // of a verified interface does: one flap must not take the pod out of every Service.
      if (!p.card.confirmed) continue;
      d = { status: 'False', reason: p.card.reason, message: clip(p.card.message) };
    } else {
      const mapped = mappedByKey(p) ?? [];
      const verdicts = mapped.map((m) => ({ m, v: p.verdicts.get(m.key) }));
      if (verdicts.some((x) => !x.v || x.v.state === InterfaceState.Pending)) continue;
      const bad = verdicts.find((x) => !acceptable(x.v?.state, authOk));
      if (mapped.length === 0) {
        d = { status: 'False', reason: CardReason.NoInterfaces, message: 'the card declares no interface' };
      } else if (bad) {
        const state = bad.v!.state as Exclude<InterfaceState, 'Verified'>;
        d = {
          status: 'False',
          reason: InterfaceReason[state],
          message: clip(
            `${bad.m.iface.protocolBinding} ${displayUrl(bad.m.iface.url)} (v${bad.m.iface.protocolVersion}): ${interfaceEvidence(bad.m.iface, bad.v!.message)}`,
          ),
        };
      } else {
        d = {
          status: 'True',
          reason: Reason.CardVerified,
          message: `all ${mapped.length} interfaces this pod's card declares are verified on it`,
        };
      }
    }
    if (!d) continue;
    if (p.pod.gate?.status === d.status && p.pod.gate.reason === d.reason && p.pod.gate.message === d.message)
      continue;
    out.push({ pod: p.pod.name, ...d });
  }
  return out;
}

/** What the gate-ownership rule needs of an A2AAgent. */
export interface GateAgent {
  name: string;
  creationTimestamp?: string;
  selector: LabelSelector;
  enforce: boolean;
  deleting: boolean;
}

function older(a: GateAgent, b: GateAgent): number {
  const ta = a.creationTimestamp ? Date.parse(a.creationTimestamp) : Number.POSITIVE_INFINITY;
  const tb = b.creationTimestamp ? Date.parse(b.creationTimestamp) : Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The agent whose verdict the pod's gate carries: the oldest live Enforce agent selecting it. */
export function gateOwner(
  labels: Record<string, string> | undefined,
  agents: readonly GateAgent[],
): string | undefined {
  let best: GateAgent | undefined;
  for (const a of agents) {
    if (!a.enforce || a.deleting || !matchesSelector(a.selector, labels)) continue;
    if (!best || older(a, best) < 0) best = a;
  }
  return best?.name;
}

/** Whether the pod lists the gate in spec.readinessGates. */
export function listsGate(pod: V1Pod): boolean {
  return (pod.spec?.readinessGates ?? []).some((g) => g.conditionType === GATE);
}

/**
 * The pods (of `agent`'s selection) that list the gate and whose gate belongs to another agent:
 * pod name → owner name. This agent writes no gate there and reports SelectorOverlap.
 */
export function gatesOwnedElsewhere(
  agent: string,
  pods: readonly V1Pod[],
  agents: readonly GateAgent[],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const pod of pods) {
    if (!listsGate(pod)) continue;
    const owner = gateOwner(pod.metadata?.labels, agents);
    if (owner !== undefined && owner !== agent) out.set(pod.metadata?.name ?? '', owner);
  }
  return out;
}

/** Whether a pod holds a `False` gate that no agent owns any more (see the module comment). */
export function orphanGate(pod: V1Pod, agents: readonly GateAgent[]): boolean {
  return holdsFalseGate(pod) && gateOwner(pod.metadata?.labels, agents) === undefined;
}

/** A live pod that lists the gate and has it `False`: the only kind `orphanGate` can be true of. */
export function holdsFalseGate(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp || !listsGate(pod)) return false;
  return pod.status?.conditions?.find((c) => c.type === GATE)?.status === 'False';
}

/**
 * The pod cache's index: a pod holding a `False` gate is filed under its namespace's
 * falseGateIndexKey, so releasing gates reads those pods only. Every reconcile looks for gates to
 * release: a scan of the namespace's pods made that quadratic in a fleet sharing one namespace.
 */
export function falseGateIndexValue(pod: V1Pod): string | undefined {
  return holdsFalseGate(pod) ? falseGateIndexKey(pod.metadata?.namespace ?? '') : undefined;
}

export function falseGateIndexKey(namespace: string): string {
  return `${namespace}/${GATE}=False`;
}

/** Gates to release (set True): `False` gates of the namespace's pods that no agent owns. */
export function releasedGates(pods: readonly V1Pod[], agents: readonly GateAgent[]): GateDecision[] {
  const out: GateDecision[] = [];
  for (const pod of pods) {
    if (!orphanGate(pod, agents)) continue;
    const selectors = agents.filter((a) => !a.deleting && matchesSelector(a.selector, pod.metadata?.labels));
    out.push(
      selectors.length === 0
        ? {
            pod: pod.metadata?.name ?? '',
            status: 'True',
            reason: Reason.AgentDeleted,
            message:
              'no A2AAgent selects this pod any more (deleted, or its selector changed); the gate no longer holds it back',
          }
        : {
            pod: pod.metadata?.name ?? '',
            status: 'True',
            reason: Reason.ObserveMode,
            message: clip(
              `only A2AAgents in mode Observe select this pod (${selectors.map((a) => a.name).join(', ')}); they write status only, so the gate no longer holds it back`,
            ),
          },
    );
  }
  return out;
}
