// docs/api.md is generated from the zod schemas (npm run gen) and must not drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { API_DOC_FILE, renderApiDocs } from '../../scripts/api-docs.js';

test('docs/api.md equals the one generated from the schemas (run npm run gen)', () => {
  assert.equal(readFileSync(API_DOC_FILE, 'utf8'), renderApiDocs());
});

test('docs/api.md documents every spec field with its default', () => {
  const doc = renderApiDocs();
  for (const f of [
    'spec.selector',
    'spec.ports[].targetPort',
    'spec.card.scheme',
    'spec.probe.failureThreshold',
    'spec.routing.signingKey.secretKeyRef.key',
    'status.conditions[].reason',
    'status.interfaces[].state',
  ])
    assert.ok(doc.includes(`| \`${f}\` |`), f);
  assert.ok(doc.includes('| `spec.probe.periodSeconds` | integer |  | `30` |'));
});
