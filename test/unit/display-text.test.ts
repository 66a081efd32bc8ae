import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearerTokenProblem } from '../../src/probe/bearer-token.js';
import { clipText, displayText, printable } from '../../src/text/display-text.js';

test('printable escapes ANSI, newlines, DEL, C1 and bidi overrides and keeps the rest', () => {
  assert.equal(printable('\u001b[31mred\u001b[0m'), '\\u{1b}[31mred\\u{1b}[0m');
  assert.equal(printable('ok\n::error::pwned'), 'ok\\u{a}::error::pwned');
  assert.equal(printable('a\tb\rc\u007fd\u009be'), 'a\\u{9}b\\u{d}c\\u{7f}d\\u{9b}e');
  assert.equal(printable('abc\u202edcba'), 'abc\\u{202e}dcba');
  assert.equal(printable('grüße – 日本 🙂'), 'grüße – 日本 🙂');
});

test('printable is linear on a megabyte of control characters', () => {
  const s = '\u001b'.repeat(1 << 20);
  const t0 = process.hrtime.bigint();
  const out = printable(s);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  assert.equal(out.length, 6 * (1 << 20));
  assert.ok(ms < 5000, `took ${ms} ms`);
});

test('clipText keeps short text, cuts long text with an ellipsis within the budget, never halves a surrogate pair', () => {
  assert.equal(clipText('short', 10), 'short');
  assert.equal(clipText('abcdefghij', 5), 'abcd…');
  const emoji = 'ab🙂cd';
  const cut = clipText(emoji, 4);
  assert.ok(cut.length <= 4);
  assert.equal(cut, 'ab…');
  assert.equal(displayText('\u001b'.repeat(100), 20).length, 20);
});

test('bearerTokenProblem accepts visible ASCII and names the problem without the token', () => {
  assert.equal(bearerTokenProblem('eyJhbGciOi.J9-_~+/=='), undefined);
  for (const [token, what] of [
    ['sec\tret', 'white space at position 4'],
    ['sec ret', 'white space'],
    ['secret\u0000', 'a control character at position 7'],
    ['sécret', 'a non-ASCII character at position 2'],
    ['', 'empty'],
  ] as const) {
    const p = bearerTokenProblem(token);
    assert.ok(p?.includes(what), `${JSON.stringify(token)}: ${p}`);
    if (token.length > 2) assert.ok(!p!.includes(token), p);
  }
  assert.match(bearerTokenProblem('x'.repeat(20_000)) ?? '', /longer than/);
});
