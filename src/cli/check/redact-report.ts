/**
 * Every string of a report comes from a card or an answer, or quotes one: before it is printed
 * (table or JSON) URL credentials and known secrets are replaced by `***`.
 */
import type { CheckReport } from './check-report.js';

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  }
  return value;
}

export function redactReport(report: CheckReport, redact: (text: string) => string): CheckReport {
  return mapStrings(report, redact) as CheckReport;
}
