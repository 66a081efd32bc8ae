/**
 * The pause (sandbox) image, made here without a registry: build/pause/linux/pause.c from the
 * k8s.io/kubernetes module (Go's module cache, test/node pins it) compiled with `gcc -static`,
 * wrapped by buildah (from scratch → copy → commit → push docker-archive:) in a storage of its
 * own under a temporary folder, so the machine's buildah storage is untouched. The archive is
 * cached in .cache/bin/pause-<hash of pause.c>/pause.tar (built once, renamed into place, safe
 * across processes).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBERNETES_VERSION, REPO_ROOT } from '../binaries.js';

/** The version pause.c's Makefile stamps (build/pause/Makefile TAG). */
const PAUSE_TAG = '3.10.2';
/** The name containerd's sandbox_image and pods refer to. */
export const PAUSE_IMAGE = `a2a.local/pause:${PAUSE_TAG}`;

function pauseSource(): string {
  const modDir = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const src = join(modDir, `k8s.io/kubernetes@${KUBERNETES_VERSION}`, 'build', 'pause', 'linux', 'pause.c');
  if (!existsSync(src)) {
    execFileSync('go', ['mod', 'download', `k8s.io/kubernetes@${KUBERNETES_VERSION}`], {
      cwd: join(REPO_ROOT, 'test', 'node'),
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  return src;
}

/** Path of the pause image's docker-archive tar, built on first use. */
export function buildPauseImage(log: (line: string) => void = () => {}): string {
  const src = pauseSource();
  const hash = createHash('sha256').update(readFileSync(src)).update(PAUSE_IMAGE).digest('hex').slice(0, 16);
  const dir = join(REPO_ROOT, '.cache', 'bin', `pause-${hash}`);
  const tar = join(dir, 'pause.tar');
  if (existsSync(tar)) return tar;
  log(`building the pause image ${PAUSE_IMAGE} into ${tar}`);
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'a2a-pause-'));
  try {
    const bin = join(work, 'pause');
    execFileSync('gcc', ['-Os', '-static', '-Wall', '-Werror', `-DVERSION=v${PAUSE_TAG}`, '-o', bin, src]);
    execFileSync('strip', [bin]);
    const storage = [
      '--root',
      join(work, 'storage'),
      '--runroot',
      join(work, 'run'),
      '--storage-driver',
      'vfs',
    ];
    const buildah = (args: string[]): string =>
      execFileSync('buildah', [...storage, ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }).trim();
    const ctr = buildah(['from', 'scratch']);
    buildah(['copy', ctr, bin, '/pause']);
    buildah(['config', '--entrypoint', '["/pause"]', '--user', '65535:65535', ctr]);
    buildah(['commit', ctr, PAUSE_IMAGE]);
    const tmpDir = `${dir}.tmp-${process.pid}`;
    mkdirSync(tmpDir, { recursive: true });
    buildah(['push', PAUSE_IMAGE, `docker-archive:${join(tmpDir, 'pause.tar')}:${PAUSE_IMAGE}`]);
    try {
      renameSync(tmpDir, dir);
    } catch {
      rmSync(tmpDir, { recursive: true, force: true }); // another process made the same archive
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(`pause image built in ${Math.round((Date.now() - started) / 1000)}s`);
  return tar;
}
