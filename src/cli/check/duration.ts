/** Durations on the command line. */
import { UsageError } from '../cli-errors.js';

/** `--timeout` / `--deadline`: `5s`, `500ms`, or a number of seconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d{1,9}(?:\.\d{1,6})?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new UsageError(`${flag} ${text}: expected a duration such as 5s, 500ms or 3`);
  const ms = m[2] === 'ms' ? Number(m[1]) : Number(m[1]) * 1000;
  if (!(ms > 0)) throw new UsageError(`${flag} must be positive`);
  return ms;
}
