/**
 * `check --output junit`: a JUnit XML report, the format GitLab (artifacts:reports:junit),
 * Jenkins (junit step), Azure Pipelines, CircleCI and most CI systems render as test results.
 * One testcase per declared interface (failed unless Verified, as the exit status counts it),
 * plus one for the card's static checks (failed, with every finding, when there are any). Text from the card and the answers is escaped for a
 * person (`printable`: no control characters) and for XML (markup characters, and the code
 * points XML 1.0 cannot carry even as references: lone surrogates, U+FFFE, U+FFFF).
 */
import { displayText } from '../../text/display-text.js';
import type { CheckReport } from './check-report.js';
import { evidenceSummary } from './render-table.js';

const MAX = { name: 300, message: 1000 };

// Lone surrogates and the two non-characters XML 1.0's Char production leaves out.
const NOT_XML = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g;

/** A value from the card or an answer, as XML text or attribute content. */
function xml(text: string, max: number): string {
  return displayText(text, max)
    .replace(NOT_XML, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** `target` names the checked agent (its base URL, credentials already redacted). */
export function renderJunit(report: CheckReport, target: string): string {
  const failures = report.interfaces.filter((i) => i.state !== 'Verified').length;
  const cardFailed = report.findings.length > 0 ? 1 : 0;
  const tests = report.interfaces.length + 1;
  const suite = xml(`a2a-operator check ${target}`, MAX.name);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${suite}" tests="${tests}" failures="${failures + cardFailed}" errors="0">`,
    `  <testsuite name="${suite}" tests="${tests}" failures="${failures + cardFailed}" errors="0" skipped="0">`,
    `    <properties><property name="card.shape" value="${xml(report.card.shape, 16)}"/><property name="card.digest" value="${xml(report.card.digest, 100)}"/></properties>`,
    `    <testcase classname="card" name="static checks">`,
    // One <failure> per testcase, as the JUnit schema has it: every finding on a line of its own.
    ...(report.findings.length > 0
      ? [
          `      <failure type="CardFindings" message="${xml(report.findings.map((f) => f.reason).join(', '), 300)}">${report.findings.map((f) => `${xml(f.reason, 64)}: ${xml(f.message, MAX.message)}`).join('\n')}</failure>`,
        ]
      : []),
    '    </testcase>',
  ];
  for (const i of report.interfaces) {
    const name = `${i.protocolBinding} ${i.url}${i.tenant ? ` (tenant ${i.tenant})` : ''}`;
    const open = `    <testcase classname="interface.${xml(i.protocolBinding, 32)}" name="${xml(name, MAX.name)}"`;
    if (i.state === 'Verified') {
      lines.push(`${open}/>`);
      continue;
    }
    lines.push(
      `${open}>`,
      `      <failure type="${xml(i.state, 32)}" message="${xml(`${i.state}: ${i.reason}`, 200)}">${xml(i.message, MAX.message)} (evidence: ${xml(evidenceSummary(i.evidence), 200)})</failure>`,
      '    </testcase>',
    );
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}
