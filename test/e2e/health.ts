/**
 * The GitOps health verdicts on real objects, by the real tools: Argo CD's health.lua for
 * A2AAgent (lua5.1, test/harness/argo-health.ts), the Flux healthCheckExprs read from
 * docs/gitops.md (test/harness/flux-health.ts) and kstatus (the
 * kstatus-check binary: the library Flux's default health checks and `kubectl` tools use).
 */
import assert from 'node:assert/strict';
import { argoHealth, run } from '../harness/argo-health.js';
import { binaryPath } from '../harness/binaries.js';
import { fluxVerdict } from '../harness/flux-health.js';

/** Argo CD's health status of an A2AAgent (Healthy, Progressing, Degraded) and its message. */
async function argoStatus(obj: unknown): Promise<string> {
  const r = await argoHealth(obj);
  if (r.code !== 0) throw new Error(`health.lua: ${r.stderr}`);
  return `${r.status}: ${r.message}`;
}

/** kstatus of any object: `Current`, `InProgress`, `Failed`, … followed by its message. */
export async function kstatusOf(obj: unknown): Promise<string> {
  const r = await run(binaryPath('kstatus-check'), [], JSON.stringify(obj));
  if (r.code !== 0) throw new Error(`kstatus-check: ${r.stderr}`);
  // "<ns>/<name> <Status> <message>"
  return r.stdout.trim().split(' ').slice(1).join(' ');
}

/**
 * What Argo CD, Flux and kstatus each say of an A2AAgent in one state, as docs/gitops.md's table
 * has them agree: Healthy is Current for both Flux and kstatus, Progressing is InProgress,
 * Degraded is Failed.
 */
const VERDICTS = {
  Healthy: { argo: /^Healthy: /, flux: /^Current/, kstatus: /^Current / },
  Progressing: { argo: /^Progressing: /, flux: /^InProgress/, kstatus: /^InProgress / },
  Degraded: { argo: /^Degraded: /, flux: /^Failed/, kstatus: /^Failed / },
} as const;

/** Asserts that Argo CD, Flux and kstatus (in that order) judge the A2AAgent `health`. */
export async function assertGitOpsHealth(obj: unknown, health: keyof typeof VERDICTS): Promise<void> {
  const want = VERDICTS[health];
  assert.match(await argoStatus(obj), want.argo);
  assert.match(await fluxVerdict(obj), want.flux);
  assert.match(await kstatusOf(obj), want.kstatus);
}
