// The suite's runners bound each test (scripts/test-timeout.ts): a test that hangs fails with
// "timed out" and the run exits non-zero, instead of holding CI until its own limit.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_TEST_TIMEOUT_MS, testTimeoutArgs } from '../../scripts/test-timeout.js';

void test('the bound: a default, another in milliseconds, none with 0; anything else is refused', () => {
  assert.deepEqual(testTimeoutArgs({}), [`--test-timeout=${DEFAULT_TEST_TIMEOUT_MS}`]);
  assert.deepEqual(testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: '' }), [
    `--test-timeout=${DEFAULT_TEST_TIMEOUT_MS}`,
  ]);
  assert.deepEqual(testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: '90000' }), ['--test-timeout=90000']);
  assert.deepEqual(testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: '0' }), []);
  for (const bad of ['10m', '-1', '1.5', 'x'])
    assert.throws(
      () => testTimeoutArgs({ A2A_TEST_TIMEOUT_MS: bad }),
      new RegExp(`A2A_TEST_TIMEOUT_MS="${bad.replace('.', '\\.')}": expected milliseconds`),
    );
});

void test(
  'run-tests: a test that hangs fails at the bound and the run exits non-zero',
  { timeout: 120_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-timeout-'));
    // NODE_TEST_CONTEXT would make the runner's child think it reports to this test runner.
    const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
    try {
      const out = await new Promise<{ code: number; text: string }>((resolve) =>
        execFile(
          process.execPath,
          ['--import', 'tsx', 'scripts/run-tests.ts', 'test/unit/hanging-test-fixture.ts'],
          { env: { ...env, TMPDIR: dir, A2A_TEST_TIMEOUT_MS: '2000' }, timeout: 110_000 },
          (err, stdout, stderr) =>
            resolve({
              code: err ? (typeof err.code === 'number' ? err.code : -1) : 0,
              text: stdout + stderr,
            }),
        ),
      );
      assert.notEqual(out.code, 0, out.text);
      assert.match(out.text, /timed out after 2000ms/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
