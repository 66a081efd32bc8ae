// Credentials in URLs, redacted by one module for the operator (status, Events, logs) and the CLI
// (table, JSON, errors): one secret-name rule, a URL redactor, a free-text redactor, all linear.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  credentialsIn,
  isSecretParameter,
  redactCredentials,
  redactUrlCredentials,
} from '../../src/text/redact-credentials.js';

const urlCases: [string, string, string][] = [
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
  [
    'a value runs to the next & (a ; inside it is hidden too)',
    'http://b/?token=T;tail',
    'http://b/?token=***',
  ],
  ['a name judged whole up to its =', 'http://b/?to;ken=T&x=1', 'http://b/?to;ken=***&x=1'],
  ['matrix parameter in the path', 'http://b/a;jsessionid=S/x', 'http://b/a;jsessionid=***'],
  ['a ; parameter after an ordinary one', 'http://b/?x=1;sig=S', 'http://b/?x=1;sig=***'],
  ['a second URL in a parameter', 'http://b/?next=http://u:p@c/', 'http://b/?next=http://***@c/'],
  ['an empty secret value', 'http://b/?token=&x=1', 'http://b/?token=***&x=1'],
];

for (const [name, input, want] of urlCases) {
  void test(`redactUrlCredentials: ${name}`, () => assert.equal(redactUrlCredentials(input), want));
}

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
    ['http://u@h://x:y@z/', 'http://***@h://***@z/'],
    ['see "http://h/?pass=p" and http://h/?bearer=b', 'see "http://h/?pass=***" and http://h/?bearer=***'],
  ];
  for (const [input, want] of cases) assert.equal(redactCredentials(input), want, input);
});

void test('both redactors hide every secret of a URL either of them hid before', () => {
  const cases: [string, string[]][] = [
    ['http://h/?api_key=K1;sig=S2#access_token=T3', ['K1', 'S2', 'T3']],
    ['http://A@B:C@h:1?x=1', ['A@B:C']],
    ['http://h/a;token=T1/b?x=1&secret=S1', ['T1', 'S1']],
    ['http://h/?next=http://U:P@c/?code=C1', ['U:P', 'C1']],
  ];
  for (const [url, secrets] of cases) {
    for (const out of [redactUrlCredentials(url), redactCredentials(url)])
      for (const secret of secrets) assert.ok(!out.includes(secret), `${out}: ${secret}`);
  }
});

void test('isSecretParameter: one rule, the union of the operator and CLI name lists', () => {
  for (const n of [
    // the operator's list
    'token',
    'access_token',
    'Refresh-Token',
    'client_secret',
    'x-api-key',
    'apiKey',
    'key',
    'sig',
    'pass',
    'passwd',
    'pwd',
    'jwt',
    'auth',
    'Authorization',
    'session',
    'sessionid',
    'X-Amz-Signature',
    'credentials',
    'code',
    // the CLI's
    'api-key',
    'SIG',
    'signature',
    'password',
    'bearer',
    'Cookie',
    // spellings
    'to%6Ben',
    'access+token',
  ])
    assert.ok(isSecretParameter(n), n);
  for (const n of ['tenant', 'page', 'q', 'version', 'lang', 'limit']) assert.ok(!isSecretParameter(n), n);
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

void test('redactUrlCredentials is linear on long runs of every separator', () => {
  for (const c of ['@', '?', '#', '&', '=', ':', '/', '%', ';']) {
    for (const s of [
      `http://${c.repeat(1 << 18)}?token=${c.repeat(1 << 18)}#${c.repeat(1 << 18)}`,
      `${c}a=`.repeat(1 << 16),
    ]) {
      const t0 = process.hrtime.bigint();
      redactUrlCredentials(s);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      assert.ok(ms < 5000, `${JSON.stringify(c)}: ${ms} ms`);
    }
  }
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
