/**
 * Runs one command in an image the way a pod with `readOnlyRootFilesystem: true` and a numeric
 * `runAsUser` would: runc on the image's root filesystem (a buildah working container's mount),
 * mounted read-only, as the image's configured user, with no capabilities, in fresh namespaces
 * (its own network namespace: the command reaches nothing), from the image's working directory
 * and environment. The container, its runc state and the mount are removed before returning.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildah, inspectImage, runtimePath } from './buildah.js';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `User` of an image config ("65532:65532", "65532") as numbers; names are refused (not verifiable by Kubernetes). */
export function numericUser(user: string | undefined): { uid: number; gid: number } {
  const m = /^(\d+)(?::(\d+))?$/.exec(user ?? '');
  if (!m) throw new Error(`image user ${JSON.stringify(user)} is not numeric`);
  const uid = Number(m[1]);
  return { uid, gid: m[2] === undefined ? uid : Number(m[2]) };
}

export interface RunOptions {
  /**
   * SIGTERM after this long (the result's code is then the command's answer to SIGTERM); SIGKILL
   * if it is still running KILL_GRACE_MS later, so a run always ends.
   */
  timeoutMs?: number;
  /** SIGTERM as soon as stdout matches (for servers: stop once they say they are up). */
  stopWhen?: RegExp;
}

/** How long a stopped command may take to exit on SIGTERM before it is killed. */
const KILL_GRACE_MS = 10_000;

export async function runInImage(ref: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const image = inspectImage(ref);
  if (!image) throw new Error(`no image ${ref} in buildah's storage`);
  const { uid, gid } = numericUser(image.config.User);
  const runc = runtimePath();
  const bundle = mkdtempSync(join(tmpdir(), 'a2a-run-in-image-'));
  const ctr = buildah(['from', '--pull=never', '--quiet', ref], { quiet: true }).trim();
  const id = `a2a-image-check-${process.pid}-${Date.now()}`;
  try {
    const rootfs = buildah(['mount', ctr], { quiet: true }).trim();
    spawnSync(runc, ['spec', '--bundle', bundle], { stdio: 'ignore' });
    const spec = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as {
      root: { path: string; readonly: boolean };
      process: Record<string, unknown>;
    };
    spec.root = { path: rootfs, readonly: true };
    spec.process = {
      ...spec.process,
      terminal: false,
      user: { uid, gid },
      args,
      env: image.config.Env ?? [],
      cwd: image.config.WorkingDir || '/',
      capabilities: { bounding: [], effective: [], permitted: [], ambient: [] },
    };
    writeFileSync(join(bundle, 'config.json'), JSON.stringify(spec));
    // runc forwards the signals it gets to the container's process.
    const child = spawn(runc, ['run', '--bundle', bundle, id], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (killTimer) return;
      child.kill('SIGTERM');
      // a command ignoring SIGTERM: kill the container, then runc itself
      killTimer = setTimeout(() => {
        spawnSync(runc, ['kill', id, 'KILL'], { stdio: 'ignore' });
        child.kill('SIGKILL');
      }, KILL_GRACE_MS);
    };
    const timer = setTimeout(stop, opts.timeoutMs ?? 60_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (opts.stopWhen?.test(stdout)) stop();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    clearTimeout(timer);
    clearTimeout(killTimer);
    return { code, stdout, stderr };
  } finally {
    // Idempotent: the container may be gone already.
    spawnSync(runc, ['delete', '--force', id], { stdio: 'ignore' });
    buildah(['umount', ctr], { quiet: true });
    buildah(['rm', ctr], { quiet: true });
    rmSync(bundle, { recursive: true, force: true });
  }
}
