/**
 * `buildImages(log)`: the two images the real-pod tests run, built with buildah against the local
 * Node base and exported as docker-archive tars under .cache/images/<name>-<hash>.tar, rebuilt
 * only when their inputs change. Tags are the content hash (never `latest`), so a pod with
 * `imagePullPolicy: IfNotPresent` never tries a registry.
 *
 * - operator: the repository's Dockerfile, unmodified (`--pull=never` finds the local base).
 * - agent: the test agents of both SDK runtimes: test/agents/agent-server.ts bundled with its
 *   node_modules into one ES module (esbuild, on the host: no npm in the build, nothing but the
 *   agent's own code and dependencies in the image), and the Go agent binary from
 *   buildGoAgent (linked against glibc only, which bookworm has). Entrypoint: the JS agent;
 *   `/app/go-agent '<AgentConfig json>'` as the command runs the Go one. Also the SDK client
 *   of the traffic test, test/agents/traffic-client.ts, bundled likewise:
 *   `node /app/traffic-client.mjs '<options json>'` as the command.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { buildSync } from 'esbuild';
import { REPO_ROOT, buildGoAgent } from '../binaries.js';
import { buildah, buildahMissing, exportArchive, inspectImage, runtimePath } from './buildah.js';
import { buildTrustArgs } from './build-trust.js';
import { contentHash } from './content-hash.js';
import { NODE_BASE_REF, ensureNodeBase } from './node-base.js';

export const IMAGES_DIR = join(REPO_ROOT, '.cache', 'images');

export interface BuiltImage {
  /** Name in buildah's storage and in the tar (`localhost/<name>:<hash>`). */
  ref: string;
  /** docker-archive tar: `ctr -n k8s.io images import`, `docker load`, `kind load image-archive`. */
  tar: string;
}

export interface BuiltImages {
  operator: BuiltImage;
  agent: BuiltImage;
}

/** Files the operator image is built from: what the Dockerfile COPYs, plus the Dockerfile. */
export const OPERATOR_INPUTS = [
  'Dockerfile',
  '.dockerignore',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.ts',
  'src',
  'crds',
];

const AGENT_CONTAINERFILE = `FROM ${NODE_BASE_REF}
WORKDIR /app
COPY agent-server.mjs traffic-client.mjs go-agent ./
USER 65532:65532
ENTRYPOINT ["node", "/app/agent-server.mjs"]
`;

function esbuildVersion(): string {
  return (
    JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', 'esbuild', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
}

/**
 * The image named `ref` as a tar at `tar`: nothing to do when the tar exists (it is loaded into
 * buildah's storage if that lost it, so the image checks can inspect it), otherwise `build()`
 * then export.
 */
function ensureImage(ref: string, tar: string, build: () => void, log: (line: string) => void): BuiltImage {
  if (existsSync(tar)) {
    if (!inspectImage(ref)) buildah(['pull', '--quiet', `docker-archive:${tar}`], { quiet: true });
    return { ref, tar };
  }
  mkdirSync(IMAGES_DIR, { recursive: true });
  if (!inspectImage(ref)) {
    const started = Date.now();
    log(`building ${ref}`);
    build();
    log(`built ${ref} in ${Math.round((Date.now() - started) / 1000)}s`);
  }
  exportArchive(ref, tar);
  pruneArchives(tar);
  return { ref, tar };
}

/**
 * Removes older archives of the same image (same name before the hash) not touched for a day:
 * .cache is shared by worktrees, so a recent one may still be another checkout's current image.
 */
function pruneArchives(current: string): void {
  const prefix = basename(current).replace(/-[^-]+\.tar$/, '-');
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(IMAGES_DIR)) {
    const p = join(IMAGES_DIR, name);
    if (p === current || !name.startsWith(prefix) || !/^[0-9a-f]{16}\.tar$/.test(name.slice(prefix.length)))
      continue;
    if (statSync(p).mtimeMs < dayAgo) rmSync(p, { force: true });
  }
}

export function withScratchDir<T>(prefix: string, fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `buildah bud` arguments that build `dockerfile` against the local base (never a registry), with
 * the host's trust mounted into RUN steps only (build-trust.ts); `scratch` holds the npmrc.
 */
export function localBaseBudArgs(
  ref: string,
  dockerfile: string,
  context: string,
  scratch: string,
): string[] {
  return [
    'bud',
    // remove the build's containers even when a step fails (the default keeps them then)
    '--force-rm',
    '--pull=never',
    '--runtime',
    runtimePath(),
    '--network',
    'host',
    '--layers',
    ...buildTrustArgs(scratch),
    '--file',
    dockerfile,
    '--tag',
    ref,
    context,
  ];
}

/** The operator image from the repository's Dockerfile, as is. */
export function buildOperatorImage(baseKey: string, log: (line: string) => void): BuiltImage {
  const hash = contentHash(REPO_ROOT, [`base ${baseKey}`, 'operator recipe 1'], OPERATOR_INPUTS);
  const ref = `localhost/a2a-operator:${hash}`;
  return ensureImage(
    ref,
    join(IMAGES_DIR, `a2a-operator-${hash}.tar`),
    () =>
      withScratchDir('a2a-operator-build-', (scratch) =>
        buildah(localBaseBudArgs(ref, join(REPO_ROOT, 'Dockerfile'), REPO_ROOT, scratch), { inherit: true }),
      ),
    log,
  );
}

/** Programs bundled into the agent image, each to /app/<name>.mjs (see the file comment). */
const AGENT_BUNDLES = ['agent-server', 'traffic-client'];

/** The test agents of both runtimes and the traffic client (see the file comment). */
export function buildAgentImage(baseKey: string, log: (line: string) => void): BuiltImage {
  const goAgent = buildGoAgent(log);
  const hash = contentHash(
    REPO_ROOT,
    [
      `base ${baseKey}`,
      'agent recipe 2',
      `esbuild ${esbuildVersion()}`,
      basename(dirname(goAgent)),
      AGENT_CONTAINERFILE,
    ],
    // the traffic client's message builder lives in src/client
    ['test/agents', 'src/client/text-message.ts', 'package-lock.json'],
  );
  const ref = `localhost/a2a-test-agent:${hash}`;
  return ensureImage(
    ref,
    join(IMAGES_DIR, `a2a-test-agent-${hash}.tar`),
    () =>
      withScratchDir('a2a-agent-build-', (ctx) => {
        buildSync({
          entryPoints: AGENT_BUNDLES.map((name) => join(REPO_ROOT, 'test', 'agents', `${name}.ts`)),
          outdir: ctx,
          outExtension: { '.js': '.mjs' },
          bundle: true,
          platform: 'node',
          format: 'esm',
          target: 'node24',
          logLevel: 'warning',
          // CommonJS dependencies call require(); an ES module has none of its own.
          banner: {
            js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
          },
        });
        copyFileSync(goAgent, join(ctx, 'go-agent'));
        writeFileSync(join(ctx, 'Containerfile'), AGENT_CONTAINERFILE);
        buildah(
          [
            'bud',
            // buildah refuses --force-rm without --layers or --no-cache
            '--force-rm',
            '--layers',
            '--pull=never',
            '--runtime',
            runtimePath(),
            '--network',
            'none',
            '--file',
            join(ctx, 'Containerfile'),
            '--tag',
            ref,
            ctx,
          ],
          { inherit: true },
        );
      }),
    log,
  );
}

/** Both images (see the file comment); throws with the reason when buildah cannot be used. */
export function buildImages(log: (line: string) => void = () => {}): BuiltImages {
  const missing = buildahMissing();
  if (missing) throw new Error(missing);
  const base = ensureNodeBase(log);
  return { operator: buildOperatorImage(base.key, log), agent: buildAgentImage(base.key, log) };
}
