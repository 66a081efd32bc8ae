/**
 * Status written outside a full decision: the first visit of a generation (before probing) and
 * a spec the schema should have refused. Pure, like decide().
 */
import type { A2AAgentStatus, Condition } from '../api/a2aagent.js';
import { nextCondition, type ConditionInput } from '../api/condition-helpers.js';
import { ConditionType, Reason } from '../api/conditions.js';

function withConditions(
  previous: A2AAgentStatus | undefined,
  generation: number | undefined,
  now: number,
  inputs: ConditionInput[],
): A2AAgentStatus {
  const t = new Date(now).toISOString();
  const byType = new Map<string, Condition>(
    (previous?.conditions ?? []).map((c) => [c.type, { ...c, observedGeneration: generation }]),
  );
  for (const input of inputs)
    byType.set(input.type, nextCondition(previous?.conditions, input, generation, t));
  return { ...previous, observedGeneration: generation, conditions: [...byType.values()] };
}

/**
 * First visit of a generation: say so before probing, so kstatus and Flux read InProgress
 * (Reconciling=True) instead of a stale or empty status (kstatus fails open on no status).
 * Conditions that already exist keep their verdict, stamped with the new generation.
 */
export function progressStatus(
  previous: A2AAgentStatus | undefined,
  generation: number | undefined,
  now: number,
): A2AAgentStatus {
  const known = new Set((previous?.conditions ?? []).map((c) => c.type));
  const unknownYet = [
    ConditionType.CardValid,
    ConditionType.InterfacesVerified,
    ConditionType.PodsConsistent,
    ConditionType.Advertised,
  ]
    .filter((type) => !known.has(type))
    .map((type): ConditionInput => ({
      type,
      status: 'Unknown',
      reason: Reason.Probing,
      message: 'not probed yet',
    }));
  return withConditions(previous, generation, now, [
    {
      type: ConditionType.Ready,
      status: 'Unknown',
      reason: Reason.Probing,
      message: 'probing the pods of this generation',
    },
    {
      type: ConditionType.Reconciling,
      status: 'True',
      reason: Reason.Probing,
      message: 'fetching cards and probing interfaces',
    },
    { type: ConditionType.Stalled, status: 'False', reason: Reason.Probing, message: '' },
    ...unknownYet,
  ]);
}

/** A spec that does not parse (a hand-edited object, or one stored before validation existed). */
export function invalidSpecStatus(
  previous: A2AAgentStatus | undefined,
  generation: number | undefined,
  message: string,
  now: number,
): A2AAgentStatus {
  return withConditions(previous, generation, now, [
    { type: ConditionType.Ready, status: 'False', reason: Reason.InvalidSpec, message },
    { type: ConditionType.Reconciling, status: 'False', reason: Reason.InvalidSpec, message: '' },
    { type: ConditionType.Stalled, status: 'True', reason: Reason.InvalidSpec, message },
  ]);
}
