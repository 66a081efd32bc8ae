/**
 * Reads the Prometheus text exposition format (what the operator's /metrics serves) into
 * samples, and sums series by name and label filter. Enough for counters and gauges; comments
 * and timestamps are ignored.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePromText(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    const value = Number(m[3]);
    if (!Number.isNaN(value)) out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** Sum of every series named `name` whose labels satisfy `where` (all series when omitted). */
export function sumOf(
  samples: readonly Sample[],
  name: string,
  where: (labels: Record<string, string>) => boolean = () => true,
): number {
  return samples.filter((s) => s.name === name && where(s.labels)).reduce((a, s) => a + s.value, 0);
}

/** Sums of `name` grouped by one label's value. */
export function sumBy(samples: readonly Sample[], name: string, label: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name) continue;
    const k = s.labels[label] ?? '';
    out.set(k, (out.get(k) ?? 0) + s.value);
  }
  return out;
}
