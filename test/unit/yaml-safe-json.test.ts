// A server-side apply body is decoded as YAML: characters YAML forbids raw must be escaped, or
// one hostile card field fails every apply of its agent (the Go YAML decoder refuses them; the
// fault test test/faults/hostile-output.test.ts shows it against a real kube-apiserver).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { yamlSafeJson } from '../../src/kube/yaml-safe-json.js';

const hostile = {
  name: 'loud\u001b[31m\n::error::\u202eevil\u0007\u009b\u007f\u0085\ufffe',
  nested: [{ url: 'http://x/\u0080\u009f' }],
};

test('the same JSON value, with no character YAML forbids left raw', () => {
  const text = yamlSafeJson(hostile);
  assert.deepEqual(JSON.parse(text), hostile);
  // eslint-disable-next-line no-control-regex -- the YAML-forbidden set
  assert.doesNotMatch(text, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/);
  // What the API server does with an apply body: read it as YAML.
  assert.deepEqual(parse(text), hostile);
});
