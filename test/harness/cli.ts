/**
 * Runs `a2a-operator <args>` as a subprocess, as a pipeline would, from the repository root.
 * Never rejects: the exit code is part of what the tests assert.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const REPO_ROOT = join(import.meta.dirname, '..', '..');

export function runCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { cwd: REPO_ROOT, timeout: 60_000 },
      (err, stdout, stderr) => {
        // A spawn failure or timeout has no numeric code; -1 keeps it distinct from every exit.
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `runCli` plus its wall time in ms, for tests that bound how long a check takes. */
export async function runCliTimed(args: string[]): Promise<{ result: CliResult; ms: number }> {
  const started = performance.now();
  const result = await runCli(args);
  return { result, ms: performance.now() - started };
}
