/**
 * Flux's health verdict on an A2AAgent with the healthCheckExprs docs/gitops.md documents,
 * evaluated by cel-go (the cel-eval binary, in Flux's evaluation order). Shared by the GitOps
 * health tests on fixtures and the end-to-end tests on real objects, so both judge by the
 * expressions users copy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { run } from './argo-health.js';
import { binaryPath, REPO_ROOT } from './binaries.js';

export interface HealthCheckExpr {
  apiVersion: string;
  kind: string;
  current: string;
  inProgress?: string;
  failed?: string;
}

let exprs: HealthCheckExpr | undefined;

/** The A2AAgent entry of the Kustomization's healthCheckExprs in docs/gitops.md. */
export function fluxHealthCheckExprs(): HealthCheckExpr {
  if (exprs) return exprs;
  const md = readFileSync(join(REPO_ROOT, 'docs', 'gitops.md'), 'utf8');
  for (const m of md.matchAll(/```yaml\n([\s\S]*?)```/g)) {
    let doc: { spec?: { healthCheckExprs?: HealthCheckExpr[] } } | undefined;
    try {
      doc = parse(m[1]!) as typeof doc;
    } catch {
      continue;
    }
    const e = doc?.spec?.healthCheckExprs?.find((x) => x.kind === 'A2AAgent');
    if (e) return (exprs = e);
  }
  throw new Error('docs/gitops.md has no healthCheckExprs for A2AAgent');
}

/**
 * cel-eval's verdict on `obj`: Current, InProgress or Failed, or Unknown followed by the error
 * when an expression touched a missing field. Throws if cel-eval fails.
 */
export async function fluxVerdict(obj: unknown): Promise<string> {
  const e = fluxHealthCheckExprs();
  const args = [
    '-current',
    e.current,
    ...(e.inProgress ? ['-inProgress', e.inProgress] : []),
    ...(e.failed ? ['-failed', e.failed] : []),
  ];
  const r = await run(binaryPath('cel-eval'), args, JSON.stringify(obj));
  if (r.code !== 0) throw new Error(`cel-eval: ${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}
