/** The production ProbeBackend: src/probe's fetchCard and Prober. */
import type {
  CardFetch,
  CardRequest,
  ProbeAnswer,
  ProbeBackend,
  ProbeRequest,
} from '../controller/probe-backend.js';
import type { Prober } from '../probe/index.js';

export class LiveProbeBackend implements ProbeBackend {
  constructor(
    private readonly prober: Prober,
    /** Sees every probe answer (metrics). */
    private readonly onProbe?: (binding: string, state: string, durationMs: number) => void,
  ) {}

  async fetchCard(req: CardRequest): Promise<CardFetch> {
    const { agent, ...opts } = req;
    const res = await this.prober.fetchCard(opts, agent);
    if (res.kind === 'error') return { kind: 'error', reason: res.error.reason, message: res.error.message };
    if (res.kind === 'notModified') return { kind: 'notModified' };
    return { kind: 'ok', body: res.body, etag: res.etag };
  }

  async probe(req: ProbeRequest): Promise<ProbeAnswer> {
    const res = await this.prober.probe({ address: req.address, port: req.port }, req.iface, {
      timeoutMs: req.timeoutMs,
      agent: req.agent,
      notAfter: req.notAfter,
      bearerToken: req.bearerToken,
      tls: req.tls,
    });
    if (res.state !== 'Pending') this.onProbe?.(req.iface.protocolBinding, res.state, res.durationMs);
    return res;
  }
}
