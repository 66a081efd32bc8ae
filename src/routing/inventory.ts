/**
 * What the operator created for an agent, and what of it the spec no longer wants
 * (kustomize-controller's inventory model, kept by label and owner UID rather than in status).
 *
 * An object belongs to an agent when it carries the operator's managed-by label and a controller
 * reference to an A2AAgent of that name. Three cases, decided from the object alone:
 *
 * - `ours`: the reference names this agent's UID;
 * - `predecessor`: it names another UID, and the object is older than this agent: an agent of
 *   the same name that was deleted, whose children the garbage collector has not removed yet
 *   (or never will: a control plane without kube-controller-manager). They are deleted, never
 *   adopted: a card or slice verified for another object is no evidence for this one. An object
 *   newer than the agent is left alone (the agent cache may lag a recreate);
 * - `foreign`: anything else (another writer's object, another agent's). Never written, never
 *   deleted: a desired name held by one is a conflict (`ServiceConflict`, `SliceConflict`,
 *   `ConfigMapConflict`).
 *
 * Prune: predecessors always; in Enforce mode the agent's own objects that the spec no longer
 * names (a Service of an old `routing.serviceName` and its slices, a ConfigMap of another name);
 * in Observe mode all of them (status only: nothing stays published or routed from a frozen
 * decision). Slices of the current Service that the plan no longer needs are pruned by the
 * apply step itself. Pure.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { GROUP, KIND } from '../api/a2aagent.js';
import { MANAGED_BY, MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from './objects.js';

export interface AgentIdentity {
  name: string;
  uid: string;
  /** The agent's creationTimestamp (ISO), to tell a predecessor's objects from a lagging cache. */
  created?: string;
}

export type Claim = 'ours' | 'predecessor' | 'foreign';

function controllerRef(obj: KubernetesObject) {
  return obj.metadata?.ownerReferences?.find((r) => r.controller);
}

/** Whether `obj`'s controller reference names this UID (this agent, not a predecessor). */
export function controlledBy(obj: KubernetesObject | undefined, uid: string): boolean {
  return Boolean(uid) && obj !== undefined && controllerRef(obj)?.uid === uid;
}

function timeOf(t: unknown): number | undefined {
  if (t === undefined || t === null) return undefined;
  const ms = new Date(t as string).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/** The owned caches' index: `namespace/agent name` of the A2AAgent controller reference. */
export function ownerIndexValue(obj: KubernetesObject): string | undefined {
  const ref = controllerRef(obj);
  return ref?.kind === KIND ? ownerIndexKey(obj.metadata?.namespace ?? '', ref.name) : undefined;
}

export function ownerIndexKey(namespace: string, agentName: string): string {
  return `${namespace}/${agentName}`;
}

export function claimOf(obj: KubernetesObject, agent: AgentIdentity): Claim {
  const ref = controllerRef(obj);
  if (!ref || ref.kind !== KIND || !ref.apiVersion?.startsWith(`${GROUP}/`) || ref.name !== agent.name)
    return 'foreign';
  if (ref.uid === agent.uid) return 'ours';
  if (obj.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY) return 'foreign';
  const made = timeOf(obj.metadata?.creationTimestamp);
  const born = timeOf(agent.created);
  // Creation times have a one-second resolution: an object of the same second is not provably older.
  return made !== undefined && born !== undefined && made < born ? 'predecessor' : 'foreign';
}

/** What the spec wants kept; undefined in Observe mode (nothing is kept). */
export interface Keep {
  serviceName: string;
  configMapName: string;
}

export interface InventoryObject {
  kind: 'Service' | 'EndpointSlice' | 'ConfigMap';
  obj: KubernetesObject;
}

/** The objects to delete. `onlyPredecessors`: this pass prunes nothing of the agent's own. */
export function staleObjects(
  inventory: readonly InventoryObject[],
  agent: AgentIdentity,
  keep: Keep | undefined,
  onlyPredecessors = false,
): InventoryObject[] {
  return inventory.filter(({ kind, obj }) => {
    const claim = claimOf(obj, agent);
    if (claim === 'predecessor') return true;
    if (claim !== 'ours' || onlyPredecessors) return false;
    if (!keep) return true;
    const name = obj.metadata?.name;
    if (kind === 'Service') return name !== keep.serviceName;
    if (kind === 'ConfigMap') return name !== keep.configMapName;
    return obj.metadata?.labels?.[SERVICE_NAME_LABEL] !== keep.serviceName;
  });
}
