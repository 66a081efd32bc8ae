/**
 * The Prober: probes one declared interface at one pod, over that interface's own binding, with
 * a GetTask for a random id (side-effect free). It owns the connection pools and gRPC channels
 * (reused across probes, closed when idle) and a concurrency limit shared by all its probes.
 */
import { randomUUID } from 'node:crypto';
import { InterfaceState } from '../api/conditions.js';
import { isKnownBinding, isKnownVersion, ProtocolBinding } from '../card/bindings.js';
import { interfaceEndpoint, isEndpointViolation, redactUrl } from '../card/interface-endpoint.js';
import type { CardInterface } from '../card/parsed-card.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { hostPort, type DialTarget } from './dial-target.js';
import { GrpcChannels, type GrpcChannelKey } from './grpc-channels.js';
import { probeGrpc } from './grpc-probe.js';
import { HttpPools } from './http-pools.js';
import { probeHttpBinding } from './http-probe.js';
import type { ProbeResult, Verdict } from './probe-result.js';
import type { TlsSettings } from './tls-settings.js';
import { verdict } from './verdict.js';

export interface ProberOptions {
  /** Probes in flight at once, across all targets. Default 32. */
  concurrency?: number;
  /** Close pools/channels unused this long. Default 120 s. */
  idleMs?: number;
  /** Upper bound on connection setup (TCP + TLS); each probe's own timeout still applies. Default 10 s. */
  connectTimeoutMs?: number;
}

export interface ProbeOptions {
  timeoutMs: number;
  bearerToken?: string;
  tls?: TlsSettings;
}

export class Prober {
  private readonly limit: ConcurrencyLimit;
  private readonly pools: HttpPools;
  private readonly channels: GrpcChannels;

  constructor(opts: ProberOptions = {}) {
    this.limit = new ConcurrencyLimit(opts.concurrency ?? 32);
    const idleMs = opts.idleMs ?? 120_000;
    this.pools = new HttpPools(idleMs, opts.connectTimeoutMs ?? 10_000);
    this.channels = new GrpcChannels(idleMs);
  }

  /** Open pools and channels (for tests and metrics). */
  get openConnections(): { httpPools: number; grpcChannels: number } {
    return { httpPools: this.pools.size, grpcChannels: this.channels.size };
  }

  async probe(target: DialTarget, iface: CardInterface, opts: ProbeOptions): Promise<ProbeResult> {
    const started = performance.now();
    const v = await this.limit.run(() => this.classify(target, iface, opts));
    return { ...v, durationMs: Math.round((performance.now() - started) * 10) / 10 };
  }

  /**
   * A pooled connection may have died since its last use (pod restarted on the same address):
   * a transport failure is retried once on a fresh connection before it is reported.
   */
  private async classify(target: DialTarget, iface: CardInterface, opts: ProbeOptions): Promise<Verdict> {
    const first = await this.attempt(target, iface, opts);
    if (!first.retryable) return first.verdict;
    return (await this.attempt(target, iface, opts)).verdict;
  }

  private async attempt(
    target: DialTarget,
    iface: CardInterface,
    opts: ProbeOptions,
  ): Promise<{ verdict: Verdict; retryable: boolean }> {
    const final = (v: Verdict) => ({ verdict: v, retryable: false });
    const what = `${iface.protocolBinding} v${iface.protocolVersion} ${redactUrl(iface.url)} (dialled ${hostPort(target.address, target.port)})`;
    if (!isKnownBinding(iface.protocolBinding) || !isKnownVersion(iface.protocolVersion)) {
      return final(
        verdict(
          InterfaceState.Ineligible,
          `${what}: binding or version not probeable (JSONRPC, HTTP+JSON, GRPC at 1.0 or 0.3); not dialled`,
          {},
        ),
      );
    }
    const endpoint = interfaceEndpoint(iface.url, iface.protocolBinding);
    if (isEndpointViolation(endpoint)) {
      return final(
        verdict(
          InterfaceState.Ineligible,
          `${iface.protocolBinding} ${redactUrl(iface.url)}: ${endpoint.message}; not dialled`,
          {},
        ),
      );
    }
    const taskId = randomUUID();
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
        }),
    );
    return { verdict: v, retryable: v.state === InterfaceState.Unreachable };
  }

  async close(): Promise<void> {
    await Promise.all([this.pools.close(), this.channels.close()]);
  }
}
