/**
 * The Argo CD catalogue entry (charts/a2a-operator/health/resource_customizations/a2a.dev/
 * A2AAgent), run the way argo-cd's resource_customizations test runs it: for every case of
 * health_test.yaml, the testdata object (YAML, real status objects captured from the test
 * cluster by monitoring-prometheus.test.ts) through health.lua, and the resulting status and
 * message compared exactly.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { argoHealth, CATALOGUE_DIR } from '../harness/argo-health.js';

interface HealthCase {
  healthStatus: { status: string; message: string };
  inputPath: string;
}

const cases = (
  parse(readFileSync(join(CATALOGUE_DIR, 'health_test.yaml'), 'utf8')) as { tests: HealthCase[] }
).tests;

describe('Argo CD catalogue: health_test.yaml', () => {
  test('the layout argo-cd expects: health.lua, health_test.yaml, testdata/ and nothing else', () => {
    assert.deepEqual(readdirSync(CATALOGUE_DIR).sort(), ['health.lua', 'health_test.yaml', 'testdata']);
  });

  test('every testdata file has a case, and the cases cover Healthy, Progressing and Degraded', () => {
    const files = readdirSync(join(CATALOGUE_DIR, 'testdata')).map((f) => `testdata/${f}`);
    assert.deepEqual(cases.map((c) => c.inputPath).sort(), files.sort());
    assert.deepEqual([...new Set(cases.map((c) => c.healthStatus.status))].sort(), [
      'Degraded',
      'Healthy',
      'Progressing',
    ]);
  });

  for (const c of cases) {
    test(`${c.inputPath}: ${c.healthStatus.status}`, async () => {
      const obj = parse(readFileSync(join(CATALOGUE_DIR, c.inputPath), 'utf8')) as {
        apiVersion: string;
        kind: string;
      };
      assert.equal(obj.apiVersion, 'a2a.dev/v1alpha1');
      assert.equal(obj.kind, 'A2AAgent');
      const r = await argoHealth(obj);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual({ status: r.status, message: r.message }, c.healthStatus);
    });
  }
});
