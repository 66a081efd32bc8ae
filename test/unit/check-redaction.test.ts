import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  credentialsIn,
  isSecretParamName,
  redactCredentials,
} from '../../src/cli/check/redact-credentials.js';
import { redactReport } from '../../src/cli/check/redact-report.js';
import { renderTable } from '../../src/cli/check/render-table.js';
import type { CheckReport } from '../../src/cli/check/check-report.js';
import { SecretRedactor } from '../../src/cli/secret-redactor.js';

void test('redactCredentials: userinfo and secret-named parameters, in URLs alone and inside messages', () => {
  const cases: [string, string][] = [
    ['https://probe:s3cret@agent.internal:8443/rpc', 'https://***@agent.internal:8443/rpc'],
    ['http://user@h/x', 'http://***@h/x'],
    ['http://a@b:c@h:1?x=1', 'http://***@h:1?x=1'],
    ['http://h/rpc?token=abc&page=2', 'http://h/rpc?token=***&page=2'],
    ['http://h/?api_key=k1;sig=s2#access_token=t3', 'http://h/?api_key=***;sig=***#access_token=***'],
    ['http://h/?X-Amz-Signature=f00&Password=p', 'http://h/?X-Amz-Signature=***&Password=***'],
    ['http://h/?%74oken=abc', 'http://h/?%74oken=***'],
    [
      'JSONRPC http://u:p@h:1/a?secret=z (dialled 10.0.0.1:1): HTTP 404',
      'JSONRPC http://***@h:1/a?secret=*** (dialled 10.0.0.1:1): HTTP 404',
    ],
    ['URL "grpc://u:p@h:1" is not absolute', 'URL "grpc://***@h:1" is not absolute'],
    ['contact ops@example.com, see http://h/docs', 'contact ops@example.com, see http://h/docs'],
    ['http://h/?q=1&page=token', 'http://h/?q=1&page=token'],
    ['no urls at all', 'no urls at all'],
  ];
  for (const [input, want] of cases) assert.equal(redactCredentials(input), want, input);
});

void test('isSecretParamName: broad on purpose', () => {
  for (const n of [
    'token',
    'access_token',
    'api-key',
    'apiKey',
    'SIG',
    'signature',
    'password',
    'client_secret',
    'auth',
    'code',
  ])
    assert.equal(isSecretParamName(n), true, n);
  for (const n of ['q', 'page', 'tenant', 'limit']) assert.equal(isSecretParamName(n), false, n);
});

void test('redactCredentials is linear on long runs of every special character', () => {
  for (const ch of [':', '/', '@', '?', '&', '=', '#', ';', '%', ' ']) {
    for (const text of [
      `http://${ch.repeat(300_000)}`,
      `://${ch}`.repeat(100_000),
      `?a=${ch}`.repeat(100_000),
    ]) {
      const started = performance.now();
      redactCredentials(text);
      // A quadratic walk over 300k characters takes minutes; linear work takes milliseconds.
      assert.ok(performance.now() - started < 5000, `run of ${JSON.stringify(ch)}`);
    }
  }
});

void test('credentialsIn: the password and secret parameter values, raw and decoded', () => {
  assert.deepEqual(credentialsIn('https://probe:p%40ss@h:1/?token=t%2B1&q=2'), [
    'p%40ss',
    't%2B1',
    'p@ss',
    't+1',
  ]);
  assert.deepEqual(credentialsIn('http://h:1/a'), []);
});

void test('SecretRedactor: every printed form of a secret, longest first', () => {
  const r = new SecretRedactor();
  r.add('to"k\u00e9n-1');
  r.add('ab', 4);
  const text = `raw to"k\u00e9n-1 json ${JSON.stringify('to"k\u00e9n-1')} uri ${encodeURIComponent('to"k\u00e9n-1')} ab`;
  assert.equal(r.redact(text), 'raw *** json "***" uri *** ab');
});

function report(url: string, message: string, binding = 'JSONRPC'): CheckReport {
  return {
    consistent: false,
    card: { shape: 'v1.0', digest: 'sha256:00' },
    findings: [{ reason: 'InterfaceURLInvalid', message }],
    interfaces: [
      {
        url,
        protocolBinding: binding,
        protocolVersion: '1.0',
        state: 'WrongBinding',
        reason: 'WrongBinding',
        message,
        evidence: { errorInfoReason: `\u001b[31m${'R'.repeat(500)}` },
      },
    ],
  };
}

void test('table output: no control character, no workflow command line, URLs clipped and redacted', () => {
  const hostile = report(
    `http://u:pw@h:1/\u001b[2J${'x'.repeat(5000)}?token=zz`,
    'bad\n::error::pwned\r\u009b31m\u202eevil',
    '::error file=a::b',
  );
  const out = renderTable(redactReport(hostile, redactCredentials));
  // eslint-disable-next-line no-control-regex -- the point
  assert.doesNotMatch(out, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  assert.doesNotMatch(out, /^\s*::/m);
  assert.doesNotMatch(out, /pw@|zz/);
  for (const line of out.split('\n')) assert.ok(line.length < 1600, line.slice(0, 80));
  assert.match(out, /R{10}…/);
});
