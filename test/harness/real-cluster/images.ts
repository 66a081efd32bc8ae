/**
 * Images made here without a registry: buildah from scratch → copy → config → commit → push
 * docker-archive:, in a storage of its own under a temporary folder (the machine's buildah
 * storage is untouched). Each archive is cached in .cache/bin/<prefix>-<hash of its inputs>/
 * image.tar, built once and renamed into place (safe across processes).
 *
 * - the pause (sandbox) image: build/pause/linux/pause.c from the k8s.io/kubernetes module
 *   (Go's module cache) compiled with `gcc -static`;
 * - a kubectl image: the control plane's kubectl with the two glibc files it links, for pods
 *   that talk to the API server through the `kubernetes` Service (in-cluster config).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryPath, KUBERNETES_VERSION, REPO_ROOT } from '../binaries.js';

/** The version pause.c's Makefile stamps (build/pause/Makefile TAG). */
const PAUSE_TAG = '3.10.2';
/** The name containerd's sandbox_image and pods refer to. */
export const PAUSE_IMAGE = `a2a.local/pause:${PAUSE_TAG}`;
export const KUBECTL_IMAGE = `a2a.local/kubectl:${KUBERNETES_VERSION}`;

interface ScratchImage {
  name: string;
  prefix: string;
  /** host path → path in the image */
  files: [string, string][];
  entrypoint: string[];
}

function buildScratchImage(img: ScratchImage, log: (line: string) => void): string {
  const h = createHash('sha256').update(img.name).update(JSON.stringify(img.entrypoint));
  for (const [from, to] of img.files) h.update(to).update(readFileSync(from));
  const dir = join(REPO_ROOT, '.cache', 'bin', `${img.prefix}-${h.digest('hex').slice(0, 16)}`);
  const tar = join(dir, 'image.tar');
  if (existsSync(tar)) return tar;
  log(`building the image ${img.name} into ${tar}`);
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), `a2a-${img.prefix}-`));
  try {
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
    for (const [from, to] of img.files) buildah(['copy', ctr, from, to]);
    buildah(['config', '--entrypoint', JSON.stringify(img.entrypoint), '--user', '65535:65535', ctr]);
    buildah(['commit', ctr, img.name]);
    const tmpDir = `${dir}.tmp-${process.pid}`;
    mkdirSync(tmpDir, { recursive: true });
    buildah(['push', img.name, `docker-archive:${join(tmpDir, 'image.tar')}:${img.name}`]);
    try {
      renameSync(tmpDir, dir);
    } catch {
      rmSync(tmpDir, { recursive: true, force: true }); // another process made the same archive
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  log(`${img.name} built in ${Math.round((Date.now() - started) / 1000)}s`);
  return tar;
}

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
  const work = mkdtempSync(join(tmpdir(), 'a2a-pause-bin-'));
  try {
    // gcc output is reproducible enough for the cache key: same source, same compiler
    const bin = join(work, 'pause');
    execFileSync('gcc', ['-Os', '-static', '-Wall', '-Werror', `-DVERSION=v${PAUSE_TAG}`, '-o', bin, src]);
    execFileSync('strip', [bin]);
    return buildScratchImage(
      { name: PAUSE_IMAGE, prefix: 'pause', files: [[bin, '/pause']], entrypoint: ['/pause'] },
      log,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Path of the kubectl image's docker-archive tar, built on first use. */
export function buildKubectlImage(log: (line: string) => void = () => {}): string {
  const libs = execFileSync('ldd', [binaryPath('kubectl')], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /(\/\S+) \(0x/.exec(l)?.[1])
    .filter((p): p is string => !!p);
  return buildScratchImage(
    {
      name: KUBECTL_IMAGE,
      prefix: 'kubectl-image',
      files: [[binaryPath('kubectl'), '/kubectl'], ...libs.map((l): [string, string] => [l, l])],
      entrypoint: ['/kubectl'],
    },
    log,
  );
}
