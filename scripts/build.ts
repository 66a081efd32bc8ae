// `npm run build [-- --out-dir DIR]`: tsc emits DIR (default dist/): the `a2a-operator/client`
// library and its types. Then esbuild bundles the CLI, with every dependency, into DIR/cli/: main.js
// plus chunks each command loads when it runs. Why a bundle: `@kubernetes/client-node`'s entry
// loads its whole generated API (15 MiB of module source on the heap) though the operator uses
// KubeConfig and Watch; tree-shaken, the loaded operator holds about 50 MiB less RSS and loads in
// a third of the CPU (docs/benchmarks.md, sixth pass). The bundle needs no node_modules at run
// time, so the image carries none.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { 'out-dir': { type: 'string', default: 'dist' } } });
const outDir = resolve(REPO_ROOT, values['out-dir']);

execFileSync(
  process.execPath,
  [
    join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    join(REPO_ROOT, 'tsconfig.build.json'),
    '--outDir',
    outDir,
  ],
  { stdio: 'inherit' },
);

// Chunk names carry content hashes: without this, every build would leave the last one's behind.
rmSync(join(outDir, 'cli'), { recursive: true, force: true });
await build({
  entryPoints: [join(REPO_ROOT, 'src', 'cli', 'main.ts')],
  outdir: join(outDir, 'cli'),
  bundle: true,
  splitting: true, // `run` and `check` are loaded lazily (src/cli/main.ts): each loads only its own
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS dependencies call require() for Node's built-ins; an ES module has none.
  banner: {
    js: "import { createRequire as __a2aCreateRequire } from 'node:module'; const require = __a2aCreateRequire(import.meta.url);",
  },
  // No keepNames: it wraps every function made at run time (each closure) in a defineProperty call.
  // Whitespace and comments go: V8 keeps each module's source text on the heap for the process's
  // life, and one non-Latin-1 character in a comment (a dependency's `’`) stores a whole chunk at
  // two bytes a character: 11.1 -> 4.0 MiB of heap. Identifiers stay, so stack traces keep their
  // function names; the linked source map gives files and lines (node --enable-source-maps).
  minifyWhitespace: true,
  // The licence notices esbuild would keep inline go to one file per chunk beside it.
  legalComments: 'linked',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
