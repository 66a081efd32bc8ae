/**
 * One real cluster per machine: an exclusive flock(1) on LOCK_FILE, held by a `flock … cat`
 * child whose stdin is a pipe from this process. The lock goes away with this process however it
 * ends (the pipe closes, cat exits, flock exits), so a crashed run never leaves it held; a second
 * run (another CI job on the machine) waits here until the first has torn its cluster down.
 */
import { spawn } from 'node:child_process';

export interface MachineLock {
  release(): Promise<void>;
}

export async function takeMachineLock(file: string, log: (line: string) => void): Promise<MachineLock> {
  // A process group of its own: a Ctrl-C in the terminal must not release the lock while the
  // cluster is still being torn down.
  const child = spawn('flock', ['--exclusive', file, 'sh', '-c', 'echo locked; exec cat'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  let waiting: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve, reject) => {
    waiting = setTimeout(() => log(`waiting for ${file}: another real cluster runs on this machine`), 2000);
    child.stdout.once('data', () => resolve());
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`flock ${file} exited with ${code}`)));
  });
  clearTimeout(waiting);
  // Only the pipe keeps the lock: it must not keep this process alive by itself.
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  return {
    async release() {
      child.ref(); // keep the process alive until the lock is really gone
      child.stdin.end();
      await exited;
    },
  };
}
