/**
 * Writes: server-side apply for status and owned objects, strategic merge for pod
 * conditions. All go through `KubeClient.request`, so they are counted and fail with a
 * typed `ApiError` (`isConflict`, `isNotFound`, `isForbidden` in errors.ts).
 *
 * SSA rules we follow: send only the fields we own, every time (fields left out are removed
 * from our ownership), with one fixed `fieldManager` and `force=true`, as the Kubernetes docs
 * recommend for controllers. Apply bodies are JSON, which is valid YAML for
 * `application/apply-patch+yaml`.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { ContentType, type Requester } from './client.js';

export const FIELD_MANAGER = 'a2a-operator';

/** Plurals of the kinds the operator writes; anything else must pass `plural`. */
const PLURALS: Record<string, string> = {
  A2AAgent: 'a2aagents',
  ConfigMap: 'configmaps',
  EndpointSlice: 'endpointslices',
  Event: 'events',
  Lease: 'leases',
  Pod: 'pods',
  Secret: 'secrets',
  Service: 'services',
};

export interface ResourceRef {
  /** `v1`, `discovery.k8s.io/v1`, `a2a.dev/v1alpha1`, ... */
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  /** Needed for kinds not in the built-in table. */
  plural?: string;
}

/** The REST path of an object (or of its collection when `name` is omitted). */
export function resourcePath(ref: ResourceRef): string {
  const plural = ref.plural ?? PLURALS[ref.kind];
  if (!plural) throw new Error(`no plural known for kind ${ref.kind}; pass plural`);
  const prefix = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const ns = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  const name = ref.name ? `/${encodeURIComponent(ref.name)}` : '';
  return `${prefix}${ns}/${plural}${name}`;
}

export interface ApplyOptions {
  fieldManager?: string;
  /** Take ownership of conflicting fields (default true: we are the controller). */
  force?: boolean;
  signal?: AbortSignal;
  plural?: string;
}

/** An apply configuration: a Kubernetes object with whatever fields we own. */
export type ApplyBody = KubernetesObject & { [field: string]: unknown };

/** Server-side applies `obj` (which must carry apiVersion, kind, metadata.name). */
export function applyObject<T extends KubernetesObject>(
  client: Requester,
  obj: ApplyBody,
  opts: ApplyOptions = {},
): Promise<T> {
  if (!obj.apiVersion || !obj.kind || !obj.metadata?.name) {
    throw new Error('applyObject needs apiVersion, kind and metadata.name');
  }
  const path = resourcePath({
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name,
    plural: opts.plural,
  });
  return apply<T>(client, path, obj, opts);
}

export interface StatusTarget {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespace: string;
  name: string;
}

/**
 * Server-side applies `status` to the `/status` subresource. The body carries only
 * apiVersion, kind, name/namespace and `status`, so we never claim spec or metadata fields.
 */
export function applyStatus<T extends KubernetesObject>(
  client: Requester,
  target: StatusTarget,
  status: unknown,
  opts: ApplyOptions = {},
): Promise<T> {
  const apiVersion = target.group ? `${target.group}/${target.version}` : target.version;
  const body = {
    apiVersion,
    kind: target.kind,
    metadata: { name: target.name, namespace: target.namespace },
    status,
  };
  const path = `${resourcePath({ apiVersion, kind: target.kind, plural: target.plural, namespace: target.namespace, name: target.name })}/status`;
  return apply<T>(client, path, body, opts);
}

function apply<T>(client: Requester, path: string, body: unknown, opts: ApplyOptions): Promise<T> {
  return client.request<T>({
    method: 'PATCH',
    path,
    query: { fieldManager: opts.fieldManager ?? FIELD_MANAGER, force: opts.force ?? true },
    body,
    contentType: ContentType.apply,
    signal: opts.signal,
  });
}

/** A JSON merge patch (RFC 7386). Note it replaces lists wholesale. */
export function mergePatch<T>(
  client: Requester,
  path: string,
  patch: unknown,
  signal?: AbortSignal,
): Promise<T> {
  return client.request<T>({ method: 'PATCH', path, body: patch, contentType: ContentType.merge, signal });
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
}

/**
 * Sets our own conditions on `pods/status` (e.g. a readiness gate). Strategic merge merges
 * `status.conditions` by `type`, so the kubelet's conditions are left alone; a JSON merge
 * patch would replace the whole list.
 */
export function patchPodConditions<T>(
  client: Requester,
  namespace: string,
  name: string,
  conditions: PodCondition[],
  signal?: AbortSignal,
): Promise<T> {
  const path = `${resourcePath({ apiVersion: 'v1', kind: 'Pod', namespace, name })}/status`;
  return client.request<T>({
    method: 'PATCH',
    path,
    body: { status: { conditions } },
    contentType: ContentType.strategicMerge,
    signal,
  });
}

/**
 * Semantic equality for "write nothing when nothing changed": key order does not matter, and
 * an `undefined` field equals a missing one (JSON drops both).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!semanticEqual(ao[k], bo[k])) return false;
  return true;
}
