// The Helm chart ships the generated CRD byte for byte (npm run gen writes both copies).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRD_FILE, renderCrdYaml } from '../../src/api/crd-yaml.js';

test('charts/a2a-operator/crds holds the generated CRD (run npm run gen)', () => {
  const chartCopy = readFileSync(join('charts', 'a2a-operator', CRD_FILE), 'utf8');
  assert.equal(chartCopy, readFileSync(CRD_FILE, 'utf8'));
  assert.equal(chartCopy, renderCrdYaml());
});
