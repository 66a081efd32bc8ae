/**
 * TCP connections accepted in the fleet's network namespaces over a window: how many connections
 * the agents had to accept (and parse from scratch) to serve a window's calls. Each fleet process
 * runs in a network namespace of its own, whose kernel counts `Tcp: PassiveOpens` in
 * /proc/<pid>/net/snmp; read through a process of each namespace, summed once per namespace.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** `Tcp: PassiveOpens` of a /proc/<pid>/net/snmp text (a header line, then a value line). */
export function parsePassiveOpens(snmp: string): number {
  const tcp = snmp.split('\n').filter((l) => l.startsWith('Tcp:'));
  if (tcp.length < 2) return Number.NaN;
  const names = tcp[0]!.trim().split(/\s+/);
  const values = tcp[1]!.trim().split(/\s+/);
  const i = names.indexOf('PassiveOpens');
  return i > 0 && i < values.length ? Number(values[i]) : Number.NaN;
}

/** Where a process's namespace and its counters are read; /proc unless a test says otherwise. */
export interface ProcReader {
  netns(pid: number): string;
  snmp(pid: number): string;
}

const PROC: ProcReader = {
  netns: (pid) => readlinkSync(`/proc/${pid}/ns/net`),
  snmp: (pid) => readFileSync(`/proc/${pid}/net/snmp`, 'utf8'),
};

/** Connections accepted so far in the network namespaces of `pids`, each namespace once. */
export function readAccepts(pids: readonly (number | undefined)[], proc: ProcReader = PROC): number {
  const byNamespace = new Map<string, number>();
  for (const pid of pids) {
    if (!pid) continue;
    try {
      const ns = proc.netns(pid);
      if (!byNamespace.has(ns)) byNamespace.set(ns, parsePassiveOpens(proc.snmp(pid)));
    } catch {
      // The process is gone: its namespace's count with it.
    }
  }
  return [...byNamespace.values()].reduce((s, n) => s + n, 0);
}
