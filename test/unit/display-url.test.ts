// Card URLs as shown in status, Events, logs: credentials redacted, control characters escaped,
// length bounded, in one linear pass however hostile the URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  displayUrl,
  isSecretParameter,
  MAX_SHOWN_URL,
  redactUrlCredentials,
} from '../../src/text/display-url.js';

const cases: [string, string, string][] = [
  ['plain URL unchanged', 'https://billing:8443/a2a/jsonrpc', 'https://billing:8443/a2a/jsonrpc'],
  ['user and password', 'https://alice:s3cret@billing/a2a', 'https://***@billing/a2a'],
  ['user alone (a token as user name)', 'https://ghp_abc123@billing/a2a', 'https://***@billing/a2a'],
  ['gRPC host:port form with userinfo', 'bob:pw@billing:9090', '***@billing:9090'],
  ['@ in the path is not userinfo', 'http://billing/a2a/@me', 'http://billing/a2a/@me'],
  [
    'secret query parameters, others kept',
    'http://b/a2a?token=T1&tenant=acme&api_key=K1&sig=S1&X-Amz-Signature=S2&password=P1',
    'http://b/a2a?token=***&tenant=acme&api_key=***&sig=***&X-Amz-Signature=***&password=***',
  ],
  [
    'access_token in the fragment, key in the query',
    'http://b/a?key=K#access_token=T&state=s',
    'http://b/a?key=***#access_token=***&state=s',
  ],
  ['percent-encoded parameter name', 'http://b/a?%74oken=T', 'http://b/a?%74oken=***'],
  ['parameter without value kept', 'http://b/a?token&x=1', 'http://b/a?token&x=1'],
  ['not a URL at all', 'no url here', 'no url here'],
];

for (const [name, input, want] of cases) {
  test(`redactUrlCredentials: ${name}`, () => assert.equal(redactUrlCredentials(input), want));
}

test('isSecretParameter: credential names in any spelling, ordinary names not', () => {
  for (const n of [
    'token',
    'access_token',
    'Refresh-Token',
    'client_secret',
    'x-api-key',
    'apiKey',
    'key',
    'sig',
    'passwd',
    'jwt',
  ])
    assert.ok(isSecretParameter(n), n);
  for (const n of ['tenant', 'page', 'q', 'version', 'lang']) assert.ok(!isSecretParameter(n), n);
});

test('displayUrl escapes control and bidi characters after redacting, and bounds the length', () => {
  assert.equal(
    displayUrl('http://u:p@b/\u001b[31m\n::error::x\u202e?token=T'),
    'http://***@b/\\u{1b}[31m\\u{a}::error::x\\u{202e}?token=***',
  );
  const long = displayUrl(`http://b/${'a'.repeat(100_000)}`);
  assert.equal(long.length, MAX_SHOWN_URL);
  assert.ok(long.endsWith('…'));
});

test('redaction is linear on long runs of every separator', () => {
  for (const c of ['@', '?', '#', '&', '=', ':', '/', '%']) {
    const s = `http://${c.repeat(1 << 18)}?token=${c.repeat(1 << 18)}#${c.repeat(1 << 18)}`;
    const t0 = process.hrtime.bigint();
    displayUrl(s);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.ok(ms < 5000, `${JSON.stringify(c)}: ${ms} ms`);
  }
});
