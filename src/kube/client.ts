/**
 * A small JSON client for the Kubernetes API.
 *
 * Why not the generated client-node APIs: in 1.x every call needs per-call middleware to set
 * a patch content type (SSA, merge, strategic merge), their errors carry status only as
 * untyped fields, and `KubeConfig.applyToHTTPSOptions` builds a fresh https.Agent per call, so
 * each request would pay a new TLS handshake. Instead we ask the KubeConfig for credentials on
 * every request (so rotated service-account tokens and exec plugins keep working), build one
 * keep-alive undici Agent from its TLS material, and send plain JSON. Every request goes
 * through `request()`, which is where API calls are counted and errors typed.
 *
 * Limits: kubeconfig `proxy-url` is not supported; TLS files are read once at first use.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { RequestOptions } from 'node:https';
import { Agent, request as undiciRequest } from 'undici';
import { ApiError, NotLeaderError } from './errors.js';
import { yamlSafeJson } from './yaml-safe-json.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const ContentType = {
  json: 'application/json',
  apply: 'application/apply-patch+yaml',
  merge: 'application/merge-patch+json',
  strategicMerge: 'application/strategic-merge-patch+json',
  jsonPatch: 'application/json-patch+json',
} as const;

export type QueryValue = string | number | boolean | undefined;

export interface ApiRequest {
  method: HttpMethod;
  /** Absolute API path, e.g. `/api/v1/namespaces/ns/pods`. */
  path: string;
  query?: Record<string, QueryValue>;
  /** Serialised as JSON (which is valid YAML for apply patches). */
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

export interface RequestInfo {
  method: HttpMethod;
  path: string;
  /** `pods`, `a2aagents/status`, ... (see `resourceOf`). */
  resource: string;
  /** HTTP status; 0 when no response arrived (network error, abort). */
  status: number;
  seconds: number;
}

/** Sees every API request; wire to metrics, or count writes in tests. */
export interface RequestObserver {
  request(info: RequestInfo): void;
}

export interface KubeClientOptions {
  observer?: RequestObserver;
  /**
   * Per request (default 30 s): for the response headers, then for each gap in the body. Watches
   * do not go through this client.
   */
  timeoutMs?: number;
  /**
   * Asked before every write (anything but GET): false refuses it with `NotLeaderError`, sending
   * nothing. The manager ties it to the leader Lease, so a replica that lost the Lease cannot
   * write a status, a slice, a gate or an Event, whatever reconcile was in flight.
   */
  mayWrite?: () => boolean;
  /** Milliseconds, for the reuse of auth headers (tests); default `performance.now`. */
  now?: () => number;
}

/**
 * How long the headers the kubeconfig gives (a bearer token, basic auth) are reused. Asking it
 * per request cost about 0.15 ms each (it reads the client certificate files and builds an
 * https.Agent it throws away) on the cold start's 11 requests per agent. client-node rereads a
 * token file every 60 s and client-go does the same: rotated service-account tokens stay valid
 * well past that, and a 401 drops the reused headers at once.
 */
export const AUTH_REUSE_MS = 10_000;

interface Auth {
  tls: RequestOptions;
  headers: Record<string, string>;
}

export class KubeClient {
  readonly server: string;
  private agent: Agent | undefined;
  private readonly timeoutMs: number;
  private auth: { value: Promise<Auth>; at: number } | undefined;
  private readonly now: () => number;

  constructor(
    readonly kc: KubeConfig,
    private readonly opts: KubeClientOptions = {},
  ) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Sends one request and returns the parsed JSON body; throws `ApiError` on non-2xx. */
  async request<T>(req: ApiRequest): Promise<T> {
    if (req.method !== 'GET' && this.opts.mayWrite && !this.opts.mayWrite()) {
      throw new NotLeaderError(
        `${req.method} ${req.path} not sent: this replica may no longer hold the Lease`,
      );
    }
    const started = performance.now();
    const url = new URL(this.server + req.path);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    let status = 0;
    try {
      const asked = this.authFor();
      const auth = await asked;
      this.agent ??= makeAgent(auth.tls);
      const headers: Record<string, string> = { accept: 'application/json', ...auth.headers };
      let body: string | undefined;
      if (req.body !== undefined) {
        body = yamlSafeJson(req.body);
        headers['content-type'] = req.contentType ?? ContentType.json;
      }
      // undici's own timeouts, not an AbortSignal.timeout joined to the caller's signal with
      // AbortSignal.any: those cost 20-70 us and a timer per request (11 requests per agent on a
      // cold start). Headers within timeoutMs, then no gap in the body longer than it.
      const res = await undiciRequest(url, {
        method: req.method,
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        ...(req.signal ? { signal: req.signal } : {}),
      });
      status = res.statusCode;
      // Refused credentials: ask the kubeconfig again next time (a rotated token, a new exec credential).
      if (status === 401 && this.auth?.value === asked) this.auth = undefined;
      const text = await res.body.text();
      if (status < 200 || status >= 300) throw toApiError(status, text, `${req.method} ${req.path}`);
      return (text ? JSON.parse(text) : undefined) as T;
    } finally {
      this.opts.observer?.request({
        method: req.method,
        path: req.path,
        resource: resourceOf(req.path),
        status,
        seconds: (performance.now() - started) / 1000,
      });
    }
  }

  /**
   * The kubeconfig's TLS options and auth headers, asked at most every AUTH_REUSE_MS; requests
   * that start while it is being asked share the answer. A failed ask is not kept.
   */
  private authFor(): Promise<Auth> {
    const now = this.now();
    if (this.auth && now - this.auth.at < AUTH_REUSE_MS) return this.auth.value;
    const entry = { at: now, value: this.readAuth() };
    this.auth = entry;
    entry.value.catch(() => {
      if (this.auth === entry) this.auth = undefined;
    });
    return entry.value;
  }

  private async readAuth(): Promise<Auth> {
    const tls: RequestOptions = { headers: {} };
    await this.kc.applyToHTTPSOptions(tls);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(tls.headers ?? {})) if (typeof v === 'string') headers[k] = v;
    if (tls.auth) headers.authorization = `Basic ${Buffer.from(tls.auth).toString('base64')}`;
    return { tls, headers };
  }

  get<T>(path: string, query?: Record<string, QueryValue>, signal?: AbortSignal): Promise<T> {
    return this.request<T>({ method: 'GET', path, query, signal });
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    await this.agent?.close();
    this.agent = undefined;
  }
}

/** What write helpers need from a client; tests can pass a fake. */
export type Requester = Pick<KubeClient, 'request'>;

function makeAgent(tls: RequestOptions): Agent {
  return new Agent({
    connect: {
      ca: tls.ca,
      cert: tls.cert,
      key: tls.key,
      servername: tls.servername,
      // undefined means "verify", which is what we want unless the kubeconfig says otherwise.
      rejectUnauthorized: tls.rejectUnauthorized,
    },
  });
}

interface StatusBody {
  kind?: string;
  reason?: string;
  message?: string;
}

function toApiError(status: number, text: string, request: string): ApiError {
  let parsed: StatusBody | undefined;
  try {
    parsed = JSON.parse(text) as StatusBody;
  } catch {
    // Not a Status object (e.g. a proxy's HTML page); keep the raw text as the message.
  }
  const reason = parsed?.kind === 'Status' && parsed.reason ? parsed.reason : '';
  const message = parsed?.message ?? (text.slice(0, 500) || `HTTP ${status}`);
  return new ApiError(status, reason, message, request);
}

/**
 * The resource (and subresource) a path addresses: `/api/v1/namespaces/a/pods/p/status` →
 * `pods/status`; `/apis/a2a.dev/v1alpha1/a2aagents` → `a2aagents`; `/api/v1/namespaces/a` →
 * `namespaces`.
 */
export function resourceOf(path: string): string {
  const segs = path.split('?')[0]!.split('/').filter(Boolean);
  let rest = segs[0] === 'api' ? segs.slice(2) : segs.slice(3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  return rest[2] ? `${rest[0]}/${rest[2]}` : (rest[0] ?? '');
}

const WRITE_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isWrite(method: HttpMethod): boolean {
  return WRITE_METHODS.has(method);
}

/**
 * Counts requests and writes by resource. Tests assert "a steady agent causes zero API
 * writes"; the benchmark reports requests per reconcile.
 */
export class RequestCounter implements RequestObserver {
  requests = 0;
  writes = 0;
  readonly writesByResource = new Map<string, number>();
  private readonly next: RequestObserver | undefined;

  constructor(next?: RequestObserver) {
    this.next = next;
  }

  request(info: RequestInfo): void {
    this.requests++;
    if (isWrite(info.method)) {
      this.writes++;
      this.writesByResource.set(info.resource, (this.writesByResource.get(info.resource) ?? 0) + 1);
    }
    this.next?.request(info);
  }

  reset(): void {
    this.requests = 0;
    this.writes = 0;
    this.writesByResource.clear();
  }
}
