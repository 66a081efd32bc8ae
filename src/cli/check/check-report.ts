/** The result of `a2a-operator check`, and the exact JSON it prints with `--output json`. */
import type { CardShape } from '../../card/parsed-card.js';
import type { ProbeEvidence } from '../../probe/probe-result.js';
import type { ContinuityReport } from '../../client/task-continuity.js';

export interface CheckedInterface {
  /** As the card wrote it: credentials are redacted when the report is printed (redact-report.ts). */
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
  state: string;
  reason: string;
  message: string;
  evidence: ProbeEvidence;
}

export interface CheckReport {
  consistent: boolean;
  card: { shape: CardShape; digest: string };
  findings: { reason: string; message: string }[];
  interfaces: CheckedInterface[];
  /** Only with `--task-continuity` (which creates a task on the agent). */
  taskContinuity?: ContinuityReport;
}

/** The `--output json` document: the fields promised, in a fixed order (evidence kept for people). */
export function reportJson(report: CheckReport): string {
  return `${JSON.stringify(
    {
      consistent: report.consistent,
      card: report.card,
      findings: report.findings.map((f) => ({ reason: f.reason, message: f.message })),
      interfaces: report.interfaces.map((i) => ({
        url: i.url,
        protocolBinding: i.protocolBinding,
        protocolVersion: i.protocolVersion,
        ...(i.tenant ? { tenant: i.tenant } : {}),
        state: i.state,
        reason: i.reason,
        message: i.message,
        evidence: i.evidence,
      })),
      ...(report.taskContinuity ? { taskContinuity: report.taskContinuity } : {}),
    },
    null,
    2,
  )}\n`;
}
