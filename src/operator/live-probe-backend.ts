/** The production ProbeBackend: src/probe's fetchCard and Prober. */
import type {
  CardFetch,
  CardRequest,
  ProbeAnswer,
  ProbeBackend,
  ProbeRequest,
} from '../controller/probe-backend.js';
import { fetchCard, type Prober } from '../probe/index.js';

export class LiveProbeBackend implements ProbeBackend {
  constructor(
    private readonly prober: Prober,
    /** Sees every probe answer (metrics). */
    private readonly onProbe?: (binding: string, state: string, durationMs: number) => void,
  ) {}

  async fetchCard(req: CardRequest): Promise<CardFetch> {
    const res = await fetchCard(req);
    if (res.kind === 'error') return { kind: 'error', reason: res.error.reason, message: res.error.message };
    if (res.kind === 'notModified') return { kind: 'notModified' };
    return { kind: 'ok', body: res.body, etag: res.etag };
  }

  async probe(req: ProbeRequest): Promise<ProbeAnswer> {
    const res = await this.prober.probe({ address: req.address, port: req.port }, req.iface, {
      timeoutMs: req.timeoutMs,
      bearerToken: req.bearerToken,
      tls: req.tls,
    });
    this.onProbe?.(req.iface.protocolBinding, res.state, res.durationMs);
    return res;
  }
}
