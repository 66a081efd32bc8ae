/**
 * Child processes of the harness: started with their output kept in a log file, stopped with
 * SIGTERM then SIGKILL, and killed when the test process exits however it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});
// SIGTERM ends a process without 'exit' (Node 20's test runner ends a test file that outran its
// bound this way, scripts/test-timeout.ts): exit instead, so the children go with it, unless the
// process handles SIGTERM itself (stop-signal.ts, run-e2e.ts).
process.once('SIGTERM', () => {
  if (process.listenerCount('SIGTERM') === 0) process.exit(143);
});

// Tests leave children in their own process group, so a Ctrl-C on `npm test` reaches them too.
// Scripts a person stops with Ctrl-C set this (stop-signal.ts): their children get groups of
// their own and are stopped by the script, in order.
let ownGroups = false;

/** Children started from now on get a process group of their own (see stop-signal.ts). */
export function startChildrenInOwnGroups(): void {
  ownGroups = true;
}

export interface Managed {
  child: ChildProcess;
  logFile: string;
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
  exited: Promise<number | null>;
  tail(lines?: number): string;
}

export function startProcess(cmd: string, args: string[], logFile: string, env?: NodeJS.ProcessEnv): Managed {
  const fd = openSync(logFile, 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', fd, fd], env: env ?? process.env, detached: ownGroups });
  closeSync(fd);
  child.unref();
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  const tail = (lines = 30): string => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // Keep the event loop alive until the child is gone (it is unref'd otherwise), so a test
    // awaiting stop() is not ended early by node:test.
    child.ref();
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { child, logFile, stop, exited, tail };
}
