/** The benchmark's output: the machine it ran on, and the results as a Markdown table. */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, release, totalmem } from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  node: string;
  kubeApiserver: string;
  /** 1-minute load average when the run started and when it ended (others share the machine). */
  load: [number, number];
}

export function describeMachine(kubeApiserver: string, loadAtStart: number): Machine {
  let cpuModel = 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpuModel = m[1]!.trim();
  } catch {
    // not Linux: leave unknown
  }
  return {
    cpus: availableParallelism(),
    cpuModel,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    kernel: `Linux ${release()}`,
    node: process.version,
    kubeApiserver,
    load: [loadAtStart, loadavg()[0]!],
  };
}

export interface Row {
  metric: string;
  value: string;
  /** The goal the value is read against (issue 15), when there is one; the bench asserts nothing. */
  target?: string;
  note?: string;
}

export function markdownTable(rows: readonly Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| metric | value | target | note |',
    '| --- | ---: | --- | --- |',
    ...rows.map(
      (r) => `| ${esc(r.metric)} | ${esc(r.value)} | ${esc(r.target ?? '')} | ${esc(r.note ?? '')} |`,
    ),
  ].join('\n');
}

export function machineTable(m: Machine): string {
  return [
    '| | |',
    '| --- | --- |',
    `| CPUs (nproc) | ${m.cpus} |`,
    `| CPU model | ${m.cpuModel} |`,
    `| memory | ${m.memoryGiB} GiB |`,
    `| kernel | ${m.kernel} |`,
    `| Node.js | ${m.node} |`,
    `| kube-apiserver | ${m.kubeApiserver} |`,
    `| load average (1 min) at start / end | ${m.load[0].toFixed(2)} / ${m.load[1].toFixed(2)} |`,
  ].join('\n');
}

export const fixed = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
