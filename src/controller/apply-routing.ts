/**
 * Applies a routing decision: the Service, the EndpointSlices (stale ones deleted), the
 * advertised-card ConfigMap, each written only when it differs from the cached copy.
 * Server-side apply with our field manager and force, as a controller should; force is safe
 * because no object is written that another writer holds: a desired name taken by an object
 * this agent did not create is a conflict (`ServiceConflict`, `SliceConflict`,
 * `ConfigMapConflict`; routing/inventory.ts), checked before the first write. Objects the spec
 * no longer names are pruned (`pruneOwned`).
 *
 * Order is make before break, so the invariant (every advertised interface is verified on
 * every endpoint of its port) holds between any two writes: a card that loses interfaces is
 * written before the slices (which may then grow to pods lacking only those), a card that gains
 * interfaces after them (once they dropped the pods lacking the new ones); a card that does both
 * is written twice, first with only the interfaces it keeps. A shrink removes endpoints first,
 * then drops the interfaces left without any.
 */
import type { KubernetesObject, V1ConfigMap, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { Reason } from '../api/conditions.js';
import { ContentType, type KubeClient } from '../kube/client.js';
import { applyObject, resourcePath, semanticEqual, type ApplyBody } from '../kube/apply.js';
import { ApiError, isConflict, isNotFound, isNotLeader } from '../kube/errors.js';
import { loggableError } from '../kube/controller.js';
import { clipText } from '../text/display-text.js';
import type { Informer } from '../kube/informer.js';
import { API_PATHS, claimByName, type EarlyClaims } from './name-claims.js';
import {
  controlledBy,
  ownerIndexKey,
  staleObjects,
  type InventoryObject,
  type Keep,
} from '../routing/inventory.js';
import {
  SERVICE_NAME_LABEL,
  SLICE_MANAGED_BY,
  SLICE_MANAGED_BY_LABEL,
  type Owner,
} from '../routing/objects.js';
import { withdrawalsOnly } from '../routing/withdrawals-only.js';

/**
 * A cache of owned objects; `byIndex` (optional) answers the objects whose A2AAgent controller
 * reference names an agent (routing/inventory.ts ownerIndexValue), so a reconcile reads its
 * own objects rather than scanning every agent's.
 */
export type OwnedCache<T extends KubernetesObject> = Pick<Informer<T>, 'get' | 'list'> & {
  byIndex?(namespace: string, value: string): T[];
};

export interface OwnedCaches {
  services: OwnedCache<V1Service>;
  slices: OwnedCache<V1EndpointSlice>;
  configMaps: OwnedCache<V1ConfigMap>;
}

/**
 * The cached objects that may belong to the agent `name`: those whose controller reference
 * names it (a superset of what claimOf calls ours or a predecessor), or every object of the
 * namespace for a cache without the index.
 */
export function ownedCandidates<T extends KubernetesObject>(
  cache: OwnedCache<T>,
  namespace: string,
  name: string,
): T[] {
  return cache.byIndex ? cache.byIndex(namespace, ownerIndexKey(namespace, name)) : cache.list(namespace);
}

/** The cached slices this agent (this UID, not a predecessor) routes its Service through. */
export function ownSlices(caches: OwnedCaches, owner: Owner, serviceName: string): V1EndpointSlice[] {
  return ownedCandidates(caches.slices, owner.namespace, owner.name).filter((s) => {
    const labels = s.metadata?.labels ?? {};
    return (
      labels[SERVICE_NAME_LABEL] === serviceName &&
      labels[SLICE_MANAGED_BY_LABEL] === SLICE_MANAGED_BY &&
      controlledBy(s, owner.uid)
    );
  });
}

/** Fields we set, compared with what is stored (server defaults such as clusterIP are ignored). */
function drifted(desired: KubernetesObject, actual: KubernetesObject | undefined): boolean {
  if (!actual) return true;
  const d = desired as unknown as Record<string, unknown>;
  const a = actual as unknown as Record<string, unknown>;
  if (!semanticEqual(desired.metadata?.labels, pick(actual.metadata?.labels, desired.metadata?.labels)))
    return true;
  if (
    !semanticEqual(
      desired.metadata?.annotations ?? {},
      pick(actual.metadata?.annotations, desired.metadata?.annotations) ?? {},
    )
  ) {
    return true;
  }
  if (!controlledBy(actual, desired.metadata?.ownerReferences?.[0]?.uid ?? '')) return true;
  for (const field of ['data', 'endpoints', 'ports', 'addressType']) {
    if (field in d && !semanticEqual(d[field], a[field] ?? (field === 'endpoints' ? [] : {}))) return true;
  }
  if (d.spec) {
    const ds = d.spec as { ports?: Record<string, unknown>[]; type?: string };
    const as = (a.spec ?? {}) as { ports?: Record<string, unknown>[]; type?: string; selector?: unknown };
    if (as.selector) return true;
    if (ds.type !== as.type) return true;
    const stripped = (as.ports ?? []).map((p) => pick(p, ds.ports?.find((q) => q.name === p.name) ?? {}));
    if (!semanticEqual(ds.ports, stripped)) return true;
  }
  return false;
}

/** The subset of `actual` with the keys `shape` has (so server-added keys do not count). */
function pick<T>(actual: T | undefined, shape: unknown): T | undefined {
  if (!actual || typeof actual !== 'object' || !shape || typeof shape !== 'object') return actual;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(shape))
    if (k in (actual as object)) out[k] = (actual as Record<string, unknown>)[k];
  return out as T;
}

/**
 * Service ports are a list-map keyed by port and protocol. An entry another writer renumbered
 * is, to server-side apply, a different key owned by someone else: the apply keeps it beside
 * ours and the API server refuses the duplicate name (422) on every reconcile. Such entries
 * are the ports to replace whole, with a merge patch, before applying.
 */
function foreignPorts(desired: V1Service, actual: V1Service | undefined): boolean {
  const key = (p: { port: number; protocol?: string }) => `${p.port}/${p.protocol ?? 'TCP'}`;
  const wanted = new Set((desired.spec?.ports ?? []).map(key));
  return (actual?.spec?.ports ?? []).some((p) => !wanted.has(key(p)));
}

export interface RoutingApplyResult {
  writes: number;
  /** Set when the Service exists and is not ours. */
  conflict?: string;
}

/** Whether the Service name is taken by an object we do not own (name-claims.ts claimByName). */
export async function serviceConflict(
  client: KubeClient,
  caches: OwnedCaches,
  owner: Owner,
  serviceName: string,
  signal?: AbortSignal,
  early?: EarlyClaims,
): Promise<string | undefined> {
  const claim = await claimByName(client, caches.services, 'Service', owner, serviceName, signal, early);
  return claim === 'foreign' ? conflictMessage(owner, 'Service', serviceName) : undefined;
}

function conflictMessage(owner: Owner, kind: string, name: string): string {
  return `${kind} ${owner.namespace}/${name} exists and was not created by this A2AAgent; the operator will not take it over. Delete it or set spec.routing.serviceName`;
}

/**
 * A desired EndpointSlice or ConfigMap name held by an object this agent did not create. Class
 * *waiting* (src/kube/errors.ts): the fix (deleting that object) is not a change to the agent.
 */
export class OwnershipConflictError extends Error {
  override readonly name = 'OwnershipConflictError';
  constructor(
    readonly reason: typeof Reason.SliceConflict | typeof Reason.ConfigMapConflict,
    message: string,
  ) {
    super(message);
  }
}

async function checkNotForeign(
  client: KubeClient,
  caches: OwnedCaches,
  owner: Owner,
  desired: { slices: V1EndpointSlice[]; configMap: V1ConfigMap },
  signal?: AbortSignal,
  early?: EarlyClaims,
): Promise<void> {
  // Asked at once (on a first visit none is cached, so each is a round trip); the ConfigMap's
  // conflict is reported first, then the slices' in order, as when they were asked in turn.
  const cm = desired.configMap.metadata!.name!;
  const slices = desired.slices.map((s) => s.metadata!.name!);
  const [cmClaim, ...sliceClaims] = await settledAll([
    claimByName(client, caches.configMaps, 'ConfigMap', owner, cm, signal, early),
    ...slices.map((name) => claimByName(client, caches.slices, 'EndpointSlice', owner, name, signal, early)),
  ]);
  if (cmClaim === 'foreign')
    throw new OwnershipConflictError(Reason.ConfigMapConflict, conflictMessage(owner, 'ConfigMap', cm));
  const taken = slices.find((_, i) => sliceClaims[i] === 'foreign');
  if (taken !== undefined)
    throw new OwnershipConflictError(Reason.SliceConflict, conflictMessage(owner, 'EndpointSlice', taken));
}

/**
 * Writes slices: those of different ports at once (they route different things), those of one
 * port in their order, so an endpoint moving between a port's chunks is added before it is
 * removed (make before break, as between a port's slices and the card).
 */
async function writeSlices(
  slices: readonly V1EndpointSlice[],
  write: (slice: V1EndpointSlice) => Promise<void>,
): Promise<void> {
  const byPort = new Map<string, V1EndpointSlice[]>();
  for (const s of slices) {
    const port = s.ports?.[0]?.name ?? '';
    byPort.set(port, [...(byPort.get(port) ?? []), s]);
  }
  await settledAll(
    [...byPort.values()].map(async (ofPort) => {
      for (const s of ofPort) await write(s);
    }),
  );
}

/** Promise.all that rejects only once every promise has settled (no request outlives its step). */
async function settledAll<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/** The agent's objects in the owned caches (all carry our labels; claimOf sorts them). */
export function inventory(caches: OwnedCaches, namespace: string, name: string): InventoryObject[] {
  return [
    ...ownedCandidates(caches.services, namespace, name).map((obj) => ({ kind: 'Service' as const, obj })),
    ...ownedCandidates(caches.slices, namespace, name).map((obj) => ({
      kind: 'EndpointSlice' as const,
      obj,
    })),
    ...ownedCandidates(caches.configMaps, namespace, name).map((obj) => ({
      kind: 'ConfigMap' as const,
      obj,
    })),
  ];
}

/**
 * Deletes what routing/inventory.ts calls stale. Each DELETE carries the object's UID as a
 * precondition, so an object recreated under the name meanwhile is not the one deleted.
 */
export async function pruneOwned(
  client: KubeClient,
  caches: OwnedCaches,
  owner: Owner,
  keep: Keep | undefined,
  onlyPredecessors: boolean,
  signal?: AbortSignal,
): Promise<{ writes: number; pruned: string[] }> {
  const pruned: string[] = [];
  for (const { kind, obj } of staleObjects(
    inventory(caches, owner.namespace, owner.name),
    owner,
    keep,
    onlyPredecessors,
  )) {
    const name = obj.metadata!.name!;
    try {
      await client.request({
        method: 'DELETE',
        path: `${API_PATHS[kind](owner.namespace)}/${name}`,
        body: { preconditions: { uid: obj.metadata?.uid } },
        signal,
      });
      pruned.push(`${kind}/${name}`);
    } catch (err) {
      // 404: gone already (a cache lagging our own delete); 409: the name holds a newer object.
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
  return { writes: pruned.length, pruned };
}

export async function applyRouting(
  client: KubeClient,
  caches: OwnedCaches,
  owner: Owner,
  serviceName: string,
  desired: {
    service: V1Service;
    slices: V1EndpointSlice[];
    configMap: V1ConfigMap;
    /** The card to publish before the slices (it only drops interfaces from the published one). */
    interimConfigMap?: V1ConfigMap;
  },
  signal?: AbortSignal,
  /** Claim reads started beside the probes (name-claims.ts). */
  early?: EarlyClaims,
): Promise<RoutingApplyResult> {
  let writes = 0;
  const ns = owner.namespace;
  const write = async (obj: KubernetesObject, actual: KubernetesObject | undefined): Promise<void> => {
    if (!drifted(obj, actual)) return;
    // The generated model classes lack an index signature; the object is plain JSON all the same.
    await applyObject(client, obj as ApplyBody, { signal });
    writes++;
  };
  await checkNotForeign(client, caches, owner, desired, signal, early);
  // A write before the slices that the API refuses (an admission policy, a 422) must not hold
  // a withdrawal back: the slices are then written withdraw-only (nothing added, nothing made
  // ready) and the refusal is the apply's error. Lease loss and shutdown stop everything.
  const refusal = async (step: () => Promise<void>): Promise<{ err: unknown } | undefined> => {
    try {
      await step();
      return undefined;
    } catch (err) {
      if (signal?.aborted || isNotLeader(err)) throw err;
      return { err };
    }
  };
  const serviceRefused = await refusal(async () => {
    const actualService = caches.services.get(ns, serviceName);
    const ports = foreignPorts(desired.service, actualService);
    // A selector another writer added: the cluster's EndpointSlice controller would route the
    // Service to every pod it matches, verified or not. Server-side apply leaves fields it does
    // not own, so it is removed with a merge patch, like foreign ports.
    const selector = Boolean(actualService?.spec?.selector);
    if (ports || selector) {
      await client.request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${ns}/services/${serviceName}`,
        body: {
          spec: {
            ...(ports ? { ports: desired.service.spec?.ports } : {}),
            ...(selector ? { selector: null } : {}),
          },
        },
        contentType: ContentType.merge,
        signal,
      });
      writes++;
    }
    await write(desired.service, actualService);
  });
  const cmName = desired.configMap.metadata!.name!;
  let cardNow: KubernetesObject | undefined = caches.configMaps.get(ns, cmName);
  // The interim card goes first so the published card never names an interface the slices no
  // longer route. Refused, the slices withdraw only (the published card still names what the
  // interim dropped) and grow after the final card, if that is written.
  const interim = desired.interimConfigMap;
  const cardRefused =
    interim && drifted(interim, cardNow)
      ? await refusal(async () => {
          await write(interim, cardNow);
          cardNow = interim;
        })
      : undefined;
  const wanted = new Set(desired.slices.map((s) => s.metadata!.name!));
  const writeAll = (slices: readonly V1EndpointSlice[]) =>
    writeSlices(slices, (s) => write(s, caches.slices.get(ns, s.metadata!.name!)));
  if (serviceRefused || cardRefused) {
    await writeAll(withdrawalsOnly(desired.slices, ownSlices(caches, owner, serviceName)));
  } else await writeAll(desired.slices);
  for (const s of ownSlices(caches, owner, serviceName)) {
    if (!wanted.has(s.metadata!.name!)) {
      try {
        await client.request({
          method: 'DELETE',
          path: resourcePath({
            apiVersion: 'discovery.k8s.io/v1',
            kind: 'EndpointSlice',
            namespace: ns,
            name: s.metadata!.name!,
          }),
          signal,
        });
        writes++;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
  if (serviceRefused)
    throw cardRefused
      ? bothRefused(serviceRefused.err, cardRefused.err, { service: serviceName, card: cmName })
      : serviceRefused.err;
  await write(desired.configMap, cardNow);
  if (cardRefused) await writeAll(desired.slices);
  return { writes };
}

/** Longest part of a combined refusal quoted, so the card's part survives status's clip. */
const MAX_REFUSAL_PART = 240;

/**
 * The Service and the interim card both refused: one error, of the Service's class, that names
 * both, so status shows every write to fix instead of the second only after the first is fixed.
 * A part that is no API error is withheld as the logs withhold it (it may quote request
 * metadata). A Service error that is no API error is thrown as it is (its class, transient).
 */
function bothRefused(service: unknown, card: unknown, names: { service: string; card: string }): unknown {
  if (!(service instanceof ApiError)) return service;
  const part = (what: string, e: unknown) =>
    `${what}: ${clipText(loggableError(e).message, MAX_REFUSAL_PART)}`;
  return new ApiError(
    service.status,
    service.reason,
    `${part(`Service ${names.service}`, service)}; ${part(`card ConfigMap ${names.card}`, card)}`,
    service.request,
  );
}

/**
 * Applies a shrink: the given slices (same names, fewer endpoints) where they differ from the
 * cache, then the card when it lost interfaces. Never creates the Service or deletes a slice.
 */
export async function applyShrink(
  client: KubeClient,
  caches: OwnedCaches,
  owner: Owner,
  desired: { slices: V1EndpointSlice[]; configMap?: V1ConfigMap },
  signal?: AbortSignal,
): Promise<RoutingApplyResult> {
  let writes = 0;
  const ns = owner.namespace;
  const write = async (obj: KubernetesObject, actual: KubernetesObject | undefined): Promise<void> => {
    if (!actual || !drifted(obj, actual)) return;
    await applyObject(client, obj as ApplyBody, { signal });
    writes++;
  };
  await writeSlices(desired.slices, (s) => write(s, caches.slices.get(ns, s.metadata!.name!)));
  if (desired.configMap) {
    const cm = desired.configMap;
    const actual = caches.configMaps.get(ns, cm.metadata!.name!);
    if (controlledBy(actual, owner.uid)) await write(cm, actual);
  }
  return { writes };
}
