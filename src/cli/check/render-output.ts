/** `check --output`: the formats, and the renderer of each. */
import { reportJson, type CheckReport } from './check-report.js';
import { renderGithub } from './render-github.js';
import { renderJunit } from './render-junit.js';
import { renderTable } from './render-table.js';

export const OUTPUTS = ['table', 'json', 'junit', 'github'] as const;
export type OutputFormat = (typeof OUTPUTS)[number];

/** `target`: the checked base URL, redacted; `cardFile`: the --card file, if one was given. */
export function renderOutput(
  format: OutputFormat,
  report: CheckReport,
  ctx: { target: string; cardFile?: string },
): string {
  switch (format) {
    case 'json':
      return reportJson(report);
    case 'junit':
      return renderJunit(report, ctx.target);
    case 'github':
      return renderGithub(report, ctx.target, ctx.cardFile);
    case 'table':
      return renderTable(report);
  }
}
