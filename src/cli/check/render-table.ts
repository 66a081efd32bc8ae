/** The human output of `check`: one row per interface, then findings and the messages of failures. */
import type { ProbeEvidence } from '../../probe/probe-result.js';
import type { CheckReport } from './check-report.js';

export function evidenceSummary(e: ProbeEvidence): string {
  const parts: string[] = [];
  if (e.httpStatus !== undefined) parts.push(`HTTP ${e.httpStatus}`);
  if (e.jsonRpcCode !== undefined) parts.push(`code ${e.jsonRpcCode}`);
  if (e.grpcCodeName !== undefined) parts.push(`gRPC ${e.grpcCodeName}`);
  if (e.errorInfoReason !== undefined) parts.push(e.errorInfoReason);
  if (e.errorCode !== undefined) parts.push(e.errorCode);
  return parts.join(' ') || '-';
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  '))
    .join('\n');
}

export function renderTable(report: CheckReport): string {
  const rows = [
    ['BINDING', 'VERSION', 'URL', 'STATE', 'EVIDENCE'],
    ...report.interfaces.map((i) => [
      i.protocolBinding,
      i.protocolVersion,
      i.tenant ? `${i.url} (tenant ${i.tenant})` : i.url,
      i.state,
      evidenceSummary(i.evidence),
    ]),
  ];
  const out = [`card: ${report.card.shape} ${report.card.digest}`, '', table(rows), ''];
  if (report.findings.length > 0) {
    out.push('findings:');
    for (const f of report.findings) out.push(`  ${f.reason}: ${f.message}`);
    out.push('');
  }
  const failing = report.interfaces.filter((i) => i.state !== 'Verified');
  if (failing.length > 0) {
    out.push('not verified:');
    for (const i of failing) out.push(`  ${i.state}: ${i.message}`);
    out.push('');
  }
  out.push(
    report.consistent
      ? 'consistent: every declared interface is served'
      : 'inconsistent: the card declares what is not served',
  );
  return `${out.join('\n')}\n`;
}
