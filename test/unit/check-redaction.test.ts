import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactCredentials } from '../../src/text/redact-credentials.js';
import { redactReport } from '../../src/cli/check/redact-report.js';
import { renderTable } from '../../src/cli/check/render-table.js';
import type { CheckReport } from '../../src/cli/check/check-report.js';
import { SecretRedactor } from '../../src/cli/secret-redactor.js';

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
