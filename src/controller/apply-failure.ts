/**
 * Status after a failed apply phase (a write the API server refused, a denied verb, a signing
 * error): the reason goes to status, not only to the logs, and the error class (src/kube/
 * errors.ts `classifyError`) says what happens next. Pure.
 */
import type { A2AAgentStatus } from '../api/a2aagent.js';
import { nextCondition, type ConditionInput } from '../api/condition-helpers.js';
import { ConditionType, Reason } from '../api/conditions.js';
import type { ClassifiedError } from '../kube/errors.js';
import { clipText, printable } from '../text/display-text.js';
import { interfaceKey } from '../observation/observed.js';

/** Longest API message quoted (the server's own text; it may echo long field paths). */
const MAX_API_MESSAGE = 512;

export function applyFailureMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return clipText(printable(text.replace(/\s+/g, ' ')), MAX_API_MESSAGE);
}

/**
 * `decided` is the status the decision computed, `before` the status stored before this
 * reconcile. What is advertised is left as `before` said: after a failed write nothing new is
 * known to be in place, and status never claims an advertisement that is not.
 */
export function applyFailedStatus(
  decided: A2AAgentStatus,
  before: A2AAgentStatus | undefined,
  failure: ClassifiedError,
  message: string,
  generation: number | undefined,
  now: number,
): A2AAgentStatus {
  const wasAdvertised = new Set(
    (before?.interfaces ?? []).filter((i) => i.advertised).map((i) => interfaceKey(i)),
  );
  const { advertised: _a, ...rest } = decided;
  const base: A2AAgentStatus = {
    ...rest,
    ...(before?.advertised ? { advertised: before.advertised } : {}),
    ...(decided.interfaces
      ? {
          interfaces: decided.interfaces.map((i) => ({
            ...i,
            advertised: wasAdvertised.has(interfaceKey(i)),
          })),
        }
      : {}),
  };
  const msg = `applying routing failed (${failure.class}): ${message}`;
  const needsPerson = failure.class !== 'transient';
  // Transition times count from the stored status (the decision's own conditions may say True
  // for a moment that never reached the API): otherwise every retry would write a new time.
  const t = new Date(now).toISOString();
  const inputs: ConditionInput[] = [
    { type: ConditionType.Advertised, status: 'False', reason: failure.reason, message: msg },
    { type: ConditionType.Ready, status: 'False', reason: failure.reason, message: msg },
    needsPerson
      ? { type: ConditionType.Stalled, status: 'True', reason: failure.reason, message: msg }
      : { type: ConditionType.Stalled, status: 'False', reason: Reason.ApplyFailed, message: '' },
    needsPerson
      ? {
          type: ConditionType.Reconciling,
          status: 'False',
          reason: failure.reason,
          message:
            failure.class === 'stalling'
              ? 'waiting for a change to the A2AAgent'
              : 'retrying at the probe period',
        }
      : {
          type: ConditionType.Reconciling,
          status: 'True',
          reason: Reason.ApplyFailed,
          message: 'retrying with backoff',
        },
  ];
  const byType = new Map((base.conditions ?? []).map((c) => [c.type, c]));
  for (const input of inputs) byType.set(input.type, nextCondition(before?.conditions, input, generation, t));
  return { ...base, observedGeneration: generation, conditions: [...byType.values()] };
}
