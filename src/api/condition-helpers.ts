/** metav1.Condition semantics (apimachinery meta.SetStatusCondition), ported. */
import type { Condition } from './a2aagent.js';
import type { ConditionStatus } from './conditions.js';

export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/**
 * The condition to write: lastTransitionTime changes only when status flips, so a condition
 * that keeps its status keeps its timestamp (and a status write with no real change is skipped).
 */
export function nextCondition(
  previous: readonly Condition[] | undefined,
  input: ConditionInput,
  generation: number | undefined,
  now: string,
): Condition {
  const old = previous?.find((c) => c.type === input.type);
  return {
    type: input.type,
    status: input.status,
    reason: input.reason,
    message: input.message.length > 32768 ? `${input.message.slice(0, 32760)}…` : input.message,
    observedGeneration: generation,
    lastTransitionTime: old && old.status === input.status ? old.lastTransitionTime : now,
  };
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
