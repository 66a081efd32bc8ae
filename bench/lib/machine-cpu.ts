/**
 * Where the machine's CPU went between two readings, by role: the operator, the control plane
 * (kube-apiserver, etcd), the agent fleet, this benchmark, and the rest. A cold start on a
 * machine whose cores the operator shares is bound by the machine, not by the operator alone;
 * the split says by whom. Linux `/proc` only: a process's utime + stime (its own threads, not its
 * children's), and stime alone (the kernel's work for it: sockets, the network stack it ran),
 * the machine's busy time from `/proc/stat`. Roles are given by pid, so other
 * work on the machine (another bench, a CI run with its own API server) counts as the rest.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const ROLES = ['operator', 'kube-apiserver', 'etcd', 'fleet', 'benchmark'] as const;
export type Role = (typeof ROLES)[number];

export interface CpuReading {
  /** performance.now() at the reading. */
  at: number;
  /** Busy and total CPU time of the machine, all cores (s). */
  machineBusyS: number;
  machineTotalS: number;
  /** CPU time per role (s), summed over its pids; a pid that is gone reads 0. */
  byRole: Record<Role, number>;
  /** The system (kernel) part of byRole (s). */
  systemByRole: Record<Role, number>;
}

export interface CpuSplit {
  wallS: number;
  /** Cores the machine has (from /proc/stat's per-CPU lines). */
  cores: number;
  /** CPU used by the whole machine over the window (core-seconds). */
  busyS: number;
  byRole: Record<Role, number>;
  systemByRole: Record<Role, number>;
  /** busyS less every role's (other processes and the kernel's own work). */
  otherS: number;
}

/**
 * `/proc/stat`'s aggregate line: busy = user + nice + system + irq + softirq + steal (guest time
 * is already inside user), total adds idle and iowait. In clock ticks.
 */
export function parseProcStat(text: string): { busy: number; total: number; cores: number } {
  const lines = text.split('\n');
  const cpu = lines.find((l) => l.startsWith('cpu '));
  if (!cpu) throw new Error('/proc/stat has no aggregate cpu line');
  const [user, nice, system, idle, iowait, irq, softirq, steal] = cpu
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map((v) => Number(v ?? 0));
  const busy = user! + nice! + system! + irq! + softirq! + (steal ?? 0);
  return {
    busy,
    total: busy + idle! + (iowait ?? 0),
    cores: lines.filter((l) => /^cpu\d+ /.test(l)).length,
  };
}

/** A process's user and system CPU time, in clock ticks. */
export interface PidTicks {
  user: number;
  system: number;
}

/**
 * utime and stime of a `/proc/<pid>/stat` line, in clock ticks. The command name (field 2) is in
 * parentheses and may itself hold spaces or parentheses: fields are counted after its last `)`.
 */
export function parsePidStat(text: string): PidTicks {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
  return { user: Number(rest[11]), system: Number(rest[12]) };
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

const NO_TICKS: PidTicks = { user: 0, system: 0 };

function pidTicks(pid: number | undefined): PidTicks {
  if (!pid) return NO_TICKS;
  try {
    return parsePidStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return NO_TICKS;
  }
}

/** Reads the machine and every role's pids now. */
export function readCpu(pids: Partial<Record<Role, readonly (number | undefined)[]>>): CpuReading {
  const hz = clockTicks();
  const stat = parseProcStat(readFileSync('/proc/stat', 'utf8'));
  const byRole = {} as Record<Role, number>;
  const systemByRole = {} as Record<Role, number>;
  for (const r of ROLES) {
    // Each pid's /proc read once: both figures come from the same reading.
    let user = 0;
    let system = 0;
    for (const t of (pids[r] ?? []).map(pidTicks)) {
      user += t.user;
      system += t.system;
    }
    byRole[r] = (user + system) / hz;
    systemByRole[r] = system / hz;
  }
  return {
    at: performance.now(),
    machineBusyS: stat.busy / hz,
    machineTotalS: stat.total / hz,
    byRole,
    systemByRole,
  };
}

/** What the machine and each role used between two readings. */
export function cpuBetween(a: CpuReading, b: CpuReading, cores: number): CpuSplit {
  const delta = (f: (x: CpuReading) => Record<Role, number>) =>
    Object.fromEntries(ROLES.map((r) => [r, Math.max(0, f(b)[r] - f(a)[r])])) as Record<Role, number>;
  const byRole = delta((x) => x.byRole);
  const busyS = Math.max(0, b.machineBusyS - a.machineBusyS);
  const rolesS = ROLES.reduce((s, r) => s + byRole[r], 0);
  return {
    wallS: (b.at - a.at) / 1000,
    cores,
    busyS,
    byRole,
    systemByRole: delta((x) => x.systemByRole),
    otherS: Math.max(0, busyS - rolesS),
  };
}

/** The machine's core count as /proc/stat lists them. */
export function machineCores(): number {
  return parseProcStat(readFileSync('/proc/stat', 'utf8')).cores;
}

/**
 * "operator 31.2 (system 4.0), kube-apiserver 40.1 (system 6.3), ..., other 3.0" (core-seconds;
 * roles that used none left out).
 */
export function splitParts(s: CpuSplit): string {
  return [
    ...ROLES.filter((r) => s.byRole[r] > 0).map(
      (r) => `${r} ${s.byRole[r].toFixed(1)} (system ${s.systemByRole[r].toFixed(1)})`,
    ),
    `other ${s.otherS.toFixed(1)}`,
  ].join(', ');
}

/** The window's busy and available core-seconds, and the busy share of what was available. */
function busyOf(s: CpuSplit): { available: number; pct: number } {
  const available = s.wallS * s.cores;
  return { available, pct: (100 * s.busyS) / Math.max(1e-9, available) };
}

/** The share of every core's time the machine was busy, %. */
export function busyPct(s: CpuSplit): number {
  return busyOf(s).pct;
}

/** "93.1 / 100.2 (93 %)": busy / available core-seconds. */
export function splitValue(s: CpuSplit): string {
  const { available, pct } = busyOf(s);
  return `${s.busyS.toFixed(1)} / ${available.toFixed(1)} (${pct.toFixed(0)} %)`;
}

/** "93.1 of 100.2 core-seconds (93 % of 2 cores): operator 31.2, ...". */
export function describeSplit(s: CpuSplit): string {
  const { available, pct } = busyOf(s);
  return `${s.busyS.toFixed(1)} of ${available.toFixed(1)} core-seconds (${pct.toFixed(0)} % of ${s.cores} cores): ${splitParts(s)}`;
}
