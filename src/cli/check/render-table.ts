/**
 * The human output of `check`: one row per interface, then findings and the messages of failures.
 * It is what a CI log shows, so every string from a card or an answer is escaped (no ANSI
 * sequence, no `::error::` workflow command on a line of its own) and clipped; credentials were
 * redacted before (redact-report.ts).
 */
import type { ProbeEvidence } from '../../probe/probe-result.js';
import { displayText } from '../../text/display-text.js';
import type { CheckReport } from './check-report.js';

/** Clip lengths, in UTF-16 units. */
const MAX = { binding: 32, version: 16, url: 200, tenant: 64, errorInfo: 64, evidence: 160, message: 1000 };

export function evidenceSummary(e: ProbeEvidence): string {
  const parts: string[] = [];
  if (e.httpStatus !== undefined) parts.push(`HTTP ${e.httpStatus}`);
  if (e.jsonRpcCode !== undefined) parts.push(`code ${e.jsonRpcCode}`);
  if (e.grpcCodeName !== undefined) parts.push(`gRPC ${displayText(e.grpcCodeName, 32)}`);
  if (e.errorInfoReason !== undefined) parts.push(displayText(e.errorInfoReason, MAX.errorInfo));
  if (e.errorCode !== undefined) parts.push(displayText(e.errorCode, 32));
  return displayText(parts.join(' '), MAX.evidence) || '-';
}

/**
 * A CI runner reads a line starting (after white space) with `::` as a workflow command. Only
 * the binding column can start a line with card text, but every line is checked.
 */
function notACommand(line: string): string {
  const i = line.length - line.trimStart().length;
  return line.startsWith('::', i) ? `${line.slice(0, i)}\\u{3a}${line.slice(i + 1)}` : line;
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
      displayText(i.protocolBinding, MAX.binding) || '-',
      displayText(i.protocolVersion, MAX.version) || '-',
      displayText(i.url, MAX.url) + (i.tenant ? ` (tenant ${displayText(i.tenant, MAX.tenant)})` : ''),
      displayText(i.state, 32),
      evidenceSummary(i.evidence),
    ]),
  ];
  const out = [`card: ${report.card.shape} ${displayText(report.card.digest, 80)}`, '', table(rows), ''];
  if (report.findings.length > 0) {
    out.push('findings:');
    for (const f of report.findings)
      out.push(`  ${displayText(f.reason, 64)}: ${displayText(f.message, MAX.message)}`);
    out.push('');
  }
  const failing = report.interfaces.filter((i) => i.state !== 'Verified');
  if (failing.length > 0) {
    out.push('not verified:');
    for (const i of failing)
      out.push(`  ${displayText(i.state, 32)}: ${displayText(i.message, MAX.message)}`);
    out.push('');
  }
  const probed = report.interfaces.filter((i) => i.capabilities && i.capabilities.length > 0);
  if (probed.length > 0) {
    out.push('capabilities (found, and what the card claims):');
    for (const i of probed) {
      const cells = i.capabilities!.map(
        (c) =>
          `${displayText(c.capability, 32)}=${displayText(c.state, 32)}(${c.declared ? 'claimed' : 'not claimed'})`,
      );
      out.push(
        `  ${displayText(i.protocolBinding, MAX.binding)} ${displayText(i.protocolVersion, MAX.version)} ${displayText(i.url, MAX.url)}: ${cells.join(' ')}`,
      );
    }
    const notable = probed.flatMap((i) =>
      i.capabilities!.filter((c) => c.state !== 'Verified' && c.state !== 'Absent'),
    );
    for (const c of notable)
      out.push(`  ${displayText(c.state, 32)}: ${displayText(c.message, MAX.message)}`);
    out.push('');
  }
  if (report.capabilities && !report.capabilities.consistent) {
    out.push(
      report.capabilities.mode === 'Enforce'
        ? 'capabilities: a claimed capability is not served (--capabilities enforce: inconsistent)'
        : 'capabilities: a claimed capability is not served (reported only; --capabilities enforce fails on it)',
    );
  }
  out.push(
    report.consistent
      ? 'consistent: every declared interface is served'
      : 'inconsistent: the card declares what is not served',
  );
  return `${out.join('\n').split('\n').map(notACommand).join('\n')}\n`;
}
