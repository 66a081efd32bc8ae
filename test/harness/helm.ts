/**
 * The real helm (built from test/helm by binaries.ts) run as a subprocess, and the chart's
 * rendered manifests parsed for structural assertions.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { binaryPath, REPO_ROOT } from './binaries.js';

export const CHART_DIR = join(REPO_ROOT, 'charts', 'a2a-operator');

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function helm(
  args: string[],
  opts: { kubeconfig?: string; timeoutMs?: number } = {},
): Promise<HelmResult> {
  const bin = binaryPath('helm', (l) => process.stderr.write(`[harness] ${l}\n`));
  return new Promise((resolve) => {
    execFile(
      bin,
      args,
      {
        // helm keeps caches and config under these; never the user's own.
        env: {
          ...process.env,
          ...(opts.kubeconfig ? { KUBECONFIG: opts.kubeconfig } : {}),
          HELM_CACHE_HOME: join(REPO_ROOT, '.cache', 'helm', 'cache'),
          HELM_CONFIG_HOME: join(REPO_ROOT, '.cache', 'helm', 'config'),
          HELM_DATA_HOME: join(REPO_ROOT, '.cache', 'helm', 'data'),
        },
        timeout: opts.timeoutMs ?? 120_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A rendered manifest: enough typing for the assertions, the rest is open. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** `helm template` with `--set`-style values; throws with helm's stderr on failure. */
export async function renderChart(
  set: string[] = [],
  opts: { release?: string; namespace?: string; includeCrds?: boolean } = {},
): Promise<Manifest[]> {
  const args = [
    'template',
    opts.release ?? 'a2a',
    CHART_DIR,
    '--namespace',
    opts.namespace ?? 'a2a-system',
    ...(opts.includeCrds ? ['--include-crds'] : []),
    ...set.flatMap((s) => ['--set', s]),
  ];
  const r = await helm(args);
  if (r.code !== 0) throw new Error(`helm ${args.join(' ')} failed:\n${r.stderr}`);
  return parseManifests(r.stdout);
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`invalid YAML from helm: ${d.errors[0]!.message}`);
      return d.toJS() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

export function find(manifests: Manifest[], kind: string, name?: string): Manifest[] {
  return manifests.filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
}

export function one(manifests: Manifest[], kind: string, name?: string): Manifest {
  const found = find(manifests, kind, name);
  if (found.length !== 1)
    throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0]!;
}
