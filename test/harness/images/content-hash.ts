/**
 * Cache keys of the image builds: a hash over strings (versions, recipe revisions) and the
 * contents of files and folders (walked in sorted order, each file's path relative to the root
 * hashed with it, so a rename changes the key too).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function walk(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => walk(join(path, name)));
}

/** 16 hex digits over `parts` (plain strings) and the files under `paths` (relative to `root`). */
export function contentHash(root: string, parts: string[], paths: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${p}\0`);
  for (const p of paths) {
    for (const file of walk(join(root, p))) {
      h.update(`${relative(root, file)}\0`);
      h.update(readFileSync(file));
      h.update('\0');
    }
  }
  return h.digest('hex').slice(0, 16);
}
