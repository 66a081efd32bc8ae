/**
 * The production ContinuityBackend: the same check as `a2a-operator check --task-continuity`
 * (src/client/task-continuity.ts), at the pod's address, with the agent's credentials. Its
 * messages have the token cut out, like every probe message.
 */
import type {
  ContinuityBackend,
  ContinuityOutcome,
  ContinuityRequest,
} from '../controller/task-continuity.js';
import { continuitySummary, runTaskContinuity } from '../client/task-continuity.js';
import type { Prober } from '../probe/index.js';
import { redactToken } from '../probe/redact-token.js';
import { errorCode } from '../probe/transport-failure.js';

const DEFAULT_MESSAGE = 'a2a-operator task-continuity check (spec.probe.taskContinuity: Once): please ignore';

export class LiveContinuityBackend implements ContinuityBackend {
  constructor(private readonly prober: Prober) {}

  async check(req: ContinuityRequest): Promise<ContinuityOutcome> {
    try {
      const report = await runTaskContinuity({
        raw: req.raw,
        verified: req.verified.map((v) => ({
          iface: v.iface,
          endpoint: v.endpoint,
          target: { address: v.address, port: v.port },
        })),
        prober: this.prober,
        timeoutMs: req.timeoutMs,
        ...(req.signal ? { signal: req.signal } : {}),
        message: DEFAULT_MESSAGE,
        ...(req.bearerToken !== undefined ? { bearerToken: req.bearerToken } : {}),
        ...(req.tls ? { tls: req.tls } : {}),
      });
      const s = continuitySummary(report);
      return { reason: s.result, message: redactToken(s.message, req.bearerToken) };
    } catch (err) {
      return {
        reason: 'TaskContinuityUnknown',
        message: `the check failed inside the operator (${errorCode(err) ?? 'UNKNOWN'})`,
      };
    }
  }
}
