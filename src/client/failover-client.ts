/**
 * A client over every eligible interface of one card, with the selection and failover rules of
 * seeds/003 and the UNIMPLEMENTED/UNAUTHENTICATED distinction of seeds/000 (docs/client.md).
 * Each call goes through the official SDK client of one interface; what happens after a failure
 * is decided by `failover-policy.ts` from the probes' verdict on it.
 */
import type { Client, RequestOptions } from '@a2a-js/sdk/client';
import { Agent, fetch as undiciFetch } from 'undici';
import { callCapture, type CallCapture } from './call-capture.js';
import { loadCard, type CardSource, type LoadedCard } from './card-source.js';
import { candidatesOf, sameInterface, type Candidate, type SkippedInterface } from './candidates.js';
import {
  attemptOrder,
  CallOutcome,
  decide,
  failureClass,
  suggestsStaleCard,
  type Decision,
} from './failover-policy.js';
import {
  classifySdkFailure,
  createInterfaceClient,
  type InterfaceClient,
  type TransportOptions,
} from './interface-client.js';

export interface FailoverClientOptions {
  /**
   * `fetch` for the HTTP bindings and the card (set a dispatcher with your TLS settings on it);
   * its connections are yours to close. Without one the client keeps its own connection pool,
   * which `close()` closes.
   */
  fetch?: typeof fetch;
  /** PEM CA bundle for gRPC interfaces over TLS; the system roots when absent. */
  grpcCa?: string;
  /** Sent with every call: HTTP headers, gRPC metadata (`{ authorization: 'Bearer …' }`). */
  serviceParameters?: Record<string, string>;
  /** At most one background card refresh per this many ms (default 30 000). */
  cardRefreshIntervalMs?: number;
  /**
   * Bound of one attempt of a unary call (default 60 000 ms). Running out is an ambiguous
   * failure (the agent may be working on it): returned, not replayed. Streams have none. A
   * `cardUrl` fetch, body included, has the same bound.
   */
  callTimeoutMs?: number;
  /** Bound of the dial that names a gRPC connection failure (default 3 000 ms). */
  diagnosisTimeoutMs?: number;
  /** Clock for the refresh throttle (tests). */
  now?: () => number;
  /** Every call's report: which interface served it and why the others did not. */
  onCall?: (report: CallReport) => void;
  /** Every background card refresh, and whether it succeeded. */
  onCardRefresh?: (result: { ok: boolean; error?: unknown }) => void;
}

export interface InterfaceRef {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  declaredAt: string;
}

export interface AttemptReport {
  interface: InterfaceRef;
  /** The probes' state for the failure (`Unimplemented`, `AuthRequired`, …). */
  state: string;
  reason: string;
  message: string;
  /** False only when the failure proves the request never left the client. */
  requestSent: boolean;
}

export interface CallReport {
  operation: string;
  outcome: CallOutcome;
  /** The interface that served the call, when one did. */
  servedBy?: InterfaceRef;
  /** Failed attempts, in order. */
  attempts: AttemptReport[];
  /** Declared interfaces this client never calls (ineligible, or only hinted by v0.3 preferredTransport). */
  skipped: SkippedInterface[];
  /** The task the call concerns, when known (for an ambiguous failure: look it up before sending again). */
  taskId?: string;
}

/** A call that did not succeed; `outcome` says what the caller may do next (docs/client.md). */
export class FailoverCallError extends Error {
  readonly code = 'A2A_CLIENT_CALL_FAILED';
  readonly outcome: CallOutcome;
  readonly report: CallReport;
  readonly taskId?: string;
  constructor(report: CallReport, cause?: unknown) {
    const last = report.attempts.at(-1);
    super(`${report.operation}: ${report.outcome}${last ? `: ${last.message}` : ''}`, { cause });
    this.name = 'FailoverCallError';
    this.outcome = report.outcome;
    this.report = report;
    if (report.taskId !== undefined) this.taskId = report.taskId;
  }
}

/** A call on a client after `close()`. */
export class ClientClosedError extends Error {
  readonly code = 'A2A_CLIENT_CLOSED';
  constructor(operation: string) {
    super(`${operation}: the client is closed`);
    this.name = 'ClientClosedError';
  }
}

/** `fetch` over a pool this client owns (closed by `close()`), for callers who bring none. */
function ownedFetch(): { fetch: typeof fetch; pool: Agent } {
  const pool = new Agent();
  const f = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as string, { ...(init as object), dispatcher: pool })) as unknown as typeof fetch;
  return { fetch: f, pool };
}

type SendParams = Parameters<Client['sendMessage']>[0];
type StreamEvent = Awaited<ReturnType<ReturnType<Client['sendMessageStream']>['next']>>['value'];

function ref(c: Candidate): InterfaceRef {
  return {
    url: c.url,
    protocolBinding: c.protocolBinding,
    protocolVersion: c.protocolVersion,
    declaredAt: c.declaredAt,
  };
}

function eventTaskId(ev: unknown): string | undefined {
  const p = (ev as { payload?: { $case?: string; value?: { id?: unknown; taskId?: unknown } } } | undefined)
    ?.payload;
  const id = p?.$case === 'task' ? p.value?.id : p?.value?.taskId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function messageTaskId(params: SendParams): string | undefined {
  const id = (params as { message?: { taskId?: unknown } }).message?.taskId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export class FailoverClient {
  private loaded: LoadedCard;
  private list: { candidates: Candidate[]; skipped: SkippedInterface[] };
  private current: Candidate | undefined;
  private readonly clients = new Map<Candidate, Promise<InterfaceClient>>();
  private readonly transport: TransportOptions;
  private readonly now: () => number;
  private lastRefreshAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | undefined;
  private reportValue: CallReport | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly source: CardSource,
    loaded: LoadedCard,
    private readonly opts: FailoverClientOptions,
    private readonly owned: { fetch: typeof fetch; pool: Agent } | undefined,
  ) {
    this.loaded = loaded;
    this.list = candidatesOf(loaded.parsed, { cardScheme: loaded.scheme });
    this.current = this.list.candidates[0];
    this.now = opts.now ?? Date.now;
    this.transport = {
      fetch: opts.fetch ?? owned?.fetch ?? fetch,
      grpcCa: opts.grpcCa,
      diagnosisTimeoutMs: opts.diagnosisTimeoutMs ?? 3000,
      bearerSent: Object.keys(opts.serviceParameters ?? {}).some((k) => k.toLowerCase() === 'authorization'),
    };
  }

  /** A client over the card `source` names: `{ card }` (an agent's card) or `{ cardUrl }` (fetched now). */
  static async create(source: CardSource, opts: FailoverClientOptions = {}): Promise<FailoverClient> {
    const owned = opts.fetch ? undefined : ownedFetch();
    try {
      const loaded = await loadCard(source, opts.fetch ?? owned!.fetch, opts.callTimeoutMs);
      return new FailoverClient(source, loaded, opts, owned);
    } catch (err) {
      await owned?.pool.close();
      throw err;
    }
  }

  /**
   * Closes every gRPC channel this client opened and its own HTTP pool (not a `fetch` you
   * passed); calls after it throw `ClientClosedError`. Idempotent: later calls return the same promise.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const open = [...this.clients.values()];
      this.clients.clear();
      await this.refreshing?.catch(() => undefined);
      for (const c of await Promise.allSettled(open)) if (c.status === 'fulfilled') c.value.close();
      await this.owned?.pool.close();
    })();
    return this.closing;
  }

  /** Eligible interfaces in the order they are tried: highest version first, then card order. */
  get candidates(): readonly Candidate[] {
    return this.list.candidates;
  }

  /** Declared interfaces this client never calls, and why. */
  get skipped(): readonly SkippedInterface[] {
    return this.list.skipped;
  }

  /** The interface the next call tries first. */
  get selected(): Candidate | undefined {
    return this.current;
  }

  /** The report of the call that ended last. */
  get lastReport(): CallReport | undefined {
    return this.reportValue;
  }

  sendMessage(params: SendParams, options?: RequestOptions): ReturnType<Client['sendMessage']> {
    return this.unary(
      'SendMessage',
      messageTaskId(params),
      (c, signal) => c.sendMessage(params, this.with(options, signal)),
      options,
    );
  }

  getTask(params: Parameters<Client['getTask']>[0], options?: RequestOptions): ReturnType<Client['getTask']> {
    return this.unary(
      'GetTask',
      params.id,
      (c, signal) => c.getTask(params, this.with(options, signal)),
      options,
    );
  }

  cancelTask(
    params: Parameters<Client['cancelTask']>[0],
    options?: RequestOptions,
  ): ReturnType<Client['cancelTask']> {
    return this.unary(
      'CancelTask',
      params.id,
      (c, signal) => c.cancelTask(params, this.with(options, signal)),
      options,
    );
  }

  listTasks(
    params: Parameters<Client['listTasks']>[0],
    options?: RequestOptions,
  ): ReturnType<Client['listTasks']> {
    return this.unary(
      'ListTasks',
      undefined,
      (c, signal) => c.listTasks(params, this.with(options, signal)),
      options,
    );
  }

  /** Never replayed: a failure, even before the first event, ends the stream (with the task id seen so far). */
  sendMessageStream(
    params: SendParams,
    options?: RequestOptions,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    return this.stream(
      'SendStreamingMessage',
      messageTaskId(params),
      (c) => c.sendMessageStream(params, this.with(options)),
      options,
    );
  }

  resubscribeTask(
    params: Parameters<Client['resubscribeTask']>[0],
    options?: RequestOptions,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    return this.stream(
      'SubscribeToTask',
      params.id,
      (c) => c.resubscribeTask(params, this.with(options)),
      options,
    );
  }

  /** Fetches the card again now (a `cardUrl` source only); the selection follows its interface. */
  async refreshCard(): Promise<void> {
    if (!('cardUrl' in this.source) || this.closing) return;
    this.lastRefreshAt = this.now();
    const loaded = await loadCard(this.source, this.transport.fetch, this.opts.callTimeoutMs);
    const list = candidatesOf(loaded.parsed, { cardScheme: loaded.scheme });
    const keep = this.current;
    this.loaded = loaded;
    this.list = list;
    this.current = (keep && list.candidates.find((c) => sameInterface(c, keep))) ?? list.candidates[0];
    for (const [c, client] of [...this.clients]) {
      if (list.candidates.includes(c)) continue;
      this.clients.delete(c);
      client.then(
        (x) => x.close(),
        () => undefined,
      );
    }
  }

  private with(options: RequestOptions | undefined, signal?: AbortSignal): RequestOptions | undefined {
    const withSignal = signal ? { ...options, signal } : options;
    if (!this.opts.serviceParameters) return withSignal;
    return {
      ...withSignal,
      serviceParameters: { ...this.opts.serviceParameters, ...options?.serviceParameters },
    };
  }

  /** A throttled refresh in the background: it never delays or changes the current call. */
  private maybeRefresh(): void {
    if (!('cardUrl' in this.source) || this.refreshing) return;
    if (this.now() - this.lastRefreshAt < (this.opts.cardRefreshIntervalMs ?? 30_000)) return;
    this.refreshing = this.refreshCard().then(
      () => this.opts.onCardRefresh?.({ ok: true }),
      (error: unknown) => this.opts.onCardRefresh?.({ ok: false, error }),
    );
    void this.refreshing.finally(() => (this.refreshing = undefined));
  }

  private async clientFor(c: Candidate): Promise<Client> {
    let client = this.clients.get(c);
    if (!client) {
      client = createInterfaceClient(this.loaded.parsed.raw, c, this.transport);
      this.clients.set(c, client);
      // A failed creation is not kept: the next call tries again.
      client.catch(() => this.clients.delete(c));
    }
    const made = await client;
    // Closed while it was being made: close() no longer saw it.
    if (this.closing) made.close();
    return made.client;
  }

  private finish(report: CallReport): CallReport {
    this.reportValue = report;
    this.opts.onCall?.(report);
    return report;
  }

  private startIndex(candidates: Candidate[]): number {
    const cur = this.current;
    const at = cur ? candidates.findIndex((c) => sameInterface(c, cur)) : -1;
    return at < 0 ? 0 : at;
  }

  private async judge(
    err: unknown,
    capture: CallCapture,
    c: Candidate,
    operation: string,
    streaming: boolean,
    attempts: AttemptReport[],
    candidates: Candidate[],
    i: number,
  ): Promise<Decision> {
    const v = await classifySdkFailure(err, capture, c, operation, this.transport);
    const cls = failureClass(v.verdict.state, v.requestSent);
    const d = decide(cls, streaming);
    attempts.push({
      interface: ref(c),
      state: v.verdict.state,
      reason: v.verdict.reason,
      message: v.verdict.message,
      requestSent: v.requestSent,
    });
    if (d.advance) this.current = candidates[(i + 1) % candidates.length];
    if (suggestsStaleCard(cls)) this.maybeRefresh();
    return d;
  }

  private noCandidate(operation: string, taskId: string | undefined): FailoverCallError {
    return new FailoverCallError(
      this.finish({
        operation,
        outcome: CallOutcome.NoCandidate,
        attempts: [],
        skipped: this.list.skipped,
        ...(taskId ? { taskId } : {}),
      }),
    );
  }

  private async unary<T>(
    operation: string,
    taskId: string | undefined,
    run: (client: Client, signal: AbortSignal) => Promise<T>,
    options: RequestOptions | undefined,
  ): Promise<T> {
    if (this.closing) throw new ClientClosedError(operation);
    const { candidates, skipped } = this.list;
    if (candidates.length === 0) throw this.noCandidate(operation, taskId);
    const attempts: AttemptReport[] = [];
    let lastErr: unknown;
    for (const i of attemptOrder(this.startIndex(candidates), candidates.length)) {
      const c = candidates[i]!;
      const capture: CallCapture = {};
      const timeout = AbortSignal.timeout(this.opts.callTimeoutMs ?? 60_000);
      const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      try {
        const client = await this.clientFor(c);
        const result = await callCapture.run(capture, () => run(client, signal));
        this.current = c;
        this.finish({ operation, outcome: CallOutcome.Served, servedBy: ref(c), attempts, skipped });
        return result;
      } catch (err) {
        // The caller's own abort says nothing about the endpoint.
        if (options?.signal?.aborted) throw err;
        lastErr = err;
        const d = await this.judge(err, capture, c, operation, false, attempts, candidates, i);
        if (d.tryNext) continue;
        throw new FailoverCallError(
          this.finish({ operation, outcome: d.outcome, attempts, skipped, ...(taskId ? { taskId } : {}) }),
          err,
        );
      }
    }
    throw new FailoverCallError(
      this.finish({
        operation,
        outcome: CallOutcome.Exhausted,
        attempts,
        skipped,
        ...(taskId ? { taskId } : {}),
      }),
      lastErr,
    );
  }

  private async *stream(
    operation: string,
    knownTaskId: string | undefined,
    open: (client: Client) => AsyncGenerator<StreamEvent, void, undefined>,
    options: RequestOptions | undefined,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    if (this.closing) throw new ClientClosedError(operation);
    const { candidates, skipped } = this.list;
    if (candidates.length === 0) throw this.noCandidate(operation, knownTaskId);
    const i = this.startIndex(candidates);
    const c = candidates[i]!;
    const capture: CallCapture = {};
    let taskId = knownTaskId;
    const attempts: AttemptReport[] = [];
    try {
      const client = await this.clientFor(c);
      const events = open(client);
      for (;;) {
        const next = await callCapture.run(capture, () => events.next());
        if (next.done) break;
        taskId = eventTaskId(next.value) ?? taskId;
        yield next.value;
      }
    } catch (err) {
      if (options?.signal?.aborted) throw err;
      const d = await this.judge(err, capture, c, operation, true, attempts, candidates, i);
      throw new FailoverCallError(
        this.finish({ operation, outcome: d.outcome, attempts, skipped, ...(taskId ? { taskId } : {}) }),
        err,
      );
    }
    this.current = c;
    this.finish({
      operation,
      outcome: CallOutcome.Served,
      servedBy: ref(c),
      attempts,
      skipped,
      ...(taskId ? { taskId } : {}),
    });
  }
}
