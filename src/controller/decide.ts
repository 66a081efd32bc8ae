/**
 * The reconcile decision, a pure function: what the operator observed (spec, pods, their cards,
 * probe verdicts, the previous status) → the status to write, the routing to apply, the pod
 * readiness gates to set and the Events to record. No I/O, no clock: `now` is an input.
 */
import type { A2AAgentSpec, A2AAgentStatus, Condition, InterfaceStatus } from '../api/a2aagent.js';
import { nextCondition, type ConditionInput } from '../api/condition-helpers.js';
import { ConditionType, InterfaceState, Reason } from '../api/conditions.js';
import { advertisedCard, type AdvertisedCard } from '../routing/advertised-card.js';
import { planRouting, type RoutingPlan } from '../routing/plan.js';
import { aggregateInterface, clip } from './aggregate.js';
import {
  advertisedCondition,
  cardCondition,
  consistencyCondition,
  interfacesCondition,
  referenceCard,
} from './condition-policies.js';
import { gateDecisions } from './gates.js';
import { interfaceEvents } from './transition-events.js';
import { mapInterfaces, MAX_INTERFACES, type MappedInterface } from './interface-map.js';
import { interfaceKey, type PodObservation, type SpecProblem } from './observed.js';

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
  now: Date;
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
  /** Keys of the reference card's interfaces, for status. */
  digest: string;
}

export interface Decision {
  status: A2AAgentStatus;
  /** Undefined: leave routing exactly as it is (Observe mode, spec problems, or verdicts still pending). */
  routing?: RoutingDecision;
  gates: GateDecision[];
  events: AgentEvent[];
}

/** Characters shared by all per-interface messages in status. */
const STATUS_MESSAGE_BUDGET = 8192;

export function serviceNameOf(spec: A2AAgentSpec, name: string): string {
  return spec.routing.serviceName ?? name;
}

export function decide(input: DecideInput): Decision {
  const { spec } = input;
  const now = input.now.toISOString();
  const serviceName = serviceNameOf(spec, input.name);
  const ctx = { spec, namespace: input.namespace, serviceName };
  const candidates = input.pods.filter((p) => p.pod.candidate);
  const ref = referenceCard(candidates);
  const mapCache = new Map<string, MappedInterface[]>();
  const mappedFor = (p: PodObservation): MappedInterface[] | undefined => {
    if (!p.card?.ok) return undefined;
    let m = mapCache.get(p.card.digest);
    if (!m) {
      m = mapInterfaces(p.card.card, ctx);
      mapCache.set(p.card.digest, m);
    }
    return m;
  };
  const refMapped = ref ? mapInterfaces(ref.card, ctx) : [];
  const aggregated = refMapped
    .slice(0, MAX_INTERFACES)
    .map((m) => aggregateInterface(m.iface, m.key, candidates));

  // Routing: only in Enforce mode, without spec problems, and once every candidate pod has a
  // definite verdict for every interface (after a restart the memory is empty: routing stays
  // as it was until fresh probes say otherwise — fail static).
  let routing: RoutingDecision | undefined;
  const allProbed = candidates.every(
    (p) =>
      p.card !== undefined &&
      (!p.card.ok ||
        (mappedFor(p) ?? []).every((m) => {
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
    routing = {
      plan,
      pods: candidates,
      card: ref ? advertisedCard(ref.card, new Set(plan.advertised)) : undefined,
      digest: ref?.digest ?? '',
    };
  }
  const advertisedKeys = new Set(routing?.plan.advertised ?? []);
  const previousAdvertised = new Set(
    (input.previous?.interfaces ?? []).filter((i) => i.advertised).map((i) => interfaceKey(i)),
  );

  const prevIfaces = new Map((input.previous?.interfaces ?? []).map((i) => [interfaceKey(i), i]));
  // Status stays a few KiB: the more interfaces, the shorter each message (full evidence goes
  // to Events and the operator's logs).
  const messageBudget = Math.max(160, Math.floor(STATUS_MESSAGE_BUDGET / Math.max(1, aggregated.length)));
  const interfaces: InterfaceStatus[] = aggregated.map((a) => {
    const prev = prevIfaces.get(a.key);
    const advertised = routing
      ? advertisedKeys.has(a.key)
      : spec.routing.mode === 'Enforce' && previousAdvertised.has(a.key);
    return {
      url: a.iface.url,
      protocolBinding: a.iface.protocolBinding,
      protocolVersion: a.iface.protocolVersion,
      ...(a.iface.tenant ? { tenant: a.iface.tenant } : {}),
      state: a.state,
      verifiedPods: `${a.verified}/${a.declaredOn}`,
      advertised,
      message: clip(a.message, messageBudget),
      lastTransitionTime: prev && prev.state === a.state ? prev.lastTransitionTime : now,
    };
  });

  const cardValid = cardCondition(candidates, ref);
  const consistent = consistencyCondition(candidates);
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
  );
  const parts = [cardValid, verifiedCond, consistent, advertisedCond];

  const cardPending = candidates.some((p) => p.card === undefined || (!p.card.ok && !p.card.confirmed));
  // Cards that differ between ready pods are a rollout in progress, not a final verdict: the
  // Deployment's own progress deadline fails a rollout that never converges.
  const rolling = consistent.status === 'False';
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
    const firstFalse = parts.find((c) => c.status === 'False');
    const firstUnknown = parts.find((c) => c.status === 'Unknown');
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
    const failingSettled = ready.status === 'False' && !unsettled && candidates.length > 0;
    stalled = failingSettled
      ? {
          type: ConditionType.Stalled,
          status: 'True',
          reason: Reason.FailureConfirmed,
          message: `${ready.reason}: confirmed by ${spec.probe.failureThreshold} consecutive probes; ${ready.message}`,
        }
      : {
          type: ConditionType.Stalled,
          status: 'False',
          reason: ready.status === 'True' ? Reason.Succeeded : Reason.Probing,
          message: '',
        };
    reconciling = unsettled
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

  const prevConds = input.previous?.conditions;
  const conditions: Condition[] = [
    ready,
    cardValid,
    verifiedCond,
    consistent,
    advertisedCond,
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
    ...(spec.routing.mode === 'Enforce' && routing
      ? {
          advertised: {
            interfaces: routing.plan.advertised.length,
            ...(routing.plan.advertised.length > 0
              ? (() => {
                  const first = interfaces.find((i) => interfaceKey(i) === routing.plan.advertised[0]);
                  return first
                    ? { preferred: { url: first.url, protocolBinding: first.protocolBinding } }
                    : {};
                })()
              : {}),
            configMapName: `${input.name}-agent-card`,
            signatures: routing.card?.signatures ?? 'None',
          },
        }
      : spec.routing.mode === 'Enforce' && input.previous?.advertised
        ? { advertised: input.previous.advertised }
        : {}),
    lastProbeTime: now,
  };

  const events: AgentEvent[] = [];
  const prevReady = prevConds?.find((c) => c.type === ConditionType.Ready);
  if (!prevReady || prevReady.status !== ready.status || prevReady.reason !== ready.reason) {
    if (ready.status !== 'Unknown') {
      events.push({
        type: ready.status === 'True' ? 'Normal' : 'Warning',
        reason: ready.reason,
        message: clip(ready.message),
      });
    }
  }
  events.push(...interfaceEvents(input.previous?.interfaces, interfaces));

  return { status, routing, gates: gateDecisions(input, mappedFor), events };
}
