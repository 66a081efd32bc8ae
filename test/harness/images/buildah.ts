/**
 * The few buildah calls the image builds make, as root against buildah's default storage.
 *
 * runc, not buildah's default runtime lookup: crun refuses cgroups in hybrid mode, which is what
 * these machines have. RUN steps join the host network (`--network host`): the default would
 * create a CNI bridge and netfilter rules on the host, side effects nothing here needs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Absolute path of an executable on PATH, or undefined. */
export function which(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** Why buildah cannot be used here, or undefined when it can. */
export function buildahMissing(): string | undefined {
  if (!which('buildah')) return 'buildah is not installed (apt-get install buildah)';
  if (!which('runc')) return 'runc is not installed (apt-get install runc)';
  return undefined;
}

export function runtimePath(): string {
  const runc = which('runc');
  if (!runc) throw new Error('runc is not installed (apt-get install runc)');
  return runc;
}

/**
 * Runs buildah and returns its stdout; its stderr goes to ours unless `quiet`. With `inherit`
 * (long builds) both go to ours and the result is empty.
 */
export function buildah(
  args: string[],
  opts: { quiet?: boolean; inherit?: boolean; cwd?: string } = {},
): string {
  const out = execFileSync('buildah', args, {
    encoding: 'utf8',
    cwd: opts.cwd,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', opts.inherit ? 'inherit' : 'pipe', opts.quiet ? 'pipe' : 'inherit'],
  });
  return out ?? '';
}

export interface ImageInfo {
  /** The image config (OCI): User, Entrypoint, Env, Labels... */
  config: {
    User?: string;
    Entrypoint?: string[];
    Cmd?: string[];
    Env?: string[];
    WorkingDir?: string;
    Labels?: Record<string, string>;
  };
  /** The whole `buildah inspect` document, for checks that read history or other fields. */
  raw: Record<string, unknown>;
}

/** `buildah inspect` of an image in local storage, or undefined when there is none by that name. */
export function inspectImage(ref: string): ImageInfo | undefined {
  let out: string;
  try {
    out = buildah(['inspect', '--type', 'image', ref], { quiet: true });
  } catch {
    return undefined;
  }
  const raw = JSON.parse(out) as Record<string, unknown> & { OCIv1?: { config?: ImageInfo['config'] } };
  return { config: raw.OCIv1?.config ?? {}, raw };
}

/**
 * Runs `fn` with a working container made from `from` and always removes the container, so no
 * buildah container (or its overlay mount) is left behind even when `fn` throws.
 */
export function withContainer<T>(from: string, fn: (ctr: string) => T): T {
  const ctr = buildah(['from', '--pull=never', '--quiet', from], { quiet: true }).trim();
  try {
    return fn(ctr);
  } finally {
    buildah(['rm', ctr], { quiet: true });
  }
}

/**
 * Exports an image as a docker-archive tar (what `ctr images import`, `docker load` and
 * `kind load image-archive` take), written beside `tar` and renamed into place so a reader never
 * sees half a file.
 */
export function exportArchive(ref: string, tar: string): void {
  const tmp = `${tar}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  try {
    buildah(['push', '--quiet', ref, `docker-archive:${tmp}:${ref}`], { quiet: true });
    renameSync(tmp, tar);
  } finally {
    rmSync(tmp, { force: true });
  }
}
