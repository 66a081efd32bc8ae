// `a2a-operator/client` as a consumer gets it: the package name resolves through package.json
// "exports" to the built entry, which (built here by `npm run build`'s script into a temporary
// folder of the checkout) loads as plain ESM with its declarations beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

void test('the package name resolves a2a-operator/client to dist/client/index.js', () => {
  assert.equal(
    import.meta.resolve('a2a-operator/client'),
    pathToFileURL(join(root, 'dist/client/index.js')).href,
  );
});

void test('the build emits dist/client/index.js with its .d.ts, and the entry loads as a consumer imports it', async () => {
  // Inside the checkout, so the built files resolve their dependencies from its node_modules.
  const out = mkdtempSync(join(root, '.client-build-'));
  try {
    execFileSync(
      process.execPath,
      [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'scripts/build.ts'), '--out-dir', out],
      { cwd: root, stdio: 'pipe' },
    );
    assert.ok(existsSync(join(out, 'client/index.d.ts')), 'declarations for the client entry');
    assert.ok(existsSync(join(out, 'cli/main.js')), 'the bin (the bundled CLI) still builds');
    const mod = (await import(pathToFileURL(join(out, 'client/index.js')).href)) as Record<string, unknown>;
    assert.equal(typeof mod.FailoverClient, 'function');
    assert.equal(typeof mod.FailoverCallError, 'function');
    assert.equal((mod.CallOutcome as Record<string, string>).AuthRequired, 'AuthRequired');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
