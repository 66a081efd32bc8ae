/**
 * Who holds the names an agent's routing objects are applied under (routing/inventory.ts
 * claimOf): the owned caches first (they hold only objects with our labels), then one read,
 * since a foreign object without our labels is in no cache.
 *
 * On a first visit none of the names is cached, so each claim is an API round trip. An agent's
 * names are known before it is probed, so `EarlyClaims` starts those reads beside the probes
 * and the apply step finds them answered: a cold start has three serial round trips fewer per
 * agent (the Service, then the ConfigMap and slices), and steady state reads nothing (every
 * name is cached).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../kube/client.js';
import { isNotFound } from '../kube/errors.js';
import type { Informer } from '../kube/informer.js';
import { claimOf } from '../routing/inventory.js';
import type { Owner } from '../routing/objects.js';

export const API_PATHS = {
  Service: (ns: string) => `/api/v1/namespaces/${ns}/services`,
  EndpointSlice: (ns: string) => `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
  ConfigMap: (ns: string) => `/api/v1/namespaces/${ns}/configmaps`,
} as const;

export type ClaimedKind = keyof typeof API_PATHS;

/** claimOf's answer, or `absent` when nothing holds the name. */
export type NameClaim = ReturnType<typeof claimOf> | 'absent';

type NameCache = Pick<Informer<KubernetesObject>, 'get'>;

/**
 * Who holds `name`. A cached object answers (the cache is the newest word on our own objects);
 * else a read started early for this name, else one read now.
 */
export async function claimByName(
  client: KubeClient,
  cache: NameCache,
  kind: ClaimedKind,
  owner: Owner,
  name: string,
  signal?: AbortSignal,
  early?: EarlyClaims,
): Promise<NameClaim> {
  const cached = cache.get(owner.namespace, name);
  if (cached) return claimOf(cached, owner);
  return early?.answer(kind, name) ?? readClaim(client, kind, owner, name, signal);
}

async function readClaim(
  client: KubeClient,
  kind: ClaimedKind,
  owner: Owner,
  name: string,
  signal?: AbortSignal,
): Promise<NameClaim> {
  try {
    if (kind === 'EndpointSlice') {
      // A list by name: the operator's role has no `get` on slices, and needs none elsewhere.
      const list = await client.get<{ items?: KubernetesObject[] }>(
        API_PATHS[kind](owner.namespace),
        { fieldSelector: `metadata.name=${name}` },
        signal,
      );
      const found = list.items?.[0];
      return found ? claimOf(found, owner) : 'absent';
    }
    return claimOf(
      await client.get<KubernetesObject>(`${API_PATHS[kind](owner.namespace)}/${name}`, undefined, signal),
      owner,
    );
  } catch (err) {
    if (isNotFound(err)) return 'absent';
    throw err;
  }
}

/**
 * Claim reads started before the apply step needs them, for the names its caches miss.
 *
 * An early answer is as old as the probes that ran beside it (at most the reconcile's probe
 * budget): an object created under one of these names in that time is not seen as foreign
 * until the next reconcile, where the cache or a fresh read shows it. Without early reads the
 * same race exists, over one round trip; a name the caches hold by the time it is asked is
 * answered from them.
 */
export class EarlyClaims {
  private readonly reads = new Map<string, Promise<NameClaim>>();

  constructor(
    private readonly client: KubeClient,
    private readonly owner: Owner,
    private readonly signal?: AbortSignal,
  ) {}

  /** Starts reading who holds `name` unless `cache` holds it (a cached name needs no read). */
  start(kind: ClaimedKind, cache: NameCache, name: string): void {
    const key = `${kind}/${name}`;
    if (this.reads.has(key) || cache.get(this.owner.namespace, name)) return;
    const read = readClaim(this.client, kind, this.owner, name, this.signal);
    // A read no one asks for (the reconcile ended first, or decided no routing) must not be an
    // unhandled rejection; whoever asks still gets the error.
    read.catch(() => undefined);
    this.reads.set(key, read);
  }

  /** The read started for `name`, if one was. */
  answer(kind: ClaimedKind, name: string): Promise<NameClaim> | undefined {
    return this.reads.get(`${kind}/${name}`);
  }
}
