// `check --token-file`: read to at most 64 KiB + 1 byte, like `--card` files to theirs. A larger
// file (or a device that never ends) is a usage error (exit 2) that quotes none of it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { UsageError } from '../../src/cli/cli-errors.js';
import { command, MAX_TOKEN_FILE_BYTES } from '../../src/cli/commands/check.js';
import { SecretRedactor } from '../../src/cli/secret-redactor.js';

const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function io() {
  return { stdout: new PassThrough(), stderr: new PassThrough(), secrets: new SecretRedactor() };
}

// Nothing listens on port 1 of loopback, and parsing fails before anything is dialled anyway.
const base = 'http://127.0.0.1:1';

async function usageError(args: string[]): Promise<UsageError> {
  let caught: unknown;
  await command.run(args, io()).catch((err: unknown) => (caught = err));
  assert.ok(caught instanceof UsageError, String(caught));
  assert.equal(caught.exitCode, 2);
  return caught;
}

void test('a token file over 64 KiB is a usage error naming the limit, not the content', async () => {
  assert.equal(MAX_TOKEN_FILE_BYTES, 64 * 1024);
  const file = join(dir, 'big');
  writeFileSync(file, `SECRETtok3n${'\u001b[31m'.repeat(MAX_TOKEN_FILE_BYTES)}`);
  const err = await usageError([base, '--token-file', file]);
  assert.match(err.message, /^--token-file .*big: larger than the 65536-byte limit for a token file$/);
  assert.ok(!err.message.includes('SECRETtok3n') && !err.message.includes('\u001b'), err.message);
});

void test('exactly 64 KiB is read (a token and its trailing white space); one byte more is not', async () => {
  const file = join(dir, 'edge');
  const token = 'valid-SECRETtok3n';
  writeFileSync(file, token + '\n'.repeat(MAX_TOKEN_FILE_BYTES - token.length));
  // Accepted: the next option is what fails.
  const err = await usageError([base, '--token-file', file, '--timeout', 'never']);
  assert.match(err.message, /--timeout/);
  writeFileSync(file, token + '\n'.repeat(MAX_TOKEN_FILE_BYTES - token.length + 1));
  assert.match((await usageError([base, '--token-file', file])).message, /65536-byte limit/);
});

void test('a device that never ends is read to the cap, not to memory exhaustion', async () => {
  const err = await usageError([base, '--token-file', '/dev/zero']);
  assert.match(err.message, /^--token-file \/dev\/zero: larger than the 65536-byte limit/);
});
