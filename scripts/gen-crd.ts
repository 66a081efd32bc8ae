// `npm run gen`: writes crds/a2a.dev_a2aagents.yaml from the zod schemas (src/api/crd.ts).
// `--check` exits 1 when the committed file differs (CI and test/unit/crd.test.ts use it).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { renderCrdYaml, CRD_FILE } from '../src/api/crd-yaml.js';

const expected = renderCrdYaml();
if (process.argv.includes('--check')) {
  let actual = '';
  try {
    actual = readFileSync(CRD_FILE, 'utf8');
  } catch {
    // missing file counts as drift
  }
  if (actual !== expected) {
    console.error(`${CRD_FILE} is out of date: run npm run gen`);
    process.exit(1);
  }
  console.log(`${CRD_FILE} is up to date`);
} else {
  mkdirSync('crds', { recursive: true });
  writeFileSync(CRD_FILE, expected);
  console.log(`wrote ${CRD_FILE}`);
}
