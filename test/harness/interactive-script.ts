/**
 * Runs a script the way the README tells a person to (`npm run demo`, `npm run cluster`): in a
 * process group of its own, as a terminal's foreground job, with output captured; `interrupt()`
 * is Ctrl-C (SIGINT to the whole group). `leftovers()` lists what the script started and did not
 * remove: processes whose environment carries its temporary folder, the folder itself, and the
 * pod hosts (network namespaces, address claims) its processes claimed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from './binaries.js';

const CLAIMS = '/run/a2a-podhosts';

export interface InteractiveScript {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `re` in the output; rejects if the script exits first. */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Ctrl-C: SIGINT to the process group; resolves with the exit code. */
  interrupt(timeoutMs: number): Promise<number | null>;
}

export function runScript(script: string): InteractiveScript {
  // The script starts its own control plane: hide the test run's.
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('A2A_TEST_')) delete env[k];
  delete env.USE_EXISTING_CLUSTER;
  // The 'exit' hook below does not run if this process is SIGKILLed: the script watches us too.
  env.A2A_STOP_WITH_PID = String(process.pid);
  const child = spawn('npm', ['run', script], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Never leave a script running behind a failed test.
  process.once('exit', () => {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  return {
    child,
    output: () => out,
    waitFor(re, timeoutMs) {
      return new Promise((resolve, reject) => {
        const done = (err?: Error, m?: RegExpExecArray) => {
          listeners.delete(check);
          clearTimeout(timer);
          if (err) reject(err);
          else resolve(m!);
        };
        const check = () => {
          const m = re.exec(out);
          if (m) done(undefined, m);
          else if (child.exitCode !== null)
            done(new Error(`npm run ${script} exited ${child.exitCode} before ${re}:\n${out}`));
        };
        const timer = setTimeout(() => done(new Error(`no ${re} after ${timeoutMs} ms:\n${out}`)), timeoutMs);
        listeners.add(check);
        void exited.then(check);
        check();
      });
    },
    async interrupt(timeoutMs) {
      process.kill(-child.pid!, 'SIGINT');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/**
 * Pids of the script's live processes: its own process group (npm and the script), and every
 * process whose environment has TMPDIR=tmp (what the script started, in groups of their own).
 */
export function scriptProcesses(pgid: number, tmp: string): number[] {
  const needle = Buffer.from(`\0TMPDIR=${tmp}\0`);
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      const env = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${name}/environ`)]);
      if (pgrp === pgid || env.includes(needle)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export interface PodHostClaim {
  address: string;
  netns: string;
}

/** Address claims (and their network namespaces) held by the given pids. */
export function claimsOf(pids: number[]): PodHostClaim[] {
  if (!existsSync(CLAIMS)) return [];
  const owners = new Set(pids);
  return readdirSync(CLAIMS).flatMap((address) => {
    try {
      const [pid, netns] = JSON.parse(readFileSync(join(CLAIMS, address, 'owner'), 'utf8')) as [
        number,
        string,
      ];
      return owners.has(pid) ? [{ address, netns }] : [];
    } catch {
      return [];
    }
  });
}

/** What of `claims` is still there: claim folders and network namespaces. */
export function remainingPodHosts(claims: PodHostClaim[]): string[] {
  const netns = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(' ')[0]);
  return [
    ...claims.filter((c) => existsSync(join(CLAIMS, c.address))).map((c) => `claim ${c.address}`),
    ...[...new Set(claims.map((c) => c.netns))].filter((n) => netns.includes(n)).map((n) => `netns ${n}`),
  ];
}
