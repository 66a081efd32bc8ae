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
  /** Capability truth (docs/conditions.md, "Capability truth"), for a Verified interface: one entry per capability. */
  capabilities?: CheckedCapability[];
}

export interface CheckedCapability {
  capability: string;
  /** What the card claims. */
  declared: boolean;
  /** A CapabilityState: Verified, NotServed, Absent, Undeclared, Inconclusive, NotProbed. */
  state: string;
  message: string;
}

/** `--capabilities`: `Report` (default) only reports capability truth; `Enforce` makes a claim not served inconsistent. */
export type CapabilityMode = 'Report' | 'Enforce';

export interface CheckReport {
  consistent: boolean;
  card: { shape: CardShape; digest: string };
  findings: { reason: string; message: string }[];
  interfaces: CheckedInterface[];
  /** Capability claims: every one served as claimed (no NotServed or Inconclusive), and the mode judged in. */
  capabilities?: { mode: CapabilityMode; consistent: boolean };
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
        ...(i.capabilities ? { capabilities: i.capabilities } : {}),
      })),
      ...(report.capabilities ? { capabilities: report.capabilities } : {}),
      ...(report.taskContinuity ? { taskContinuity: report.taskContinuity } : {}),
    },
    null,
    2,
  )}\n`;
}
