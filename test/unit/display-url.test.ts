// Card URLs as shown in status, Events, logs: credentials redacted, control characters escaped,
// length bounded, in one linear pass however hostile the URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayUrl, MAX_SHOWN_URL } from '../../src/text/display-url.js';

test('displayUrl escapes control and bidi characters after redacting, and bounds the length', () => {
  assert.equal(
    displayUrl('http://u:p@b/\u001b[31m\n::error::x\u202e?token=T'),
    'http://***@b/\\u{1b}[31m\\u{a}::error::x\\u{202e}?token=***',
  );
  const long = displayUrl(`http://b/${'a'.repeat(100_000)}`);
  assert.equal(long.length, MAX_SHOWN_URL);
  assert.ok(long.endsWith('…'));
});

test('displayUrl is linear on long runs of every separator', () => {
  for (const c of ['@', '?', '#', '&', '=', ':', '/', '%']) {
    const s = `http://${c.repeat(1 << 18)}?token=${c.repeat(1 << 18)}#${c.repeat(1 << 18)}`;
    const t0 = process.hrtime.bigint();
    displayUrl(s);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.ok(ms < 5000, `${JSON.stringify(c)}: ${ms} ms`);
  }
});
