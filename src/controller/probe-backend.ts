/**
 * What the reconciler needs from the probe engine (src/probe), as an interface so the
 * reconciler can be driven by the real prober in production and tests alike.
 */
import type { InterfaceState } from '../api/conditions.js';
import type { Capability, CardInterface } from '../card/index.js';
import type { CapabilityFinding } from '../observation/observed.js';

export interface ProbeCredentials {
  bearerToken?: string;
  tls?: { ca?: string; insecureSkipVerify?: boolean };
}

export interface CardRequest extends ProbeCredentials {
  /** The agent (`namespace/name`) the fetch is for: fetches and probes are bounded per agent. */
  agent?: string;
  address: string;
  port: number;
  scheme: 'http' | 'https';
  path: string;
  hostHeader: string;
  timeoutMs: number;
  etag?: string;
  /** `bodyDigest` of the card held: the same bytes again answer `notModified`, unparsed. */
  heldBodyDigest?: string;
  /** Epoch ms after which a fetch still waiting for its turn is not made (answers `deferred`). */
  notAfter?: number;
  /** The reconcile's: a fetch not made or cut because it aborted answers `deferred`. */
  signal?: AbortSignal;
}

export type CardFetch =
  | { kind: 'ok'; body: unknown; etag?: string; /** sha256 of the bytes as served. */ bodyDigest?: string }
  /** The card held is still served; `etag` is the server's current one, if it sent one. */
  | { kind: 'notModified'; etag?: string }
  /** Not fetched in this reconcile (out of its time, or aborted): no fact about the card, never a failure. */
  | { kind: 'deferred' }
  | {
      kind: 'error';
      reason: string;
      message: string;
      /** The server refused the request's credentials (HTTP 401/403), or the TLS handshake failed. */
      refused?: 'auth' | 'tls';
    };

export interface ProbeRequest extends ProbeCredentials {
  /** The agent (`namespace/name`) the probe is for: fetches and probes are bounded per agent. */
  agent?: string;
  address: string;
  port: number;
  iface: CardInterface;
  timeoutMs: number;
  /** Epoch ms after which a probe still waiting for its turn is not dialled (answers Pending). */
  notAfter?: number;
  /**
   * The reconcile's: a probe not dialled or cut because it aborted answers Pending, which is
   * no verdict and never counts as a failure.
   */
  signal?: AbortSignal;
}

export interface ProbeAnswer {
  state: InterfaceState;
  reason: string;
  message: string;
  durationMs: number;
}

export interface CapabilityRequest extends ProbeRequest {
  /** What the card claims, per capability. */
  claims: Record<Capability, boolean>;
}

export interface ProbeBackend {
  fetchCard(req: CardRequest): Promise<CardFetch>;
  probe(req: ProbeRequest): Promise<ProbeAnswer>;
  /** Capability truth for a verified interface; a backend without it reports no capabilities. */
  probeCapabilities?(req: CapabilityRequest): Promise<CapabilityFinding[]>;
}
