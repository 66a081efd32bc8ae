/**
 * Lease reads and writes for leader election, behind an interface so the election algorithm
 * can be unit-tested against an in-memory store with the same optimistic-concurrency rules.
 */
import type { KubeClient } from './client.js';
import { ApiError, isNotFound } from './errors.js';

/** The fields of a coordination.k8s.io/v1 LeaseSpec that election uses. */
export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface StoredLease {
  resourceVersion: string;
  spec: LeaseRecord;
}

export interface LeaseStore {
  /** The lease, or undefined if it does not exist. */
  get(signal?: AbortSignal): Promise<StoredLease | undefined>;
  /** Creates it; throws `ApiError` 409 if it already exists. */
  create(spec: LeaseRecord, signal?: AbortSignal): Promise<StoredLease>;
  /** Replaces it if still at `resourceVersion`; throws `ApiError` 409 otherwise. */
  update(resourceVersion: string, spec: LeaseRecord, signal?: AbortSignal): Promise<StoredLease>;
}

interface LeaseObject {
  metadata?: { resourceVersion?: string };
  spec?: LeaseRecord;
}

function toStored(o: LeaseObject): StoredLease {
  return { resourceVersion: o.metadata?.resourceVersion ?? '', spec: o.spec ?? {} };
}

export class ApiLeaseStore implements LeaseStore {
  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly name: string,
  ) {}

  private get base(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.namespace}/leases`;
  }

  async get(signal?: AbortSignal): Promise<StoredLease | undefined> {
    try {
      return toStored(await this.client.get<LeaseObject>(`${this.base}/${this.name}`, undefined, signal));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async create(spec: LeaseRecord, signal?: AbortSignal): Promise<StoredLease> {
    const body = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec,
    };
    return toStored(
      await this.client.request<LeaseObject>({ method: 'POST', path: this.base, body, signal }),
    );
  }

  async update(resourceVersion: string, spec: LeaseRecord, signal?: AbortSignal): Promise<StoredLease> {
    // PUT with metadata.resourceVersion: the server rejects it with 409 if anyone wrote since.
    const body = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace, resourceVersion },
      spec,
    };
    const path = `${this.base}/${this.name}`;
    return toStored(await this.client.request<LeaseObject>({ method: 'PUT', path, body, signal }));
  }
}

/** In-memory `LeaseStore` with real conflict semantics, for tests. */
export class MemoryLeaseStore implements LeaseStore {
  lease: StoredLease | undefined;
  private rv = 0;
  writes = 0;

  get(): Promise<StoredLease | undefined> {
    return Promise.resolve(this.lease && structuredClone(this.lease));
  }

  create(spec: LeaseRecord): Promise<StoredLease> {
    if (this.lease) return Promise.reject(new ApiError(409, 'AlreadyExists', 'lease exists', 'POST lease'));
    return Promise.resolve(this.write(spec));
  }

  update(resourceVersion: string, spec: LeaseRecord): Promise<StoredLease> {
    if (!this.lease) return Promise.reject(new ApiError(404, 'NotFound', 'no lease', 'PUT lease'));
    if (this.lease.resourceVersion !== resourceVersion) {
      return Promise.reject(new ApiError(409, 'Conflict', 'stale resourceVersion', 'PUT lease'));
    }
    return Promise.resolve(this.write(spec));
  }

  private write(spec: LeaseRecord): StoredLease {
    this.writes++;
    this.lease = { resourceVersion: String(++this.rv), spec: structuredClone(spec) };
    return structuredClone(this.lease);
  }
}
