/**
 * `spec.probe.taskContinuity: Once`: the TaskContinuity condition (not part of Ready). For each
 * card digest, once, on one pod: a message over the first verified interface (this creates a
 * task on the agent: opt-in only), GetTask for its id over every other verified interface.
 * The result is remembered per digest, in memory and in the condition's own message (so a
 * restarted or new leader does not send the message again for a card it already judged).
 */
import type { A2AAgentSpec, Condition } from '../api/a2aagent.js';
import type { ConditionInput } from '../api/condition-helpers.js';
import { ConditionType, InterfaceState, Reason } from '../api/conditions.js';
import type { CardInterface, InterfaceEndpoint } from '../card/index.js';
import type { AgentMemory } from './agent-memory.js';
import { mapInterfaces, type MapContext } from '../observation/interface-map.js';
import type { PodObservation } from '../observation/observed.js';
import { podPort } from '../observation/port-mapping.js';
import type { ProbeCredentials } from './probe-backend.js';

export interface ContinuityTarget {
  iface: CardInterface;
  endpoint: InterfaceEndpoint;
  address: string;
  port: number;
}

export interface ContinuityRequest extends ProbeCredentials {
  agent: string;
  raw: Record<string, unknown>;
  /** Verified interfaces of one pod, card order: the first is where the message goes. */
  verified: ContinuityTarget[];
  timeoutMs: number;
  /** The reconcile's: aborted when leadership is lost, so a former leader sends no message. */
  signal?: AbortSignal;
}

export interface ContinuityOutcome {
  reason: typeof Reason.TaskShared | typeof Reason.TaskNotShared | typeof Reason.TaskContinuityUnknown;
  message: string;
}

export interface ContinuityBackend {
  check(req: ContinuityRequest): Promise<ContinuityOutcome>;
}

/** The pod and interfaces to run on: the first pod serving `digest` with at least two verified interfaces. */
export function continuityTargets(
  observations: readonly PodObservation[],
  digest: string,
  ctx: MapContext,
): { raw: Record<string, unknown>; verified: ContinuityTarget[] } | undefined {
  for (const o of observations) {
    if (!o.card?.ok || o.card.digest !== digest || !o.pod.ip) continue;
    const verified: ContinuityTarget[] = [];
    for (const m of mapInterfaces(o.card.card, ctx)) {
      if (!m.mapped || o.verdicts.get(m.key)?.state !== InterfaceState.Verified) continue;
      const port = podPort(m.port, o.pod);
      if (port !== undefined)
        verified.push({ iface: m.iface, endpoint: m.endpoint, address: o.pod.ip, port });
    }
    if (verified.length >= 2) return { raw: o.card.card.raw, verified };
  }
  return undefined;
}

const prefix = (digest: string) => `card ${digest}: `;

export function outcomeCondition(outcome: ContinuityOutcome, digest: string): ConditionInput {
  return {
    type: ConditionType.TaskContinuity,
    status:
      outcome.reason === Reason.TaskShared
        ? 'True'
        : outcome.reason === Reason.TaskNotShared
          ? 'False'
          : 'Unknown',
    reason: outcome.reason,
    message: prefix(digest) + outcome.message,
  };
}

function pending(message: string): ConditionInput {
  return {
    type: ConditionType.TaskContinuity,
    status: 'Unknown',
    reason: Reason.TaskContinuityPending,
    message,
  };
}

function carried(prev: Condition): ConditionInput {
  return { type: prev.type, status: prev.status, reason: prev.reason, message: prev.message };
}

export interface ContinuityStep {
  key: string;
  spec: A2AAgentSpec;
  memory: AgentMemory;
  previous: readonly Condition[] | undefined;
  digest: string | undefined;
  observations: readonly PodObservation[];
  mapContext: MapContext;
  credentials: ProbeCredentials;
  backend: ContinuityBackend;
  /** The spec has problems (a missing token Secret, say): a check now would judge the digest wrongly, once and for good. */
  specProblems?: boolean;
  signal?: AbortSignal;
}

/** The TaskContinuity condition for this reconcile; runs the check when the card's digest has none yet. */
export async function taskContinuityCondition(step: ContinuityStep): Promise<ConditionInput | undefined> {
  if (step.spec.probe.taskContinuity !== 'Once') return undefined;
  const { digest, memory } = step;
  const prev = step.previous?.find((c) => c.type === ConditionType.TaskContinuity);
  // No card this round (no ready pod, cards not fetched yet): that says nothing new about the
  // card judged before, so its verdict stays (rather than flapping to Pending and back, a
  // status write each way).
  if (!digest) return prev ? carried(prev) : pending('no card yet');
  if (memory.continuity?.digest === digest) return memory.continuity.condition;
  if (prev && prev.reason !== Reason.TaskContinuityPending && prev.message.startsWith(prefix(digest))) {
    const condition = carried(prev);
    memory.continuity = { digest, condition };
    return condition;
  }
  // Not now, and nothing remembered: the check runs once the spec is whole, on a leader.
  const notNow = (why: string) => (prev ? carried(prev) : pending(`${prefix(digest)}${why}`));
  if (step.specProblems) return notNow('waiting for the spec problems to be fixed');
  if (step.signal?.aborted) return notNow('waiting for a reconcile to run the check');
  const targets = continuityTargets(step.observations, digest, step.mapContext);
  if (!targets) return pending(`${prefix(digest)}waiting for two verified interfaces on one pod`);
  let outcome: ContinuityOutcome;
  try {
    outcome = await step.backend.check({
      agent: step.key,
      raw: targets.raw,
      verified: targets.verified,
      timeoutMs: step.spec.probe.timeoutSeconds * 1000,
      ...(step.signal ? { signal: step.signal } : {}),
      ...step.credentials,
    });
  } catch {
    outcome = { reason: Reason.TaskContinuityUnknown, message: 'the check failed inside the operator' };
  }
  // Cut short by the abort: the outcome says nothing about the card; the next leader runs it.
  if (step.signal?.aborted) return notNow('waiting for a reconcile to run the check');
  const condition = outcomeCondition(outcome, digest);
  // Once per digest: even an Unknown is not retried (each run sends a real message).
  memory.continuity = { digest, condition };
  return condition;
}
