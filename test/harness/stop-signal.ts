/**
 * The life of a script a person starts and stops with Ctrl-C (`npm run demo`, `npm run
 * cluster`): it stays up until SIGINT or SIGTERM, then cleans up through its own path and exits
 * 0; a second Ctrl-C while it cleans up forces the exit (the harness's 'exit' hooks then kill
 * the children and remove the pod hosts they can).
 *
 * - A ref'd timer keeps the process alive: a pending promise alone does not, and Node would end
 *   with "unsettled top-level await" (exit 13) right after the script says it is up.
 * - Children start in process groups of their own, so the terminal's SIGINT reaches only the
 *   script, which stops them in order (operator before API server).
 * - `npm run` relays SIGINT to its script while the terminal sends it to the whole foreground
 *   group: one keypress arrives twice within milliseconds. A repeat within a second is that
 *   echo; a later one is a person pressing Ctrl-C again. (The package.json scripts `exec` node:
 *   with `sh -c` in between, the shell dies of the SIGINT and npm exits 130 whatever the script
 *   does.)
 * - Everything the harness writes under the temporary folder (control plane, logs, certificates)
 *   goes under one folder of the script's, removed at the end.
 * - A script started by a test runs in a process group of its own, so a test process that is
 *   SIGKILLed cannot take it along: with `A2A_STOP_WITH_PID` set, the script watches that process
 *   and stops itself (as on SIGTERM) once it is gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildrenInOwnGroups } from './process.js';

const ECHO_MS = 1000;
const WATCH_MS = 1000;
const EXIT_CODE: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

export class StopRequested extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`stopped by ${signal}`);
  }
}

export interface StopSignal {
  /** Resolves with the first SIGINT or SIGTERM. */
  readonly stopped: Promise<NodeJS.Signals>;
  /** Throws StopRequested once a stop was asked for: call between the steps of a long start. */
  checkpoint(): void;
  /** The script's own temporary folder (TMPDIR for the harness and every child). */
  readonly tmp: string;
  /** Removes the temporary folder; call last, after every child has stopped. */
  removeTmp(): void;
}

export function stopOnSignal(prefix: string): StopSignal {
  startChildrenInOwnGroups();
  const tmp = mkdtempSync(join(tmpdir(), `${prefix}-`));
  process.env.TMPDIR = tmp;
  setInterval(() => {}, 1 << 30);
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  let resolve!: (s: NodeJS.Signals) => void;
  const stopped = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const onSignal = (signal: NodeJS.Signals): void => {
    const now = Date.now();
    if (!first) {
      first = { signal, at: now };
      process.stdout.write('\nstopping (Ctrl-C again to force) ...\n');
      resolve(signal);
      return;
    }
    if (now - first.at < ECHO_MS) return;
    process.stderr.write(`forced exit on a second ${signal}\n`);
    rmSync(tmp, { recursive: true, force: true });
    process.exit(EXIT_CODE[signal] ?? 1);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const watched = Number(process.env.A2A_STOP_WITH_PID);
  if (Number.isSafeInteger(watched) && watched > 1) {
    const watch = setInterval(() => {
      if (isAlive(watched)) return;
      clearInterval(watch);
      process.stdout.write(`\nprocess ${watched} that started this script is gone\n`);
      onSignal('SIGTERM');
    }, WATCH_MS);
  }
  return {
    stopped,
    tmp,
    checkpoint() {
      if (first) throw new StopRequested(first.signal);
    },
    removeTmp() {
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
