// `a2a-operator run` without a usable kubeconfig: one line naming the file and what is wrong, exit
// 1 (ExitError), not an "internal error" with a stack; nothing listens or connects first.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { ExitError } from '../../src/cli/cli-errors.js';
import { SecretRedactor } from '../../src/cli/secret-redactor.js';
import { command } from '../../src/cli/commands/run.js';

const io = () => ({ stdout: new PassThrough(), stderr: new PassThrough(), secrets: new SecretRedactor() });
const args = (kubeconfig: string) => [
  `--kubeconfig=${kubeconfig}`,
  '--metrics-address=127.0.0.1:0',
  '--cards-address=127.0.0.1:0',
];

test('a kubeconfig that does not exist: exit 1 naming the file and ENOENT', async () => {
  const missing = join(tmpdir(), `a2a-no-such-kubeconfig-${process.pid}`);
  await assert.rejects(command.run(args(missing), io()), (err: unknown) => {
    assert.ok(err instanceof ExitError, String(err));
    assert.equal(err.exitCode, 1);
    assert.equal(err.message, `cannot load kubeconfig ${missing}: ENOENT`);
    return true;
  });
});

test('a kubeconfig that is not YAML, and one with no current cluster', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-kubeconfig-'));
  try {
    const garbage = join(dir, 'garbage');
    // The YAML error quotes the lines around it; the token beside it must not reach the message.
    writeFileSync(garbage, 'users:\n- name: u\n  user:\n    token: sekrit-token-value\n  : [\n');
    await assert.rejects(command.run(args(garbage), io()), (err: unknown) => {
      assert.ok(err instanceof ExitError, String(err));
      assert.match(
        err.message,
        new RegExp(`^cannot load kubeconfig ${garbage}: invalid YAML \\(.+ at line \\d+\\)$`),
      );
      assert.doesNotMatch(err.message, /sekrit/);
      return true;
    });
    const empty = join(dir, 'empty');
    writeFileSync(empty, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    await assert.rejects(command.run(args(empty), io()), (err: unknown) => {
      assert.ok(err instanceof ExitError, String(err));
      assert.equal(err.message, `kubeconfig ${empty} names no current cluster`);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
