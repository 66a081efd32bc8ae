/**
 * The Prober: probes one declared interface at one pod, over that interface's own binding, with
 * a GetTask for a random id (side-effect free). It owns the connection pools and gRPC channels
 * (reused across probes, closed when idle) and two concurrency limits: one per agent (a probe
 * waits for its agent's slot first, so one agent with many slow interfaces or pods holds at most
 * that many of the shared slots) and one shared by all its probes and card fetches.
 */
import { randomUUID } from 'node:crypto';
import { CapabilityState, InterfaceState } from '../api/conditions.js';
import type { Capability } from '../card/card-claims.js';
import { clipText, printable } from '../text/display-text.js';
import { sendGrpcCapabilityCall, sendHttpCapabilityCall } from './capability-probe.js';
import { CapabilitySignal, capabilityVerdict, type CapabilityVerdict } from './classify-capability.js';
import { errorCode } from './transport-failure.js';
import { isKnownBinding, isKnownVersion, ProtocolBinding } from '../card/bindings.js';
import { isEndpointViolation } from '../card/interface-endpoint.js';
import { interfaceFacts } from '../card/interface-facts.js';
import type { CardInterface } from '../card/parsed-card.js';
import { abortedVerdict } from './aborted-verdict.js';
import { AnswerMemo } from './answer-memo.js';
import { ConcurrencyLimit, KeyedConcurrencyLimit } from './concurrency-limit.js';
import { SharedDeadlines, untilAborted, withDeadline } from './deadline.js';
import { hostPort, type DialTarget } from './dial-target.js';
import { fetchCard, urlHostOf, type FetchCardOptions, type FetchCardResult } from './fetch-card.js';
import { GrpcChannels, type GrpcChannelKey } from './grpc-channels.js';
import { probeGrpc } from './grpc-probe.js';
import { HttpPools } from './http-pools.js';
import { probeHttpBinding } from './http-probe.js';
import type { ProbeResult, Verdict } from './probe-result.js';
import type { TlsSettings } from './tls-settings.js';
import { settledVerdict, TASK_ID_PLACEHOLDER } from './settled-verdict.js';
import { MAX_VERDICT_MESSAGE, verdict } from './verdict.js';
import { redactCredentials } from '../text/redact-credentials.js';

export interface ProberOptions {
  /** Probes and card fetches in flight at once, across all targets. Default 32. */
  concurrency?: number;
  /** Probes and card fetches in flight at once for one agent (`ProbeOptions.agent`). Default 8. */
  perAgentConcurrency?: number;
  /** Close pools/channels unused this long. Default 120 s. */
  idleMs?: number;
  /** Upper bound on connection setup (TCP + TLS); each probe's own timeout still applies. Default 10 s. */
  connectTimeoutMs?: number;
}

export interface ProbeOptions {
  timeoutMs: number;
  /** The agent the probe is for (e.g. `namespace/name`): its own concurrency limit applies. */
  agent?: string;
  /**
   * Epoch ms: a probe whose turn comes after this is not dialled and answers Pending, so a
   * reconcile that queued more probes than fit in its time ends, and the next one goes on.
   */
  notAfter?: number;
  /**
   * The caller's (the reconcile's): a probe whose turn comes after the abort is not dialled, an
   * in-flight one is cut; both answer Pending, which is no verdict (never a failure).
   */
  signal?: AbortSignal;
  bearerToken?: string;
  tls?: TlsSettings;
  /**
   * GetTask for this id instead of a random one: the task-continuity check asks every interface
   * for a task created over another. Probes never set it.
   */
  taskId?: string;
}

/** A card fetch the prober did not make (or gave up on): no fact about the card, fetch it next time. */
export interface CardFetchDeferred {
  kind: 'deferred';
  why: 'aborted' | 'outOfTime';
}

/**
 * Slack past `notAfter + timeoutMs` before a probe is cut: an attempt started just before
 * `notAfter` ends on its own timeout (plus withDeadline's 50 ms) and keeps its verdict.
 */
const HARD_STOP_SLACK_MS = 1000;

/** A kept-alive connection the server closed under a request: worth one retry on a fresh one. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

export class Prober {
  private readonly limit: ConcurrencyLimit;
  private readonly perAgent: KeyedConcurrencyLimit;
  private readonly pools: HttpPools;
  private readonly channels: GrpcChannels;
  private readonly hardStops = new SharedDeadlines();
  /** Not used for a given task id (task continuity): there the answers themselves are the point. */
  private readonly answers = new AnswerMemo();

  constructor(opts: ProberOptions = {}) {
    this.limit = new ConcurrencyLimit(opts.concurrency ?? 32);
    this.perAgent = new KeyedConcurrencyLimit(
      Math.min(opts.perAgentConcurrency ?? 8, opts.concurrency ?? 32),
    );
    const idleMs = opts.idleMs ?? 120_000;
    // A pool holds as many connections as probes can be in flight at all (the shared limit),
    // so no probe ever queues for a pooled connection: its deadline starts before undici sends
    // the request, and a wait for a connection would be reported as the interface's Timeout.
    // undici opens connections on demand, so the bound costs nothing until that many run.
    this.pools = new HttpPools(idleMs, opts.connectTimeoutMs ?? 10_000, opts.concurrency ?? 32);
    this.channels = new GrpcChannels(idleMs);
  }

  /** Open pools and channels (for tests and metrics). */
  get openConnections(): { httpPools: number; grpcChannels: number } {
    return { httpPools: this.pools.size, grpcChannels: this.channels.size };
  }

  async probe(target: DialTarget, iface: CardInterface, opts: ProbeOptions): Promise<ProbeResult> {
    const started = performance.now();
    // Everything a probe does (attempt, retry, gRPC diagnosis) is cut at notAfter + timeoutMs
    // + 1 s, answering Pending: a reconcile's probing ends within its budget plus one timeout
    // (observe-pods.ts). A cut attempt's own I/O is cancelled by the same signal.
    // The probes of one reconcile share one notAfter, hence one hard stop (SharedDeadlines).
    const hardStop =
      opts.notAfter !== undefined
        ? this.hardStops.acquire(
            Math.max(opts.notAfter, Date.now()) + opts.timeoutMs + HARD_STOP_SLACK_MS,
            opts.signal,
          )
        : undefined;
    const signal = hardStop?.signal ?? opts.signal;
    let v: Verdict;
    try {
      v = await this.schedule(opts.agent, () => this.probeInTurn(target, iface, { ...opts, signal }));
    } finally {
      hardStop?.release();
    }
    return { ...v, durationMs: Math.round((performance.now() - started) * 10) / 10 };
  }

  /**
   * A probe once its turn has come (both limits held). Every stage of an attempt watches
   * `opts.signal` itself (the HTTP exchange, the gRPC call, the diagnosis dial), so a cut attempt
   * answers Pending as soon as the signal aborts, without a race of its own here.
   */
  private async probeInTurn(target: DialTarget, iface: CardInterface, opts: ProbeOptions): Promise<Verdict> {
    const label = () => `${iface.protocolBinding} ${interfaceFacts(iface).shownUrl}`;
    if (opts.signal?.aborted) return abortedVerdict(label());
    if (opts.notAfter !== undefined && Date.now() > opts.notAfter) {
      return verdict(
        InterfaceState.Pending,
        `${label()}: not probed in this reconcile (its time went to this agent's other probes); next reconcile`,
        {},
      );
    }
    try {
      return await this.classify(target, iface, opts);
    } catch (err) {
      if (opts.signal?.aborted) return abortedVerdict(label());
      throw err;
    }
  }

  /**
   * Fetches a card under the same limits as probes (a card can take up to 1 MiB and the whole
   * timeout). Like a probe, a fetch whose turn comes after `notAfter` or after `opts.signal`
   * aborted is not made, and one cut by the abort is no answer: both are `deferred`.
   */
  async fetchCard(
    opts: FetchCardOptions,
    agent?: string,
    notAfter?: number,
  ): Promise<FetchCardResult | CardFetchDeferred> {
    const res = await this.schedule(agent, (): Promise<FetchCardResult | CardFetchDeferred> => {
      if (opts.signal?.aborted) return Promise.resolve({ kind: 'deferred', why: 'aborted' });
      if (notAfter !== undefined && Date.now() > notAfter)
        return Promise.resolve({ kind: 'deferred', why: 'outOfTime' });
      return opts.dispatcher ? fetchCard(opts) : this.fetchCardPooled(opts, notAfter);
    });
    if (res.kind === 'error' && opts.signal?.aborted) return { kind: 'deferred', why: 'aborted' };
    return res;
  }

  /**
   * A card fetch over the pod's pooled connections (the probes' pools: the card port is usually
   * an interface's port too). A one-shot connection per fetch cost a TCP connect and close every
   * period per pod, the largest single item of the operator's CPU profile (docs/benchmarks.md).
   * Like a probe, a fetch on a pooled connection the pod closed meanwhile is retried once on a
   * fresh one, unless `notAfter` has passed (no fetch starts after the reconcile's budget).
   */
  private async fetchCardPooled(opts: FetchCardOptions, notAfter?: number): Promise<FetchCardResult> {
    const key = {
      target: { address: opts.address, port: opts.port },
      tls: opts.scheme === 'https',
      urlHost: urlHostOf(opts.hostHeader),
      tlsSettings: opts.tls,
    };
    const first = await this.pools.use(key, (dispatcher) => fetchCard({ ...opts, dispatcher }));
    const code = first.kind === 'error' ? first.error.evidence.errorCode : undefined;
    if (code === undefined || !STALE_CONNECTION_CODES.has(code) || opts.signal?.aborted) return first;
    if (notAfter !== undefined && Date.now() > notAfter) return first;
    // The pool may hold more connections the pod closed: the retry opens one of its own.
    return fetchCard(opts);
  }

  /**
   * The agent's own slot first, then a shared one: an agent's backlog never queues in front of
   * others. One async frame, and none awaited while slots are free (this wraps every probe).
   */
  private async schedule<T>(agent: string | undefined, task: () => Promise<T>): Promise<T> {
    if (agent !== undefined) {
      const waitAgent = this.perAgent.acquire(agent);
      if (waitAgent) await waitAgent;
    }
    try {
      const waitShared = this.limit.acquire();
      if (waitShared) await waitShared;
      try {
        return await task();
      } finally {
        this.limit.release();
      }
    } finally {
      if (agent !== undefined) this.perAgent.release(agent);
    }
  }

  /**
   * A pooled connection may have died since its last use (pod restarted on the same address):
   * a transport failure is retried once on a fresh connection before it is reported. Each
   * attempt asks for its own random task id.
   */
  private async classify(target: DialTarget, iface: CardInterface, opts: ProbeOptions): Promise<Verdict> {
    let taskId = opts.taskId ?? randomUUID();
    let outcome = await this.attemptWith(taskId, target, iface, opts);
    if (outcome.retryable && !opts.signal?.aborted) {
      taskId = opts.taskId ?? randomUUID();
      outcome = await this.attemptWith(taskId, target, iface, opts);
    }
    const v = outcome.verdict;
    return this.answers.holds(v) ? v : settledVerdict(v, taskId);
  }

  private async attemptWith(
    taskId: string,
    target: DialTarget,
    iface: CardInterface,
    opts: ProbeOptions,
  ): Promise<{ verdict: Verdict; retryable: boolean }> {
    const final = (v: Verdict) => ({ verdict: v, retryable: false });
    const { endpoint, shownUrl } = interfaceFacts(iface);
    const what = `${iface.protocolBinding} v${iface.protocolVersion} ${shownUrl} (dialled ${hostPort(target.address, target.port)})`;
    if (!isKnownBinding(iface.protocolBinding) || !isKnownVersion(iface.protocolVersion)) {
      return final(
        verdict(
          InterfaceState.Ineligible,
          `${what}: binding or version not probeable (JSONRPC, HTTP+JSON, GRPC at 1.x or 0.3); not dialled`,
          {},
        ),
      );
    }
    if (isEndpointViolation(endpoint)) {
      return final(
        verdict(
          InterfaceState.Ineligible,
          `${iface.protocolBinding} ${shownUrl}: ${endpoint.message}; not dialled`,
          {},
        ),
      );
    }
    if (iface.protocolBinding === ProtocolBinding.GRPC) {
      const key: GrpcChannelKey = {
        target,
        tls: endpoint.tls,
        urlHost: endpoint.host,
        authority: endpoint.authority,
        tlsSettings: opts.tls,
      };
      const outcome = await this.channels.use(key, (client) =>
        probeGrpc({
          client,
          target,
          iface,
          endpoint,
          taskId,
          timeoutMs: opts.timeoutMs,
          bearerToken: opts.bearerToken,
          tlsSettings: opts.tls,
          what,
          signal: opts.signal,
          memo: opts.taskId === undefined ? this.answers : undefined,
        }),
      );
      if (outcome.transportFailed) await this.channels.evict(key);
      return { verdict: outcome.verdict, retryable: outcome.retryable };
    }
    const v = await this.pools.use(
      { target, tls: endpoint.tls, urlHost: endpoint.host, tlsSettings: opts.tls },
      (dispatcher) =>
        probeHttpBinding({
          dispatcher,
          iface,
          endpoint,
          taskId,
          timeoutMs: opts.timeoutMs,
          bearerToken: opts.bearerToken,
          what,
          signal: opts.signal,
          memo: opts.taskId === undefined ? this.answers : undefined,
        }),
    );
    return { verdict: v, retryable: v.state === InterfaceState.Unreachable && !opts.signal?.aborted };
  }

  /**
   * Tests one capability claim of a verified interface (docs/conditions.md, "Capability truth") with a side-effect-free call
   * for a random task id (capability-wire.ts), under the same limits as a probe. A stream is
   * closed at its first event; the call ends within `timeoutMs`. No verdict (aborted, out of
   * time, not probeable) is `NotProbed`.
   */
  async probeCapability(
    target: DialTarget,
    iface: CardInterface,
    capability: Capability,
    declared: boolean,
    opts: ProbeOptions,
  ): Promise<CapabilityVerdict> {
    const { endpoint, shownUrl } = interfaceFacts(iface);
    const what = `${iface.protocolBinding} v${iface.protocolVersion} ${shownUrl}`;
    const notProbed = (why: string): CapabilityVerdict => ({
      capability,
      declared,
      state: CapabilityState.NotProbed,
      message: clipText(printable(`${what}: ${capability} not probed (${why})`), MAX_VERDICT_MESSAGE),
    });
    if (!isKnownBinding(iface.protocolBinding) || !isKnownVersion(iface.protocolVersion))
      return notProbed('binding or version not probeable');
    if (isEndpointViolation(endpoint)) return notProbed(endpoint.message);
    return this.schedule(opts.agent, async () => {
      if (opts.signal?.aborted) return notProbed('aborted');
      if (opts.notAfter !== undefined && Date.now() > opts.notAfter) return notProbed('out of time');
      const taskId = randomUUID();
      const input = {
        iface,
        endpoint,
        capability,
        taskId,
        timeoutMs: opts.timeoutMs,
        bearerToken: opts.bearerToken,
        signal: opts.signal,
      };
      const call =
        iface.protocolBinding === ProtocolBinding.GRPC
          ? this.channels.use(
              {
                target,
                tls: endpoint.tls,
                urlHost: endpoint.host,
                authority: endpoint.authority,
                tlsSettings: opts.tls,
              },
              (client) => sendGrpcCapabilityCall(client, input),
            )
          : this.pools.use(
              { target, tls: endpoint.tls, urlHost: endpoint.host, tlsSettings: opts.tls },
              (dispatcher) => sendHttpCapabilityCall(dispatcher, input),
            );
      let r: Awaited<typeof call>;
      try {
        r = await untilAborted(withDeadline(call, opts.timeoutMs + 50), opts.signal);
      } catch (err) {
        if (opts.signal?.aborted) return notProbed('aborted');
        r = {
          answer: { signal: CapabilitySignal.Other, shown: `no answer (${errorCode(err) ?? 'UNKNOWN'})` },
          request: '',
        };
      }
      const v = capabilityVerdict(capability, declared, r.answer, { what, request: r.request });
      const message = redactCredentials(v.message.replaceAll(taskId, TASK_ID_PLACEHOLDER));
      return { ...v, message: clipText(printable(message), MAX_VERDICT_MESSAGE) };
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.pools.close(), this.channels.close()]);
  }
}
