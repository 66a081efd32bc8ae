/**
 * The host-wide side effects of a real cluster, recorded before it starts and undone after it
 * stops (or, after a crash, by the next run at its start):
 *
 * - sysctls: the CNI bridge plugin sets net.ipv4.ip_forward=1; the kubelet sets vm.overcommit_memory,
 *   vm.panic_on_oom, kernel.panic, kernel.panic_on_oops and kernel.keys.* (protectKernelDefaults
 *   false) — restored to the recorded values;
 * - netfilter: kube-proxy's nft tables (`ip kube-proxy`, `ip6 kube-proxy`), the kubelet's KUBE-*
 *   iptables chains, and tables iptables-nft created for them — removed when new;
 * - the `kubepods` cgroups in every hierarchy, CRI network namespaces `cni-*`, mounts under the
 *   state root (the kubelet's rshared self-bind, pod volumes, container rootfs and shm), the CNI
 *   bridge, containerd's shim socket folder and libcni's cache when they were absent before;
 * - processes: the cluster's programs with the state root in their command line (containerd, its
 *   shims, the kubelet, …), and every process left in a kubepods cgroup (the containers), by pid.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { mountsToUnmount, pidsFromProcs, tablesToDelete } from './host-filters.js';
import { BRIDGE, HOST_STATE_FILE, STATE_ROOT } from './layout.js';

const SYSCTLS = [
  'net/ipv4/ip_forward',
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
];
const IPTABLES = ['iptables', 'ip6tables'];
const IPTABLES_TABLES = ['filter', 'nat', 'mangle'];
/** Created by containerd (shim sockets, runc state) and libcni (result cache) outside our root. */
const OUTSIDE_DIRS = ['/run/containerd', '/var/lib/cni'];
const CGROUP_ROOT = '/sys/fs/cgroup';

export interface HostRecord {
  sysctls: Record<string, string>;
  nftTables: string[];
  iptablesChains: Record<string, string[]>;
  absentDirs: string[];
  netns: string[];
}

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryRun(cmd: string, args: string[]): string | undefined {
  try {
    return run(cmd, args);
  } catch {
    return undefined;
  }
}

function nftTables(): string[] {
  return (tryRun('nft', ['list', 'tables']) ?? '')
    .split('\n')
    .filter((l) => l.startsWith('table '))
    .map((l) => l.slice('table '.length).trim());
}

function iptablesChains(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const cmd of IPTABLES)
    for (const table of IPTABLES_TABLES) {
      const listing = tryRun(cmd, ['-w', '-t', table, '-S']);
      if (listing === undefined) continue;
      out[`${cmd} ${table}`] = listing
        .split('\n')
        .filter((l) => l.startsWith('-N '))
        .map((l) => l.slice(3).trim());
    }
  return out;
}

function netns(): string[] {
  return existsSync('/run/netns') ? readdirSync('/run/netns') : [];
}

export function snapshotHost(): HostRecord {
  const sysctls: Record<string, string> = {};
  for (const s of SYSCTLS) sysctls[s] = readFileSync(join('/proc/sys', s), 'utf8').trim();
  return {
    sysctls,
    nftTables: nftTables(),
    iptablesChains: iptablesChains(),
    absentDirs: OUTSIDE_DIRS.filter((d) => !existsSync(d)),
    netns: netns(),
  };
}

/** Records the host before the cluster starts (the file survives a crash: the next run undoes it). */
export function recordHost(): HostRecord {
  const record = snapshotHost();
  mkdirSync(STATE_ROOT, { recursive: true });
  writeFileSync(HOST_STATE_FILE, JSON.stringify(record, null, 2));
  return record;
}

export function readRecord(): HostRecord | undefined {
  try {
    return JSON.parse(readFileSync(HOST_STATE_FILE, 'utf8')) as HostRecord;
  } catch {
    return undefined;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Cgroup folders named kubepods at the root of each hierarchy (v1 controllers and unified). */
function kubepodsCgroups(): string[] {
  if (!existsSync(CGROUP_ROOT)) return [];
  const out: string[] = [];
  for (const h of readdirSync(CGROUP_ROOT)) {
    const d = join(CGROUP_ROOT, h, 'kubepods');
    if (existsSync(d)) out.push(d);
  }
  if (existsSync(join(CGROUP_ROOT, 'kubepods'))) out.push(join(CGROUP_ROOT, 'kubepods'));
  return out;
}

function subdirsDeepestFirst(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    try {
      if (statSync(p).isDirectory()) out = out.concat(subdirsDeepestFirst(p));
    } catch {
      // raced with the kernel removing it
    }
  }
  out.push(dir);
  return out;
}

function pidsInCgroups(): number[] {
  const pids = new Set<number>();
  for (const root of kubepodsCgroups())
    for (const d of subdirsDeepestFirst(root)) {
      try {
        for (const p of pidsFromProcs(readFileSync(join(d, 'cgroup.procs'), 'utf8'), [
          process.pid,
          process.ppid,
        ]))
          pids.add(p);
      } catch {
        // gone meanwhile
      }
    }
  return [...pids];
}

/** The programs the cluster runs (a shell tailing a log under the state root is not one). */
const OUR_PROGRAMS = new Set([
  'etcd',
  'kube-apiserver',
  'containerd',
  'containerd-shim-runc-v2',
  'runc',
  'kubelet',
  'kube-controller-manager',
  'kube-scheduler',
  'kube-proxy',
]);

/** Our processes: one of our programs with the state root in its command line, or in a kubepods cgroup. */
function leftoverPids(): number[] {
  const ours = readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      const cmd = cmdline(pid);
      const program = cmd.split(' ')[0]?.split('/').pop() ?? '';
      return pid !== process.pid && OUR_PROGRAMS.has(program) && cmd.includes(STATE_ROOT);
    });
  return [...new Set([...ours, ...pidsInCgroups()])];
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function killLeftovers(): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const pids = leftoverPids();
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await sleep(250);
  }
}

function mountPoints(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m): m is string => !!m)
    .map((m) => m.replace(/\\040/g, ' '));
}

function unmountAll(record: HostRecord): void {
  for (let round = 0; round < 5; round++) {
    const mounts = mountsToUnmount(mountPoints(), STATE_ROOT, record.netns);
    if (mounts.length === 0) return;
    for (const m of mounts) if (tryRun('umount', [m]) === undefined) tryRun('umount', ['-l', m]);
  }
}

function removeCgroups(): void {
  for (const root of kubepodsCgroups())
    for (const d of subdirsDeepestFirst(root)) {
      try {
        rmdirSync(d);
      } catch {
        // still has processes: reported by whatIsLeft
      }
    }
}

function removeKubeChains(record: HostRecord): void {
  const now = iptablesChains();
  for (const [key, chains] of Object.entries(now)) {
    const before = record.iptablesChains[key] ?? [];
    const [cmd, table] = key.split(' ') as [string, string];
    const added = chains.filter((c) => c.startsWith('KUBE-') && !before.includes(c));
    if (added.length === 0) continue;
    // rules jumping to the chains first (they may sit in built-in chains), then the chains
    for (const rule of (tryRun(cmd, ['-w', '-t', table, '-S']) ?? '').split('\n')) {
      if (!rule.startsWith('-A ')) continue;
      if (!added.some((c) => rule.includes(` -j ${c}`) || rule.startsWith(`-A ${c} `))) continue;
      const args =
        rule
          .slice(3)
          .match(/"[^"]*"|\S+/g)
          ?.map((a) => a.replace(/^"|"$/g, '')) ?? [];
      tryRun(cmd, ['-w', '-t', table, '-D', ...args]);
    }
    for (const c of added) {
      tryRun(cmd, ['-w', '-t', table, '-F', c]);
      tryRun(cmd, ['-w', '-t', table, '-X', c]);
    }
  }
}

/**
 * A table that appeared during the run goes if it is kube-proxy's, or if it is an iptables-nft
 * table left empty once the KUBE-* chains are gone; one holding anything else belongs to
 * someone else on the machine (podman's netavark, a CI job's buildah) and stays.
 */
function removableTable(t: string): boolean {
  const [family, name] = t.split(' ') as [string, string];
  if (name === 'kube-proxy') return true;
  const cmd = family === 'ip' ? 'iptables' : family === 'ip6' ? 'ip6tables' : undefined;
  if (!cmd || !IPTABLES_TABLES.includes(name)) return false;
  const rules = tryRun(cmd, ['-w', '-t', name, '-S']);
  return (
    rules !== undefined &&
    rules.split('\n').every((l) => l === '' || (l.startsWith('-P ') && l.endsWith(' ACCEPT')))
  );
}

/**
 * Undoes everything the cluster did to the host (idempotent). Call after its processes were
 * asked to stop; whatever still runs is killed by pid. Returns what could not be undone.
 */
export async function undoHost(record: HostRecord): Promise<string[]> {
  await killLeftovers();
  unmountAll(record);
  for (const ns of netns())
    if (ns.startsWith('cni-') && !record.netns.includes(ns)) tryRun('ip', ['netns', 'delete', ns]);
  removeCgroups();
  // KUBE-* chains first: a new iptables-nft table is removable only once they are gone
  removeKubeChains(record);
  for (const t of tablesToDelete(nftTables(), record.nftTables, removableTable))
    tryRun('nft', ['delete', 'table', ...t.split(' ')]);
  if (tryRun('ip', ['link', 'show', BRIDGE]) !== undefined) tryRun('ip', ['link', 'delete', BRIDGE]);
  for (const [s, v] of Object.entries(record.sysctls)) {
    try {
      writeFileSync(join('/proc/sys', s), v);
    } catch {
      // reported by whatIsLeft
    }
  }
  for (const d of record.absentDirs) rmSync(d, { recursive: true, force: true });
  const left = whatIsLeft(record);
  if (left.length === 0) rmSync(STATE_ROOT, { recursive: true, force: true });
  return left;
}

/** What differs from the record (empty when the host is as it was). */
export function whatIsLeft(record: HostRecord): string[] {
  const now = snapshotHost();
  const left: string[] = [];
  for (const [s, v] of Object.entries(record.sysctls))
    if (now.sysctls[s] !== v) left.push(`sysctl ${s}=${now.sysctls[s]} (was ${v})`);
  for (const t of now.nftTables)
    if (!record.nftTables.includes(t) && removableTable(t)) left.push(`nft table ${t}`);
  for (const [key, chains] of Object.entries(now.iptablesChains))
    for (const c of chains)
      if (c.startsWith('KUBE-') && !(record.iptablesChains[key] ?? []).includes(c))
        left.push(`${key} chain ${c}`);
  for (const ns of now.netns)
    if (ns.startsWith('cni-') && !record.netns.includes(ns)) left.push(`netns ${ns}`);
  for (const d of record.absentDirs) if (existsSync(d)) left.push(`folder ${d}`);
  for (const c of kubepodsCgroups()) left.push(`cgroup ${c}`);
  for (const m of mountsToUnmount(mountPoints(), STATE_ROOT, record.netns)) left.push(`mount ${m}`);
  if (tryRun('ip', ['link', 'show', BRIDGE]) !== undefined) left.push(`link ${BRIDGE}`);
  for (const pid of leftoverPids()) left.push(`process ${pid} ${cmdline(pid).slice(0, 120)}`);
  return left;
}
