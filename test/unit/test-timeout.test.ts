// The suite's runners bound each test (scripts/test-timeout.ts): a test that hangs fails with
// "timed out" and the run exits non-zero, instead of holding CI until its own limit. Runs on
// Node 20 (the bound is per file) and Node 24 (per test) alike: CI runs the unit tests on both.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_TEST_TIMEOUT_MS, testTimeoutArgs } from '../../scripts/test-timeout.js';

void test('the bound: a default, another in milliseconds, none with 0; anything else is refused', () => {
  const force = '--test-force-exit';
  assert.deepEqual(testTimeoutArgs({}), [`--test-timeout=${DEFAULT_TEST_TIMEOUT_MS}`, force]);
  assert.deepEqual(testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: '' }), [
    `--test-timeout=${DEFAULT_TEST_TIMEOUT_MS}`,
    force,
  ]);
  assert.deepEqual(testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: '90000' }), ['--test-timeout=90000', force]);
  assert.deepEqual(testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: '2147483647' }), [
    '--test-timeout=2147483647',
    force,
  ]);
  assert.deepEqual(testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: '0' }), []);
  for (const bad of ['10m', '-1', '1.5', 'x', ' ', '1e3', '0x10', '2147483648'])
    assert.throws(
      () => testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: bad }),
      (err: Error) =>
        err.message.startsWith(`A2A_TEST_TIMEOUT_MS=${JSON.stringify(bad)}: expected milliseconds`),
    );
});

void test(
  'run-tests: a test that hangs fails at the bound and the run exits non-zero',
  { timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-timeout-'));
    // NODE_TEST_CONTEXT would make the runner's child think it reports to this test runner.
    const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
    // A process group of its own: if the runner does not end by itself, the whole group is
    // killed (the runner, node's test runner and the hanging file), so nothing is left behind.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/run-tests.ts', 'test/unit/hanging-test-fixture.ts'],
      {
        env: { ...env, TMPDIR: dir, A2A_TEST_TIMEOUT_MS: '2000' },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let text = '';
    child.stdout.on('data', (b: Buffer) => (text += b.toString()));
    child.stderr.on('data', (b: Buffer) => (text += b.toString()));
    const outer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 100_000);
    try {
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      assert.equal(code, 1, text);
      assert.match(text, /timed out after 2000ms/);
    } finally {
      clearTimeout(outer);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
