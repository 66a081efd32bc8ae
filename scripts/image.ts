// `npm run image`: builds the operator image from the Dockerfile for a user (docker when an
// engine answers, buildah otherwise; `--local-base` makes the Node base here and never pulls) and
// prints how to load it into a cluster and install the chart with it. Options: scripts/image-usage.ts.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/harness/binaries.js';
import { buildah, buildahMissing, exportArchive, which } from '../test/harness/images/buildah.js';
import {
  IMAGES_DIR,
  OPERATOR_INPUTS,
  localBaseBudArgs,
  withScratchDir,
} from '../test/harness/images/build.js';
import { contentHash } from '../test/harness/images/content-hash.js';
import { ensureNodeBase } from '../test/harness/images/node-base.js';
import { IMAGE_HELP, imageUsage, parseImageArgs, type Builder } from './image-usage.js';

function dockerEngineAnswers(): boolean {
  if (!which('docker')) return false;
  return spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 15_000 }).status === 0;
}

let opts;
try {
  opts = parseImageArgs(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
if (opts.help) {
  process.stdout.write(IMAGE_HELP);
  process.exit(0);
}

const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
const tag =
  opts.tag ?? `${version}-${contentHash(REPO_ROOT, ['operator image'], OPERATOR_INPUTS).slice(0, 12)}`;
const ref = `${opts.repository}:${tag}`;
const builder: Builder = opts.builder ?? (!opts.localBase && dockerEngineAnswers() ? 'docker' : 'buildah');
const started = Date.now();

try {
  if (builder === 'docker') {
    execFileSync('docker', ['build', '--tag', ref, REPO_ROOT], { stdio: 'inherit' });
    process.stdout.write(`\n${imageUsage({ repository: opts.repository, tag, builder })}`);
  } else {
    const missing = buildahMissing();
    if (missing) throw new Error(`no Docker engine answers and ${missing}`);
    const dockerfile = join(REPO_ROOT, 'Dockerfile');
    if (opts.localBase) {
      ensureNodeBase((line) => console.log(line));
      withScratchDir('a2a-image-', (scratch) =>
        buildah(localBaseBudArgs(ref, dockerfile, REPO_ROOT, scratch), { inherit: true }),
      );
    } else {
      // A user's machine: pull node:24-bookworm-slim as usual. runc when present (crun refuses
      // cgroup v1 hybrid hosts).
      const runtime = which('runc') ? ['--runtime', which('runc')!] : [];
      buildah(['bud', '--force-rm', ...runtime, '--layers', '--file', dockerfile, '--tag', ref, REPO_ROOT], {
        inherit: true,
      });
    }
    mkdirSync(IMAGES_DIR, { recursive: true });
    const archive = join(IMAGES_DIR, `${opts.repository.split('/').pop()}-${tag}.tar`);
    exportArchive(ref, archive);
    process.stdout.write(`\n${imageUsage({ repository: opts.repository, tag, builder, archive })}`);
  }
  process.stdout.write(`(${Math.round((Date.now() - started) / 1000)}s)\n`);
} catch (err) {
  process.stderr.write(`npm run image: ${(err as Error).message}\n`);
  process.exit(1);
}
