/**
 * Argo CD's Lua health check run as Argo CD runs it: the object converted to a Lua table (nulls
 * left out, as Argo CD's JSON-to-Lua conversion does) and the script evaluated by lua5.1 with
 * only the libraries Argo CD opens (test/fixtures/health/run-health.lua). Shared by the GitOps
 * health tests and the catalogue's health_test.yaml runner.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './binaries.js';

/** Argo CD's resource_customizations entry for A2AAgent, laid out as in argoproj/argo-cd. */
export const CATALOGUE_DIR = join(
  REPO_ROOT,
  'charts',
  'a2a-operator',
  'health',
  'resource_customizations',
  'a2a.dev',
  'A2AAgent',
);
export const HEALTH_LUA = join(CATALOGUE_DIR, 'health.lua');
export const RUN_HEALTH_LUA = join(REPO_ROOT, 'test', 'fixtures', 'health', 'run-health.lua');

export function run(
  cmd: string,
  args: string[],
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.on('error', () => {}); // lua5.1 does not read stdin and may be gone already
    child.stdin?.end(input ?? '');
  });
}

/** A JSON value as a Lua 5.1 table constructor; null fields are left out (Argo CD does the same). */
export function toLua(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (typeof v === 'string')
    return JSON.stringify(v).replace(/\\u([0-9a-fA-F]{4})/g, (_m, h: string) => `\\u{${h}}`);
  if (Array.isArray(v)) return `{${v.map(toLua).join(', ')}}`;
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== null);
  return `{${entries.map(([k, x]) => `[${JSON.stringify(k)}] = ${toLua(x)}`).join(', ')}}`;
}

let dir: string | undefined;

/** Evaluates `script` (the catalogue's health.lua unless given) on `obj`; throws if Lua fails. */
export async function argoHealth(
  obj: unknown,
  script = HEALTH_LUA,
): Promise<{ status: string; message: string; code: number; stderr: string }> {
  dir ??= mkdtempSync(join(tmpdir(), 'a2a-health-'));
  const file = join(dir, `obj-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(file, `return ${toLua(obj)}\n`);
  const r = await run('lua5.1', [RUN_HEALTH_LUA, script, file]);
  const [status, message] = r.stdout.trimEnd().split('\t');
  return { status: status ?? '', message: message ?? '', code: r.code, stderr: r.stderr };
}
