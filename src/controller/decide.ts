/**
 * The reconcile decision, a pure function: what the operator observed (spec, pods, their cards,
 * probe verdicts, the previous status, the routing in place) → the status to write, the routing
 * to apply, the pod readiness gates to set and the Events to record. No I/O, no clock: `now` is
 * an input.
 *
 * Routing comes in two variants (docs/routing.md: fail static holds back additions and unproven
 * withdrawals, never removals):
 *
 * - `routing` (full): Enforce mode, no spec problem, no Service conflict, and every candidate
 *   pod has a definite verdict for every interface. The plan may add and remove.
 * - `shrink`: whenever full routing is held in Enforce mode. The slices in place lose the
 *   endpoints with evidence against them (pod gone, not ready, terminating or re-addressed; an
 *   interface advertised on that port confirmed failed by probes on that pod) and nothing is
 *   added. A pending verdict, an unconfirmed failure or a probe-less verdict of the spec mapping
 *   (a renamed containerPort) is not evidence, so none of them holds back another pod's removal
 *   and none tears routing down. A published interface whose port is left without endpoints
 *   leaves the card (routing/shrink.ts).
 *
 * When full routing drops interfaces from the card, `interim` is the card to publish before the
 * slices (the interfaces it keeps from the published card): make before break, in both orders of
 * change. The whole rule, with its reasons: docs/routing.md.
 */
import type { V1EndpointSlice } from '@kubernetes/client-node';
import type { A2AAgentSpec, A2AAgentStatus, Condition, InterfaceStatus } from '../api/a2aagent.js';
import { nextCondition, type ConditionInput } from '../api/condition-helpers.js';
import {
  CapabilitiesVerified,
  CapabilityState,
  CapabilityReason,
  ConditionType,
  InterfaceState,
  Reason,
} from '../api/conditions.js';
import { advertisedCard, type AdvertisedCard } from '../routing/advertised-card.js';
import { capabilityClaims, type ParsedCard } from '../card/index.js';
import { acceptable, planRouting, type RoutingPlan } from '../routing/plan.js';
import {
  shrinkRouting,
  type PublishedInterface,
  type ShrinkPod,
  type ShrinkResult,
} from '../routing/shrink.js';
import { aggregateInterface, clip, namePods } from './aggregate.js';
import {
  advertisedCondition,
  cardCondition,
  consistencyCondition,
  interfacesCondition,
  referenceCard,
} from './condition-policies.js';
import { gateDecisions } from './gates.js';
import {
  describeFailingPods,
  podStatuses,
  podVerdict,
  splitPods,
  type PodSplit,
  type PodVerdict,
} from './pod-status.js';
import { interfaceEvents } from './transition-events.js';
import {
  mapInterfaces,
  MAX_INTERFACES,
  type MapContext,
  type MappedInterface,
} from '../observation/interface-map.js';
import {
  interfaceKey,
  podAddresses,
  statusInterface,
  type PodObservation,
  type SpecProblem,
} from '../observation/observed.js';
import { judgeCapabilities } from './capability-status.js';

export interface DecideInput {
  name: string;
  namespace: string;
  generation?: number;
  spec: A2AAgentSpec;
  previous?: A2AAgentStatus;
  /** Every pod the selector matches. */
  pods: PodObservation[];
  specProblems: SpecProblem[];
  /** Set when the Service to manage exists and is not ours. */
  serviceConflict?: string;
  /** Selected pods whose readiness gate an older agent owns: pod name → that agent (gates.ts). */
  gateOwnedElsewhere?: ReadonlyMap<string, string>;
  /** The routing in place (owned slices, published card), as the caches show it. */
  current?: CurrentRouting;
  now: Date;
}

export interface CurrentRouting {
  /** The agent's owned EndpointSlices of its managed Service. */
  slices: V1EndpointSlice[];
  /** The card published in the owned ConfigMap; undefined when none is (or it is unavailable). */
  card?: ParsedCard;
}

export interface GateDecision {
  pod: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface AgentEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface RoutingDecision {
  plan: RoutingPlan;
  /** The pod observations the plan's UIDs refer to. */
  pods: PodObservation[];
  card: AdvertisedCard | undefined;
  /**
   * Set when the card loses interfaces it publishes now: publish `interim.card` (the published
   * interfaces the plan keeps) first, then the slices, then `card` (same content when the card
   * only loses).
   */
  interim?: { card: AdvertisedCard | undefined };
  /** Keys of the reference card's interfaces, for status. */
  digest: string;
}

export interface ShrinkDecision extends ShrinkResult {
  /** Whether the published card loses interfaces (a port left without endpoints). */
  cardChanged: boolean;
  /** The card to publish when `cardChanged` (undefined: nothing is left to advertise); undefined otherwise. */
  card: AdvertisedCard | undefined;
}

export interface Decision {
  status: A2AAgentStatus;
  /** Full routing; undefined: held (Observe mode, spec problems, a conflict, or verdicts still pending). */
  routing?: RoutingDecision;
  /** Set in Enforce mode when full routing is held: remove what has evidence against it, add nothing. */
  shrink?: ShrinkDecision;
  gates: GateDecision[];
  events: AgentEvent[];
}

/** Characters shared by all per-interface messages in status. */
const STATUS_MESSAGE_BUDGET = 8192;

export function serviceNameOf(spec: A2AAgentSpec, name: string): string {
  return spec.routing.serviceName ?? name;
}

/** The published card's interfaces with the agent port each maps to now. */
export function publishedInterfaces(card: ParsedCard | undefined, ctx: MapContext): PublishedInterface[] {
  if (!card) return [];
  return mapInterfaces(card, ctx).map((m) => ({ key: m.key, portName: m.mapped ? m.port.name : undefined }));
}

/**
 * The interfaces of a pod's valid card with their ports; undefined without one. mapInterfaces
 * keeps each card's mapping, so asking per pod, again and again, maps each card once.
 */
function mappedCard(p: PodObservation, ctx: MapContext): readonly MappedInterface[] | undefined {
  return p.card?.ok ? mapInterfaces(p.card.card, ctx) : undefined;
}

/** The pods the owned slices route to now, on any port. */
function routedPodUids(slices: readonly V1EndpointSlice[] | undefined): Set<string> {
  const uids = new Set<string>();
  for (const s of slices ?? [])
    for (const e of s.endpoints ?? []) if (e.targetRef?.uid) uids.add(e.targetRef.uid);
  return uids;
}

/**
 * Evidence that a pod does not serve an interface: a failure confirmed by probes, a card that
 * no longer declares it, or a card that failed for good. Pending verdicts, unconfirmed failures
 * and probe-less verdicts of the spec mapping are not.
 */
export function shrinkPod(
  p: PodObservation,
  declared: (p: PodObservation) => readonly MappedInterface[] | undefined,
  authOk: boolean,
): ShrinkPod {
  return {
    candidate: p.pod.candidate && Boolean(p.pod.ip),
    ...(p.pod.ready !== undefined ? { ready: p.pod.ready } : {}),
    // Every address (dual-stack): the IPv6 endpoint of a pod is as much its own as the IPv4 one.
    ips: podAddresses(p.pod),
    refuses: (key) => {
      if (!p.card) return false;
      if (!p.card.ok) return p.card.confirmed;
      const v = p.verdicts.get(key);
      // failures > 0: confirmed by probes. A verdict the spec or card mapping gives without a
      // probe (Unmapped, Ineligible) says nothing about the pod: a spec mistake (a renamed
      // containerPort) must not tear down what is routed.
      if (v) return v.confirmed && v.failures > 0 && !acceptable(v.state, authOk);
      return !(declared(p) ?? []).some((m) => m.key === key);
    },
  };
}

/** The shrink-only routing: the current slices minus what has evidence against it (routing/shrink.ts). */
export function decideShrink(
  spec: A2AAgentSpec,
  ctx: MapContext,
  pods: readonly PodObservation[],
  current: CurrentRouting | undefined,
): ShrinkDecision {
  const declared = (p: PodObservation) => mappedCard(p, ctx);
  const authOk = spec.routing.authRequired === 'Advertise';
  const published = publishedInterfaces(current?.card, ctx);
  const result = shrinkRouting(
    current?.slices ?? [],
    published,
    new Map(pods.map((p) => [p.pod.uid, shrinkPod(p, declared, authOk)])),
  );
  const cardChanged = result.advertised.length < published.length;
  return {
    ...result,
    cardChanged,
    // Built only when it is published: every visit's early shrink asks, and nearly always
    // nothing is removed.
    card:
      cardChanged && current?.card && result.advertised.length > 0
        ? advertisedCard(current.card, new Set(result.advertised))
        : undefined,
  };
}

export function decide(input: DecideInput): Decision {
  const { spec } = input;
  const now = input.now.toISOString();
  const serviceName = serviceNameOf(spec, input.name);
  const ctx = { spec, namespace: input.namespace, serviceName };
  const candidates = input.pods.filter((p) => p.pod.candidate);
  const ref = referenceCard(candidates);
  const mappedFor = (p: PodObservation) => mappedCard(p, ctx);
  const refMapped = ref ? mapInterfaces(ref.card, ctx) : [];
  const aggregated = refMapped
    .slice(0, MAX_INTERFACES)
    .map((m) => aggregateInterface(m.iface, m.key, candidates));
  // Capability truth (docs/conditions.md, "Capability truth"): judged on the verified interfaces; part of Ready, and applied
  // to the advertised card, only with spec.probe.capabilities: Enforce.
  const capabilitiesEnforced = spec.probe.capabilities === 'Enforce';
  const capabilities = judgeCapabilities(
    aggregated.filter((a) => a.state === InterfaceState.Verified).map((a) => a.key),
    candidates,
    ref
      ? capabilityClaims(ref.card.raw)
      : { streaming: false, pushNotifications: false, extendedAgentCard: false },
  );
  const capabilitiesOff = capabilitiesEnforced ? capabilities.notServed : [];
  // Written once something was probed (always with Enforce, where Ready waits for it).
  const capabilitiesShown =
    capabilitiesEnforced || capabilities.statuses.some((c) => c.state !== CapabilityState.NotProbed);
  // A round that probed nothing (no verified interface right now, or out of time) says nothing
  // new: a verdict shown before stays, with its detail, rather than vanishing and coming back
  // (a status write each way).
  const prevCapabilities = capabilitiesShown
    ? undefined
    : input.previous?.conditions?.find((c) => c.type === CapabilitiesVerified);

  // Routing: only in Enforce mode, without spec problems, and once every candidate pod has a
  // definite verdict for every interface (after a restart the memory is empty: routing stays
  // as it was until fresh probes say otherwise — fail static).
  let routing: RoutingDecision | undefined;
  let shrink: ShrinkDecision | undefined;
  const routedNow = routedPodUids(input.current?.slices);
  const allProbed = candidates.every(
    (p) =>
      p.card !== undefined &&
      (!p.card.ok
        ? // A card fetch failed, not yet failureThreshold times: definite for a pod routed nowhere
          // (nothing to keep), pending for a routed one. A memory that began after it was routed
          // (a restart, a leader change, a new generation) holds no good card to keep through the
          // failure, so one flap would otherwise take it out of every slice.
          p.card.confirmed || !routedNow.has(p.pod.uid)
        : (mappedFor(p) ?? []).every((m) => {
            const v = p.verdicts.get(m.key);
            return v !== undefined && v.state !== InterfaceState.Pending;
          })),
  );
  if (
    spec.routing.mode === 'Enforce' &&
    input.specProblems.length === 0 &&
    !input.serviceConflict &&
    allProbed
  ) {
    const plan = planRouting(
      refMapped.map((m) => ({ key: m.key, portName: m.mapped ? m.port.name : undefined })),
      candidates
        .filter((p) => p.card?.ok)
        .map((p) => ({ uid: p.pod.uid, states: new Map([...p.verdicts].map(([k, v]) => [k, v.state])) })),
      spec.ports.map((p) => p.name),
      spec.routing.authRequired === 'Advertise',
    );
    const card = ref ? advertisedCard(ref.card, new Set(plan.advertised), capabilitiesOff) : undefined;
    // Make before break: interfaces the card stops publishing go first (slices may then grow
    // to pods that lack only those), interfaces it starts publishing go last (after the slices
    // dropped the pods that lack them).
    const published = publishedInterfaces(input.current?.card, ctx).map((p) => p.key);
    const next = new Set(plan.advertised);
    const kept = published.filter((k) => next.has(k));
    const lost = published.some((k) => !next.has(k));
    routing = {
      plan,
      pods: candidates,
      card,
      ...(lost
        ? { interim: { card: ref ? advertisedCard(ref.card, new Set(kept), capabilitiesOff) : undefined } }
        : {}),
      digest: ref?.digest ?? '',
    };
  } else if (spec.routing.mode === 'Enforce') {
    shrink = decideShrink(spec, ctx, input.pods, input.current);
  }
  const advertisedKeys = new Set(routing?.plan.advertised ?? shrink?.advertised ?? []);
  const previousAdvertised = new Set(
    (input.previous?.interfaces ?? []).filter((i) => i.advertised).map((i) => interfaceKey(i)),
  );

  const prevIfaces = new Map((input.previous?.interfaces ?? []).map((i) => [interfaceKey(i), i]));
  // Status stays a few KiB: the more interfaces, the shorter each message (full evidence goes
  // to Events and the operator's logs).
  const messageBudget = Math.max(160, Math.floor(STATUS_MESSAGE_BUDGET / Math.max(1, aggregated.length)));
  const aggregatedKeys = aggregated.map((a) => a.key);
  const interfaces: InterfaceStatus[] = aggregated.map((a) => {
    const shown = statusInterface(a.iface);
    const prev = prevIfaces.get(interfaceKey(shown));
    // Without full routing, what is published now (after the shrink) when the caller says;
    // otherwise what status said before.
    const advertised =
      routing || (shrink && input.current)
        ? advertisedKeys.has(a.key)
        : spec.routing.mode === 'Enforce' && previousAdvertised.has(interfaceKey(shown));
    return {
      url: shown.url,
      protocolBinding: shown.protocolBinding,
      protocolVersion: shown.protocolVersion,
      ...(shown.tenant ? { tenant: shown.tenant } : {}),
      state: a.state,
      verifiedPods: `${a.verified}/${a.declaredOn}`,
      advertised,
      message: clip(a.message, messageBudget),
      lastTransitionTime: prev && prev.state === a.state ? prev.lastTransitionTime : now,
    };
  });

  const authAccepted = spec.routing.authRequired === 'Advertise';
  const podVerdicts = new Map(candidates.map((p) => [p.pod.uid, podVerdict(p, mappedFor(p), authAccepted)]));
  const split = splitPods([...podVerdicts.values()]);
  const cardValid = cardCondition(candidates, ref);
  const consistent = consistencyCondition(candidates, input.gateOwnedElsewhere, split);
  const verifiedCond = interfacesCondition(
    aggregated,
    candidates.length,
    ref !== undefined,
    refMapped.length,
  );
  const advertisedCond = advertisedCondition(
    spec,
    input.serviceConflict,
    routing,
    refMapped.length,
    aggregated,
    input.specProblems,
  );
  const parts = [
    cardValid,
    verifiedCond,
    consistent,
    advertisedCond,
    ...(capabilitiesEnforced ? [capabilities.condition] : []),
  ];

  const cardPending = candidates.some((p) => p.card === undefined || (!p.card.ok && !p.card.confirmed));
  // Cards that differ between ready pods are a rollout in progress, not a final verdict: the
  // Deployment's own progress deadline fails a rollout that never converges.
  const rolling = consistent.reason === Reason.CardDiverged;
  const unsettled = aggregated.some((a) => a.pending || !a.settled) || cardPending || rolling;
  let ready: ConditionInput;
  let stalled: ConditionInput;
  let reconciling: ConditionInput;
  const problem = input.specProblems[0];
  if (problem) {
    const message = input.specProblems.map((p) => p.message).join('; ');
    ready = { type: ConditionType.Ready, status: 'False', reason: problem.reason, message };
    stalled = { type: ConditionType.Stalled, status: 'True', reason: problem.reason, message };
    reconciling = {
      type: ConditionType.Reconciling,
      status: 'False',
      reason: problem.reason,
      message: 'waiting for the spec or the objects it names to change',
    };
  } else {
    // A selector overlap costs this agent only the gate of the shared pods (the older agent
    // writes it); its own probing and routing are whole, so Ready does not fail for it.
    const judged = parts.filter((c) => c.reason !== Reason.SelectorOverlap);
    const firstFalse = judged.find((c) => c.status === 'False');
    const firstUnknown = judged.find((c) => c.status === 'Unknown');
    if (candidates.length === 0) {
      ready = {
        type: ConditionType.Ready,
        status: 'False',
        reason: Reason.NoReadyPods,
        message: `no ready pod matches spec.selector (${input.pods.length} selected)`,
      };
    } else if (firstFalse) {
      ready = { ...firstFalse, type: ConditionType.Ready };
    } else if (firstUnknown) {
      ready = { ...firstUnknown, type: ConditionType.Ready };
    } else {
      const adv = routing?.plan.advertised.length;
      ready = {
        type: ConditionType.Ready,
        status: 'True',
        reason: Reason.Succeeded,
        message: `${aggregated.length}/${aggregated.length} interfaces verified on ${candidates.length} pods${adv !== undefined ? `, ${adv} advertised` : ''}`,
      };
    }
    stalled = stalledCondition(spec, ready, {
      settled: !unsettled && candidates.length > 0,
      serviceConflict: input.serviceConflict,
      split,
    });
    // kstatus reads Reconciling before Stalled, Argo CD the reverse: a conflict that stalls
    // (whatever the probes say) is not Reconciling, so both read it as a failure.
    reconciling = input.serviceConflict
      ? {
          type: ConditionType.Reconciling,
          status: 'False',
          reason: Reason.ServiceConflict,
          message: 'waiting for the conflicting Service to go or spec.routing.serviceName to change',
        }
      : unsettled
        ? {
            type: ConditionType.Reconciling,
            status: 'True',
            reason: Reason.Probing,
            message: cardPending
              ? 'fetching cards'
              : rolling
                ? 'ready pods serve different cards (rollout in progress)'
                : 'probing interfaces and confirming failures',
          }
        : { type: ConditionType.Reconciling, status: 'False', reason: Reason.Settled, message: '' };
  }

  const gates = gateDecisions(input, mappedFor);
  const prevConds = input.previous?.conditions;
  const conditions: Condition[] = [
    ready,
    cardValid,
    verifiedCond,
    consistent,
    advertisedCond,
    ...(capabilitiesShown
      ? [capabilities.condition]
      : prevCapabilities
        ? [
            {
              type: prevCapabilities.type,
              status: prevCapabilities.status,
              reason: prevCapabilities.reason,
              message: prevCapabilities.message,
            },
          ]
        : []),
    reconciling,
    stalled,
  ].map((c) => nextCondition(prevConds, c, input.generation, now));

  const verifiedCount = aggregated.filter((a) => a.state === InterfaceState.Verified).length;
  const servedBy = ref?.servedBy ?? 0;
  const status: A2AAgentStatus = {
    observedGeneration: input.generation,
    conditions,
    card: ref
      ? { shape: ref.card.shape, digest: ref.digest, podsConsistent: `${servedBy}/${candidates.length}` }
      : { podsConsistent: `0/${candidates.length}` },
    interfaces,
    verified: `${verifiedCount}/${refMapped.length}`,
    ...(capabilitiesShown
      ? { capabilities: capabilities.statuses }
      : prevCapabilities && input.previous?.capabilities
        ? { capabilities: input.previous.capabilities }
        : {}),
    ...(spec.routing.mode === 'Enforce' && routing
      ? {
          advertised: advertisedStatus(
            input.name,
            interfaces,
            aggregatedKeys,
            routing.plan.advertised,
            routing.card,
          ),
        }
      : shrink?.cardChanged
        ? {
            advertised: advertisedStatus(
              input.name,
              interfaces,
              aggregatedKeys,
              shrink.advertised,
              shrink.card,
            ),
          }
        : spec.routing.mode === 'Enforce' && input.previous?.advertised
          ? { advertised: input.previous.advertised }
          : {}),
    ...podsStatus(input.pods, podVerdicts, gates),
    // Kept from the previous status unless something else changed (reconciler.ts compares
    // without it): it dates the last change, never costs a write of its own.
    lastTransitionProbeTime: now,
  };

  const events: AgentEvent[] = [];
  const prevReady = prevConds?.find((c) => c.type === ConditionType.Ready);
  let agentCameUp = false;
  if (!prevReady || prevReady.status !== ready.status || prevReady.reason !== ready.reason) {
    agentCameUp = ready.status === 'True';
    if (ready.status !== 'Unknown') {
      events.push({
        type: ready.status === 'True' ? 'Normal' : 'Warning',
        reason: ready.reason,
        message: clip(ready.message),
      });
    }
  }
  events.push(...interfaceEvents(input.previous?.interfaces, interfaces, agentCameUp));

  return {
    status,
    routing,
    ...(shrink ? { shrink } : {}),
    gates,
    events,
  };
}

function podsStatus(
  pods: readonly PodObservation[],
  verdicts: ReadonlyMap<string, PodVerdict>,
  gates: readonly GateDecision[],
): Pick<A2AAgentStatus, 'pods' | 'podsNotListed'> {
  const { pods: rows, notListed } = podStatuses(pods, verdicts, gates);
  return { pods: rows, ...(notListed > 0 ? { podsNotListed: notListed } : {}) };
}

/**
 * Stalled=True means "a pipeline should fail" (kstatus reads it as Failed; Flux and Argo CD fail
 * the sync): a Service conflict (settled or not), or a failure confirmed on every ready pod (with
 * spec.probe.failOn AnyPod: on any ready pod). A failure confirmed on some pods while others
 * verify everything is Ready=False and PodsConsistent=False (PartialFailure), not Stalled: the
 * verified pods serve, and the gate of the failing ones holds their rollout. Spec problems are
 * handled before this (Stalled with their own reason).
 */
function stalledCondition(
  spec: A2AAgentSpec,
  ready: ConditionInput,
  ctx: { settled: boolean; serviceConflict?: string; split: PodSplit },
): ConditionInput {
  const type = ConditionType.Stalled;
  // A person must act whatever the interfaces say, probed or not.
  if (ctx.serviceConflict) {
    return { type, status: 'True', reason: Reason.ServiceConflict, message: ctx.serviceConflict };
  }
  if (ctx.settled && ready.status === 'False') {
    const { clean, failing, candidates } = ctx.split;
    // Every pod clean yet Ready False: an agent-level verdict (capabilities under Enforce).
    // Not-served is a fact a person must fix in the card or the server; anything else
    // (Inconclusive) may clear at the next probe.
    if (failing.length === 0) {
      return ready.reason === CapabilityReason.CapabilityNotServed
        ? { type, status: 'True', reason: CapabilityReason.CapabilityNotServed, message: ready.message }
        : { type, status: 'False', reason: ready.reason, message: ready.message };
    }
    // Static card findings (a transport mismatch, too many interfaces) need no confirmation.
    const confirmed = failing.some((f) => f.probed)
      ? `confirmed by ${spec.probe.failureThreshold} consecutive probes`
      : 'a static finding in the card';
    if (clean.length === 0) {
      return {
        type,
        status: 'True',
        reason: Reason.FailureConfirmed,
        message: clip(`${ready.reason} on every ready pod, ${confirmed}: ${ready.message}`, 4096),
      };
    }
    if (spec.probe.failOn === 'AnyPod') {
      return {
        type,
        status: 'True',
        reason: Reason.FailureConfirmed,
        message: clip(
          `${ready.reason} on ${failing.length}/${candidates} ready pods (spec.probe.failOn: AnyPod), ${confirmed}: ${describeFailingPods(failing)}`,
          4096,
        ),
      };
    }
    return {
      type,
      status: 'False',
      reason: Reason.PartialFailure,
      message: clip(
        `${ready.reason} on ${failing.length}/${candidates} ready pods only (${namePods(failing.map((f) => f.name))}); ${clean.length} verify every interface and serve. spec.probe.failOn: AllPods stalls only when every ready pod fails`,
        4096,
      ),
    };
  }
  return {
    type,
    status: 'False',
    reason: ready.status === 'True' ? Reason.Succeeded : Reason.Probing,
    message: '',
  };
}

function advertisedStatus(
  name: string,
  interfaces: readonly InterfaceStatus[],
  aggregatedKeys: readonly string[],
  keys: readonly string[],
  card: AdvertisedCard | undefined,
): NonNullable<A2AAgentStatus['advertised']> {
  // Status entries follow the aggregated interfaces one to one; `keys` are card keys.
  const at = keys.length > 0 ? aggregatedKeys.indexOf(keys[0]!) : -1;
  const first = at >= 0 ? interfaces[at] : undefined;
  return {
    interfaces: keys.length,
    ...(first ? { preferred: { url: first.url, protocolBinding: first.protocolBinding } } : {}),
    configMapName: `${name}-agent-card`,
    signatures: card?.signatures ?? 'None',
  };
}
