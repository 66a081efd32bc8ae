// `a2a-operator run --cards-index`: documented in --help, refused when unknown, from the flag
// or A2A_CARDS_INDEX (rejected before anything connects or listens).
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { UsageError } from '../../src/cli/cli-errors.js';
import { SecretRedactor } from '../../src/cli/secret-redactor.js';
import { command } from '../../src/cli/commands/run.js';

function io() {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (c: Buffer) => (text += c.toString()));
  return { io: { stdout, stderr: new PassThrough(), secrets: new SecretRedactor() }, text: () => text };
}

test('--help documents --cards-index and its environment variable', async () => {
  const out = io();
  assert.equal(await command.run(['--help'], out.io), 0);
  assert.match(out.text(), /--cards-index <mode>.*\[A2A_CARDS_INDEX\] \(default namespace\)/);
  assert.match(out.text(), /cluster\s+also GET \/cards/);
});

test('an unknown index mode is a usage error, from the flag or the environment', async () => {
  await assert.rejects(command.run(['--cards-index=everyone'], io().io), UsageError);
  process.env.A2A_CARDS_INDEX = 'all';
  try {
    await assert.rejects(
      command.run([], io().io),
      /--cards-index all: expected one of cluster, namespace, none/,
    );
  } finally {
    delete process.env.A2A_CARDS_INDEX;
  }
});
