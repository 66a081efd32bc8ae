// `npm run gen` (after gen-crd): writes docs/api.md from the A2AAgent schema.
// `--check` exits 1 when the committed file differs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { API_DOC_FILE, renderApiDocs } from './api-docs.js';

const expected = renderApiDocs();
if (process.argv.includes('--check')) {
  let actual = '';
  try {
    actual = readFileSync(API_DOC_FILE, 'utf8');
  } catch {
    // missing file counts as drift
  }
  if (actual !== expected) {
    console.error(`${API_DOC_FILE} is out of date: run npm run gen`);
    process.exit(1);
  }
  console.log(`${API_DOC_FILE} is up to date`);
} else {
  mkdirSync(dirname(API_DOC_FILE), { recursive: true });
  writeFileSync(API_DOC_FILE, expected);
  console.log(`wrote ${API_DOC_FILE}`);
}
