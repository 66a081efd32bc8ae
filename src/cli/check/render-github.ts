/**
 * `check --output github`: GitHub Actions workflow commands, which the runner turns into
 * annotations on the run (and on the file, with --card). One `::error` per failing interface
 * and per card finding; a `::notice` when everything is verified.
 *
 * Every line is one command the runner parses (actions/runner ActionCommand.TryParseV2): the
 * properties end at the first `::` after the leading one and are split at `,`, so values are
 * escaped as actions/toolkit does (data: `%` `\r` `\n`; properties also `:` `,`). Card text is
 * made `printable` first, so no control character (ANSI, CR, LF) of its own reaches the log:
 * the only `%0A` in a message are the line breaks this renderer puts there.
 */
import { displayText } from '../../text/display-text.js';
import type { CheckReport } from './check-report.js';
import { evidenceSummary } from './render-table.js';

const MAX = { title: 200, message: 2000 };

/** actions/toolkit escapeData. */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** actions/toolkit escapeProperty. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(
  kind: 'error' | 'notice',
  props: Record<string, string | undefined>,
  message: string,
): string {
  const p = Object.entries(props)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(',');
  return `::${kind}${p ? ` ${p}` : ''}::${escapeData(message)}`;
}

/** `file`: the card file given with --card (annotations attach to it), else none. */
export function renderGithub(report: CheckReport, target: string, file?: string): string {
  const lines: string[] = [];
  for (const f of report.findings)
    lines.push(
      command(
        'error',
        { file, title: `A2A card: ${displayText(f.reason, 64)}` },
        displayText(f.message, MAX.message),
      ),
    );
  for (const i of report.interfaces) {
    if (i.state === 'Verified') continue;
    const title = `A2A ${displayText(i.protocolBinding, 32)} interface ${displayText(i.url, 120)} is ${displayText(i.state, 32)}`;
    lines.push(
      command(
        'error',
        { file, title: displayText(title, MAX.title) },
        [
          `${displayText(i.state, 32)}: ${displayText(i.reason, 64)}`,
          displayText(i.message, MAX.message),
          `evidence: ${evidenceSummary(i.evidence)}`,
        ].join('\n'),
      ),
    );
  }
  if (lines.length === 0) {
    const n = report.interfaces.length;
    lines.push(
      command(
        'notice',
        { file, title: 'A2A card consistent' },
        `${displayText(target, 300)}: ${n}/${n} declared interfaces verified`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
