// A token never reaches a message: redaction of echoed tokens, refusal before grpc-js/undici can
// quote a bad one, and reconcile errors from foreign libraries logged by name and code only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metadata } from '@grpc/grpc-js';
import { ApiError, TerminalError } from '../../src/kube/errors.js';
import { loggableError } from '../../src/kube/controller.js';
import { REDACTED, redactToken } from '../../src/probe/redact-token.js';

test('redactToken cuts every occurrence, raw and JSON-escaped', () => {
  const token = 'abc"def\\ghi';
  const text = `Bearer ${token} and again ${token}; as JSON ${JSON.stringify(token)}`;
  const out = redactToken(text, token);
  assert.equal(out.includes(token), false);
  assert.equal(out.includes('abc\\"def'), false);
  assert.equal(out.split(REDACTED).length - 1, 3);
  assert.equal(redactToken(text, undefined), text);
  assert.equal(redactToken(text, ''), text);
});

test('redactToken is linear on a long run of partial matches', () => {
  const token = 'a'.repeat(1000) + 'b';
  const text = 'a'.repeat(1_000_000);
  const t0 = performance.now();
  assert.equal(redactToken(text, token), text);
  assert.ok(performance.now() - t0 < 5_000);
});

test('grpc-js quotes an illegal metadata value in full (why tokens are checked first)', () => {
  const token = 'sec\tret-token';
  assert.throws(
    () => new Metadata().set('authorization', `Bearer ${token}`),
    (err: Error) => err.message.includes(token),
  );
});

test('loggableError keeps errors this code base composes and withholds foreign messages', () => {
  const api = new ApiError(404, 'NotFound', 'not found', 'GET /x');
  assert.equal(loggableError(api), api);
  const terminal = new TerminalError('needs a person');
  assert.equal(loggableError(terminal), terminal);
  const domain = Object.assign(new Error('bad key'), { reason: 'SigningKeyInvalid' });
  assert.equal(loggableError(domain), domain);
  const token = 'sec\u00e9ret';
  const foreign = new Error(`Metadata string value "Bearer ${token}" contains illegal characters`);
  const out = loggableError(foreign);
  assert.equal(out.message.includes(token), false);
  assert.match(out.message, /^Error: message withheld/);
  const coded = new TypeError('fetch failed', {
    cause: Object.assign(new Error(`connect to ${token}`), { code: 'ECONNREFUSED' }),
  });
  assert.match(loggableError(coded).message, /^TypeError \(ECONNREFUSED\)/);
  assert.equal(loggableError('a string thrown').message.includes('a string'), false);
});
