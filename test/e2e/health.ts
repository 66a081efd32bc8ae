/**
 * The GitOps health verdicts on real objects, by the real tools: Argo CD's health.lua for
 * A2AAgent (lua5.1, test/harness/argo-health.ts), the Flux healthCheckExprs read from
 * docs/gitops.md (cel-go, the cel-eval binary, Flux's evaluation order) and kstatus (the
 * kstatus-check binary: the library Flux's default health checks and `kubectl` tools use).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { argoHealth, run } from '../harness/argo-health.js';
import { binaryPath, REPO_ROOT } from '../harness/binaries.js';

interface HealthCheckExpr {
  kind: string;
  current: string;
  inProgress?: string;
  failed?: string;
}

let exprs: HealthCheckExpr | undefined;

/** The A2AAgent entry of the Kustomization's healthCheckExprs in docs/gitops.md. */
function fluxExprs(): HealthCheckExpr {
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

/** Argo CD's health status of an A2AAgent (Healthy, Progressing, Degraded) and its message. */
export async function argoStatus(obj: unknown): Promise<string> {
  const r = await argoHealth(obj);
  if (r.code !== 0) throw new Error(`health.lua: ${r.stderr}`);
  return `${r.status}: ${r.message}`;
}

/** Flux's verdict on an A2AAgent with the documented expressions: Current, InProgress, Failed or Unknown. */
export async function fluxStatus(obj: unknown): Promise<string> {
  const e = fluxExprs();
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

/** kstatus of any object: `Current`, `InProgress`, `Failed`, … followed by its message. */
export async function kstatusOf(obj: unknown): Promise<string> {
  const r = await run(binaryPath('kstatus-check'), [], JSON.stringify(obj));
  if (r.code !== 0) throw new Error(`kstatus-check: ${r.stderr}`);
  // "<ns>/<name> <Status> <message>"
  return r.stdout.trim().split(' ').slice(1).join(' ');
}
