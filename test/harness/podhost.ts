/**
 * Pod hosts: network namespaces joined to one bridge (a2abr0, 10.244.0.1/16), each with its
 * own private address, standing in for pods. The API server refuses loopback addresses in
 * EndpointSlices, and real pods have their own IPs, so agents under test run inside these.
 * Only addresses made here are ever dialled. A host can carry extra addresses (addAddress(),
 * addAddresses(n)), so one agent process can stand in for many pods: bound to 0.0.0.0, or with
 * listeners per address (the benchmark's multiplexed fleet, test/agents/fleet-server.ts).
 * Namespaces, links and address claims are removed on destroy() and, as a last resort, when
 * the test process exits.
 *
 * Opt-in IPv6 (`PodHost.create({ families: 'dual' | 'IPv6' })`): the bridge also carries
 * fd00:a2a::1/64 (a ULA prefix) and the host an address from it, beside its IPv4 one (dual) or
 * alone (IPv6). Addresses are added with `nodad` so they are usable at once.
 */
import { randomInt } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, type Managed } from './process.js';

const BRIDGE = 'a2abr0';
const BRIDGE_ADDR = '10.244.0.1';
const PREFIX = 16;
const BRIDGE_ADDR6 = 'fd00:a2a::1';
const PREFIX6 = 64;

/** Address families of a pod host: IPv4 only (default), IPv4 + IPv6 (IPv4 primary), IPv6 only. */
export type PodHostFamilies = 'IPv4' | 'dual' | 'IPv6';
const CLAIMS = '/run/a2a-podhosts';

function ip(args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryIp(args: string[]): boolean {
  try {
    ip(args);
    return true;
  } catch {
    return false;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Removes namespaces and address claims left behind by test processes that died. */
function sweepStale(): void {
  mkdirSync(CLAIMS, { recursive: true });
  for (const claim of readdirSync(CLAIMS)) {
    let owner = 0;
    let netns = '';
    try {
      [owner, netns] = JSON.parse(readFileSync(join(CLAIMS, claim, 'owner'), 'utf8')) as [number, string];
    } catch {
      continue;
    }
    if (!pidAlive(owner)) {
      if (netns) tryIp(['netns', 'del', netns]);
      rmSync(join(CLAIMS, claim), { recursive: true, force: true });
    }
  }
}

function ensureBridge(): void {
  if (!tryIp(['link', 'show', BRIDGE])) {
    tryIp(['link', 'add', BRIDGE, 'type', 'bridge']);
    tryIp(['addr', 'add', `${BRIDGE_ADDR}/${PREFIX}`, 'dev', BRIDGE]);
  }
  pinBridgeMac();
  ip(['link', 'set', BRIDGE, 'up']);
}

/**
 * A bridge whose MAC was never set takes the lowest MAC of its ports, so it changes whenever a
 * pod host joins or leaves; every namespace's cached ARP entry for the gateway then points at
 * a MAC nobody answers to, and connections to pods time out for seconds (a fleet of hundreds
 * of addresses hit this on every run). Setting the MAC to its current value pins it.
 */
function pinBridgeMac(): void {
  const sys = `/sys/class/net/${BRIDGE}`;
  try {
    if (readFileSync(`${sys}/addr_assign_type`, 'utf8').trim() === '3') return; // NET_ADDR_SET
    tryIp(['link', 'set', BRIDGE, 'address', readFileSync(`${sys}/address`, 'utf8').trim()]);
  } catch {
    // no sysfs: leave the bridge as it is
  }
}

/**
 * Drops the bridge's neighbour (ARP/NDP) entries for addresses about to be reused or just
 * released. An entry left from an address's previous owner points at a MAC that is gone, and
 * the kernel keeps sending there for several seconds (STALE -> DELAY -> PROBE) before it asks
 * again: a pod at a reused address would be unreachable for that long.
 */
function forgetNeighbours(addrs: readonly string[]): void {
  if (addrs.length === 0) return;
  try {
    // `flush to` (unlike `del`) is no error when there is no entry, so the batch runs to the end.
    execFileSync('ip', ['-batch', '-'], {
      input: addrs.map((a) => `neigh flush to ${a} dev ${BRIDGE}\n`).join(''),
      stdio: ['pipe', 'ignore', 'ignore'],
    });
  } catch {
    // no bridge yet: nothing to forget
  }
}

/** The bridge's IPv6 address, added once (an error means it is there already). */
function ensureBridge6(): void {
  tryIp(['-6', 'addr', 'add', `${BRIDGE_ADDR6}/${PREFIX6}`, 'dev', BRIDGE, 'nodad']);
}

let counter = 0;
const owned = new Set<PodHost>();
process.on('exit', () => {
  for (const h of owned) h.destroySync();
});

/** Claims `addr` for this process and `netns` if it is free (mkdir is the atomic lock). */
function tryClaim(addr: string, netns: string): boolean {
  const dir = join(CLAIMS, addr);
  try {
    mkdirSync(dir);
  } catch {
    return false;
  }
  writeFileSync(join(dir, 'owner'), JSON.stringify([process.pid, netns]));
  return true;
}

/** 10.244.1.2 .. 10.244.254.254, as slot numbers (x - 1) * 253 + (y - 2). */
const SLOTS = 254 * 253;
/**
 * Where the next claim starts looking: a fleet of thousands would otherwise rescan every taken
 * slot. It starts at a random slot, and moves on after each claim, so an address another test
 * process (or this one) just released is not handed out again at once: that process's operator
 * may still be probing it, and its connections would land on the new owner's listeners.
 */
let cursor = randomInt(SLOTS);

/** Claims a free 10.244.x.y address for this process. */
function claimAddress(netns: string): string {
  for (let i = 0; i < SLOTS; i++) {
    const slot = (cursor + i) % SLOTS;
    const addr = `10.244.${Math.floor(slot / 253) + 1}.${(slot % 253) + 2}`;
    if (tryClaim(addr, netns)) {
      cursor = (slot + 1) % SLOTS;
      return addr;
    }
  }
  throw new Error('no free pod address left in 10.244.0.0/16');
}

/** fd00:a2a::2 .. fd00:a2a::fffe, as slot numbers n - 2. */
const SLOTS6 = 0xffff - 2;
let cursor6 = randomInt(SLOTS6);

/** Claims a free fd00:a2a::/64 address for this process, like claimAddress. */
function claimAddress6(netns: string): string {
  for (let i = 0; i < SLOTS6; i++) {
    const n = 2 + ((cursor6 + i) % SLOTS6);
    const addr = `fd00:a2a::${n.toString(16)}`;
    if (tryClaim(addr, netns)) {
      cursor6 = (cursor6 + i + 1) % SLOTS6;
      return addr;
    }
  }
  throw new Error('no free pod address left in fd00:a2a::/64');
}

export class PodHost {
  readonly processes: Managed[] = [];
  /** Addresses added after the first one (addAddress()), in the order they were added. */
  readonly extraIps: string[] = [];
  private destroyed = false;

  private constructor(
    readonly netns: string,
    readonly ip: string,
    private readonly hostLink: string,
  ) {}

  /**
   * Creates a network namespace with its own address(es) on the shared bridge: IPv4 by default;
   * `families: 'dual'` adds an IPv6 address (`ip` stays the IPv4 one), `'IPv6'` gives it only an
   * IPv6 address (then `ip` is that).
   */
  static create(opts: { families?: PodHostFamilies } = {}): PodHost {
    if (process.getuid?.() !== 0) throw new Error('pod hosts need root (ip netns)');
    const families = opts.families ?? 'IPv4';
    sweepStale();
    ensureBridge();
    if (families !== 'IPv4') ensureBridge6();
    const n = counter++;
    const tag = `${process.pid.toString(36)}${n.toString(36)}`;
    const netns = `a2a-${tag}`;
    const hostLink = `ah${tag}`.slice(0, 15);
    const addr = families === 'IPv6' ? claimAddress6(netns) : claimAddress(netns);
    forgetNeighbours([addr]);
    ip(['netns', 'add', netns]);
    const host = new PodHost(netns, addr, hostLink);
    owned.add(host);
    try {
      ip(['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
      ip(['link', 'set', hostLink, 'master', BRIDGE, 'up']);
      if (families === 'IPv6') {
        ip(['-n', netns, '-6', 'addr', 'add', `${addr}/${PREFIX6}`, 'dev', 'eth0', 'nodad']);
      } else {
        ip(['-n', netns, 'addr', 'add', `${addr}/${PREFIX}`, 'dev', 'eth0']);
      }
      if (families === 'dual') host.addAddress6();
      ip(['-n', netns, 'link', 'set', 'eth0', 'up']);
      ip(['-n', netns, 'link', 'set', 'lo', 'up']);
      if (families !== 'IPv6') ip(['-n', netns, 'route', 'add', 'default', 'via', BRIDGE_ADDR]);
    } catch (err) {
      host.destroySync();
      throw err;
    }
    return host;
  }

  /** Every address of this host: the first one, then the extra ones. */
  get ips(): string[] {
    return [this.ip, ...this.extraIps];
  }

  /**
   * Adds one more address to the host's eth0 (claimed like the first one, released on
   * destroy) and returns it. A listener bound to 0.0.0.0 inside the namespace answers on it.
   */
  addAddress(): string {
    if (this.destroyed) throw new Error(`pod host ${this.netns} is destroyed`);
    const addr = claimAddress(this.netns);
    this.extraIps.push(addr); // recorded first, so destroy() releases the claim even if `ip` fails
    forgetNeighbours([addr]);
    ip(['-n', this.netns, 'addr', 'add', `${addr}/${PREFIX}`, 'dev', 'eth0']);
    return addr;
  }

  /**
   * Makes room in the kernel's IPv4 neighbour (ARP) table for `addresses` more pod addresses.
   * The table is shared by every namespace and holds 1,024 entries by default (gc_thresh3);
   * past it new entries are refused ("table full") and pods beyond the first thousand or so are
   * unreachable. Only ever raised, never lowered.
   */
  static reserveNeighbours(addresses: number): void {
    const dir = '/proc/sys/net/ipv4/neigh/default';
    const want = { gc_thresh1: 1024, gc_thresh2: addresses + 2048, gc_thresh3: addresses + 4096 };
    for (const [name, value] of Object.entries(want)) {
      const file = join(dir, name);
      if (Number(readFileSync(file, 'utf8')) < value) writeFileSync(file, String(value));
    }
  }

  /**
   * Adds `n` more addresses (each claimed like addAddress()) with one `ip -batch` call, so a
   * fleet of thousands of pod addresses is set up in seconds rather than one `ip` per address.
   */
  addAddresses(n: number): string[] {
    if (this.destroyed) throw new Error(`pod host ${this.netns} is destroyed`);
    const added: string[] = [];
    for (let i = 0; i < n; i++) {
      const addr = claimAddress(this.netns);
      this.extraIps.push(addr);
      added.push(addr);
    }
    if (added.length > 0) {
      forgetNeighbours(added);
      execFileSync('ip', ['-n', this.netns, '-batch', '-'], {
        input: added.map((a) => `addr add ${a}/${PREFIX} dev eth0\n`).join(''),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    }
    return added;
  }

  /** Adds an IPv6 address from fd00:a2a::/64 (claimed, released on destroy) and returns it. */
  addAddress6(): string {
    if (this.destroyed) throw new Error(`pod host ${this.netns} is destroyed`);
    ensureBridge6();
    const addr = claimAddress6(this.netns);
    this.extraIps.push(addr);
    forgetNeighbours([addr]);
    ip(['-n', this.netns, '-6', 'addr', 'add', `${addr}/${PREFIX6}`, 'dev', 'eth0', 'nodad']);
    return addr;
  }

  /** Removes one of the host's addresses from eth0 (it stays claimed until destroy()). */
  removeAddress(addr: string): void {
    const v6 = addr.includes(':');
    ip([
      '-n',
      this.netns,
      ...(v6 ? ['-6'] : []),
      'addr',
      'del',
      `${addr}/${v6 ? PREFIX6 : PREFIX}`,
      'dev',
      'eth0',
    ]);
  }

  /** Runs a command inside the namespace; its output goes to logFile. */
  exec(cmd: string, args: string[], logFile: string, env?: NodeJS.ProcessEnv): Managed {
    const p = startProcess('ip', ['netns', 'exec', this.netns, cmd, ...args], logFile, env);
    this.processes.push(p);
    return p;
  }

  /** Takes the pod's network down (link down) or up again, as a network partition would. */
  setLink(up: boolean): void {
    ip(['link', 'set', this.hostLink, up ? 'up' : 'down']);
  }

  async destroy(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop('SIGTERM', 3000)));
    this.destroySync();
  }

  destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    owned.delete(this);
    for (const p of this.processes) p.child.kill('SIGKILL');
    try {
      const pids = ip(['netns', 'pids', this.netns]).split('\n').filter(Boolean);
      for (const pid of pids) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    } catch {
      // namespace already gone
    }
    tryIp(['link', 'del', this.hostLink]);
    tryIp(['netns', 'del', this.netns]);
    forgetNeighbours(this.ips);
    for (const addr of this.ips) {
      const claim = join(CLAIMS, addr);
      if (existsSync(claim)) rmSync(claim, { recursive: true, force: true });
    }
  }
}
