/**
 * Which Secrets the operator may use for an agent, and for what. Whoever can create an
 * A2AAgent and run one matching pod would otherwise read any Secret key of the namespace (it
 * arrives at their pod as `Bearer <value>`) and get any content signed with any key there: the
 * operator's own RBAC would be the deputy. So a Secret must opt in, by a label only someone who
 * may write that Secret can set, and a signing key must also name the agents it signs for.
 */
import { Reason } from '../api/conditions.js';
import type { SpecProblem } from '../observation/observed.js';

/** The opt-in label: a referenced Secret is used only when it carries this label with value "true". */
export const CREDENTIAL_LABEL = 'a2a.dev/credential';
/** On a signing-key Secret: comma-separated A2AAgent names (same namespace) it may sign for. */
export const SIGN_FOR_ANNOTATION = 'a2a.dev/sign-for';

export type SecretUse = 'credential' | 'signing';

export interface SecretMeta {
  namespace: string;
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function ownValue(record: Record<string, string> | undefined, key: string): string | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The agent names an `a2a.dev/sign-for` value lists (trimmed, empty items dropped). */
export function signForNames(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Undefined when agent `agentName` may use `secret` for `use`; otherwise the problem
 * (SecretNotPermitted), naming the Secret and what to add to it, never a value.
 * `field` is the spec field that names the Secret, for the message.
 */
export function secretUseProblem(
  secret: SecretMeta,
  use: SecretUse,
  agentName: string,
  field: string,
): SpecProblem | undefined {
  const id = `Secret ${secret.namespace}/${secret.name}`;
  if (ownValue(secret.labels, CREDENTIAL_LABEL) !== 'true') {
    return {
      reason: Reason.SecretNotPermitted,
      message: `${id} (${field}) has not opted in to use by A2AAgents: label it ${CREDENTIAL_LABEL}="true" if its keys may be sent to this agent's pods`,
    };
  }
  if (
    use === 'signing' &&
    !signForNames(ownValue(secret.annotations, SIGN_FOR_ANNOTATION)).includes(agentName)
  ) {
    return {
      reason: Reason.SecretNotPermitted,
      message: `${id} (${field}) does not list agent ${JSON.stringify(agentName)} in its annotation ${SIGN_FOR_ANNOTATION} (comma-separated A2AAgent names): it signs only for the agents it names`,
    };
  }
  return undefined;
}
