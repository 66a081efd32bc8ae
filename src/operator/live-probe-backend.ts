/**
 * The production ProbeBackend: src/probe's fetchCard and Prober. It is also the last line of
 * defence for the agent's token: every message it hands to the reconciler (and so to status,
 * Events, logs) has the token cut out, and an exception from the probe engine becomes a verdict
 * named by its code, never by its text (grpc-js and undici quote request metadata there).
 */
import { CapabilityState, CardReason, InterfaceState } from '../api/conditions.js';
import type {
  CapabilityRequest,
  CardFetch,
  CardRequest,
  ProbeAnswer,
  ProbeBackend,
  ProbeRequest,
} from '../controller/probe-backend.js';
import { CAPABILITIES } from '../card/index.js';
import type { Prober } from '../probe/index.js';
import { redactToken } from '../probe/redact-token.js';
import { errorCode, isTlsFailureCode } from '../probe/transport-failure.js';
import { reasonFor } from '../probe/verdict.js';
import type { CapabilityFinding } from '../observation/observed.js';

const target = (req: ProbeRequest) => ({ address: req.address, port: req.port });

/** The engine's options for one call of a request: its bounds and the credentials it carries. */
function probeOptions(req: ProbeRequest) {
  return {
    timeoutMs: req.timeoutMs,
    agent: req.agent,
    notAfter: req.notAfter,
    signal: req.signal,
    bearerToken: req.bearerToken,
    tls: req.tls,
  };
}

export class LiveProbeBackend implements ProbeBackend {
  constructor(
    private readonly prober: Prober,
    /** Sees every probe answer (metrics). */
    private readonly onProbe?: (binding: string, state: string, durationMs: number) => void,
  ) {}

  async fetchCard(req: CardRequest): Promise<CardFetch> {
    const { agent, notAfter, ...opts } = req;
    let res: Awaited<ReturnType<Prober['fetchCard']>>;
    try {
      res = await this.prober.fetchCard(opts, agent, notAfter);
    } catch (err) {
      if (req.signal?.aborted) return { kind: 'deferred' };
      return {
        kind: 'error',
        reason: CardReason.CardFetchFailed,
        message: `card fetch failed (${errorCode(err) ?? 'UNKNOWN'})`,
      };
    }
    if (res.kind === 'error') {
      const { httpStatus, errorCode: code } = res.error.evidence;
      const refused =
        httpStatus === 401 || httpStatus === 403
          ? 'auth'
          : code !== undefined && isTlsFailureCode(code)
            ? 'tls'
            : undefined;
      return {
        kind: 'error',
        reason: res.error.reason,
        message: redactToken(res.error.message, req.bearerToken),
        ...(refused ? { refused } : {}),
      };
    }
    if (res.kind === 'notModified') return { kind: 'notModified', ...(res.etag ? { etag: res.etag } : {}) };
    if (res.kind === 'deferred') return { kind: 'deferred' };
    return { kind: 'ok', body: res.body, etag: res.etag, bodyDigest: res.bodyDigest };
  }

  async probe(req: ProbeRequest): Promise<ProbeAnswer> {
    const started = performance.now();
    let res: ProbeAnswer;
    try {
      const r = await this.prober.probe(target(req), req.iface, probeOptions(req));
      // Evidence stays here: only state, reason and the redacted message go on.
      res = {
        state: r.state,
        reason: r.reason,
        message: redactToken(r.message, req.bearerToken),
        durationMs: r.durationMs,
      };
    } catch (err) {
      // An aborted probe is no verdict, whatever the engine threw on the way out.
      res = req.signal?.aborted
        ? {
            state: InterfaceState.Pending,
            reason: reasonFor(InterfaceState.Pending),
            message: `${req.iface.protocolBinding} probe not finished (the reconcile was cut short); next reconcile`,
            durationMs: Math.round((performance.now() - started) * 10) / 10,
          }
        : {
            state: InterfaceState.Inconclusive,
            reason: reasonFor(InterfaceState.Inconclusive),
            message: `${req.iface.protocolBinding} probe failed inside the operator (${errorCode(err) ?? 'UNKNOWN'})`,
            durationMs: Math.round((performance.now() - started) * 10) / 10,
          };
    }
    if (res.state !== 'Pending') this.onProbe?.(req.iface.protocolBinding, res.state, res.durationMs);
    return res;
  }

  /** The three capability calls at once; the token is cut out of every message, as for probes. */
  async probeCapabilities(req: CapabilityRequest): Promise<CapabilityFinding[]> {
    return Promise.all(
      CAPABILITIES.map(async (c): Promise<CapabilityFinding> => {
        try {
          const v = await this.prober.probeCapability(
            target(req),
            req.iface,
            c,
            req.claims[c],
            probeOptions(req),
          );
          return { ...v, message: redactToken(v.message, req.bearerToken) };
        } catch (err) {
          return {
            capability: c,
            declared: req.claims[c],
            state: CapabilityState.NotProbed,
            message: `${req.iface.protocolBinding} ${c} probe failed inside the operator (${errorCode(err) ?? 'UNKNOWN'})`,
          };
        }
      }),
    );
  }
}
