import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderCrdYaml, CRD_FILE } from '../../src/api/crd-yaml.js';
import { A2AAgentSpec } from '../../src/api/a2aagent.js';
import { toStructural } from '../../src/api/crd.js';

test('committed CRD equals the one generated from the zod schemas (run npm run gen)', () => {
  assert.equal(readFileSync(CRD_FILE, 'utf8'), renderCrdYaml());
});

test('spec defaults come from the schema', () => {
  const spec = A2AAgentSpec.parse({
    selector: { matchLabels: { app: 'x' } },
    ports: [{ name: 'http', port: 8080 }],
    card: { port: 'http' },
  });
  assert.deepEqual(spec.probe, {
    periodSeconds: 30,
    timeoutSeconds: 3,
    failureThreshold: 2,
    failOn: 'AllPods',
    taskContinuity: 'Off',
  });
  assert.equal(spec.card.path, '/.well-known/agent-card.json');
  assert.equal(spec.card.scheme, 'HTTP');
  assert.equal(spec.routing.mode, 'Enforce');
  assert.equal(spec.routing.authRequired, 'Advertise');
});

test('toStructural turns int-or-string unions into x-kubernetes-int-or-string', () => {
  const out = toStructural({ anyOf: [{ type: 'integer' }, { type: 'string' }], description: 'p' });
  assert.deepEqual(out, { 'x-kubernetes-int-or-string': true, description: 'p' });
});

test('toStructural drops additionalProperties beside properties and safe-integer bounds', () => {
  const out = toStructural({
    type: 'object',
    additionalProperties: false,
    properties: {
      n: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    },
  });
  assert.deepEqual(out, { type: 'object', properties: { n: { type: 'integer' } } });
});

test('toStructural refuses unions it cannot express', () => {
  assert.throws(
    () => toStructural({ anyOf: [{ type: 'string' }, { type: 'boolean' }] }),
    /unsupported anyOf/,
  );
});
