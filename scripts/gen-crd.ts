// `npm run gen`: writes crds/a2a.dev_a2aagents.yaml from the zod schemas (src/api/crd.ts), and
// the same bytes into the Helm chart (charts/a2a-operator/crds/, which Helm installs first).
// `--check` exits 1 when a committed file differs (CI and test/unit/crd.test.ts use it).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderCrdYaml, CRD_FILE } from '../src/api/crd-yaml.js';

const CHART_CRD_FILE = join('charts', 'a2a-operator', CRD_FILE);
const FILES = [CRD_FILE, CHART_CRD_FILE];

const expected = renderCrdYaml();
if (process.argv.includes('--check')) {
  let stale = false;
  for (const file of FILES) {
    let actual = '';
    try {
      actual = readFileSync(file, 'utf8');
    } catch {
      // missing file counts as drift
    }
    if (actual !== expected) {
      console.error(`${file} is out of date: run npm run gen`);
      stale = true;
    } else {
      console.log(`${file} is up to date`);
    }
  }
  if (stale) process.exit(1);
} else {
  for (const file of FILES) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, expected);
    console.log(`wrote ${file}`);
  }
}
