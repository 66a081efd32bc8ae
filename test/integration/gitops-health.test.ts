/**
 * The GitOps health definitions, evaluated by the real tools on the fixtures in
 * test/fixtures/health/: Argo CD's health.lua in a Lua 5.1 interpreter (lua5.1, with the
 * libraries Argo CD opens), the Flux healthCheckExprs from docs/gitops.md with cel-go (Flux's
 * evaluation order), and the kstatus library. Where the three should agree, they do.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { binaryPath, REPO_ROOT } from '../harness/binaries.js';
import { InterfaceState } from '../../src/api/conditions.js';
import { decide, type DecideInput } from '../../src/controller/decide.js';
import { allVerified, input, okCard, pod, spec, V, v1Raw } from '../unit/reconcile-fixtures.js';
import { argoHealth, HEALTH_LUA, run, RUN_HEALTH_LUA } from '../harness/argo-health.js';
import { fluxHealthCheckExprs, fluxVerdict } from '../harness/flux-health.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'health');
const GITOPS_DOC = join(REPO_ROOT, 'docs', 'gitops.md');

interface Expected {
  argo: 'Healthy' | 'Progressing' | 'Degraded';
  /** Unknown: an expression touched a missing field; Flux keeps waiting, as for InProgress. */
  flux: 'Current' | 'InProgress' | 'Failed' | 'Unknown';
  kstatus: 'Current' | 'InProgress' | 'Failed';
}

const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as Record<
  string,
  Expected
>;
const fixtureNames = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json') && f !== 'expected.json')
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

const dir = mkdtempSync(join(tmpdir(), 'a2a-health-'));

async function argo(obj: unknown, script = HEALTH_LUA): Promise<{ status: string; message: string }> {
  const r = await argoHealth(obj, script);
  assert.equal(r.code, 0, r.stderr);
  return r;
}

/** The yaml code blocks of docs/gitops.md, parsed. */
function docBlocks(): unknown[] {
  const md = readFileSync(GITOPS_DOC, 'utf8');
  return [...md.matchAll(/```yaml\n([\s\S]*?)```/g)].flatMap((m) => {
    try {
      return [parse(m[1]!) as unknown];
    } catch {
      return [];
    }
  });
}

/** Flux's verdict word (Current, InProgress, Failed, Unknown). */
async function flux(obj: unknown): Promise<string> {
  return (await fluxVerdict(obj)).split(' ')[0]!;
}

async function kstatus(obj: unknown): Promise<string> {
  const r = await run(binaryPath('kstatus-check'), [], JSON.stringify(obj));
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim().split(' ')[1]!;
}

describe('GitOps health on the fixtures', () => {
  test('every fixture has expectations, and every expectation a fixture', () => {
    assert.deepEqual(fixtureNames, Object.keys(expected).sort());
    assert.ok(fixtureNames.length >= 10);
  });

  for (const name of fixtureNames) {
    test(name, async () => {
      const obj = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as unknown;
      const want = expected[name]!;
      const a = await argo(obj);
      assert.equal(a.status, want.argo, `Argo CD: ${a.message}`);
      assert.ok(a.message.length > 0, 'Argo CD message');
      assert.equal(await flux(obj), want.flux, 'Flux healthCheckExprs');
      assert.equal(await kstatus(obj), want.kstatus, 'kstatus');
    });
  }

  test('the tools agree except where documented (kstatus fails open; Argo CD needs observedGeneration)', () => {
    const same: Record<string, string> = {
      Healthy: 'Current',
      Progressing: 'InProgress',
      Degraded: 'Failed',
    };
    const disagreements = fixtureNames.filter((n) => {
      const e = expected[n]!;
      const fluxWaits = e.flux === 'Unknown' ? 'InProgress' : e.flux;
      return same[e.argo] !== fluxWaits || fluxWaits !== e.kstatus;
    });
    assert.deepEqual(disagreements, ['empty-status', 'no-status', 'ready-without-observed-generation']);
  });
});

describe('the health definitions have teeth', () => {
  test('stalled wins over ready, reconciling over ready, for every tool', async () => {
    const base = JSON.parse(readFileSync(join(FIXTURES, 'ready.json'), 'utf8')) as {
      status: { conditions: { type: string; status: string }[] };
    };
    const withCond = (type: string) => {
      const o = structuredClone(base);
      o.status.conditions = o.status.conditions.map((c) => (c.type === type ? { ...c, status: 'True' } : c));
      return o;
    };
    assert.equal((await argo(withCond('Stalled'))).status, 'Degraded');
    assert.equal(await flux(withCond('Stalled')), 'Failed');
    assert.equal(await kstatus(withCond('Stalled')), 'Failed');
    assert.equal((await argo(withCond('Reconciling'))).status, 'Progressing');
    assert.equal(await flux(withCond('Reconciling')), 'InProgress');
    assert.equal(await kstatus(withCond('Reconciling')), 'InProgress');
  });

  test('a health.lua that skips the generation guard is caught by the fixtures', async () => {
    const lua = readFileSync(HEALTH_LUA, 'utf8');
    const broken = lua.replace(
      'if generation ~= nil and (observed == nil or observed ~= generation) then',
      'if false then',
    );
    assert.notEqual(broken, lua);
    const file = join(dir, 'broken.lua');
    writeFileSync(file, broken);
    const obj = JSON.parse(readFileSync(join(FIXTURES, 'ready-old-generation.json'), 'utf8')) as unknown;
    assert.equal((await argo(obj, file)).status, 'Healthy');
    assert.equal((await argo(obj)).status, 'Progressing');
  });

  test('health.lua uses only what Argo CD opens: calling the string library fails in the driver', async () => {
    const file = join(dir, 'uses-string.lua');
    writeFileSync(file, 'local hs = {}\nhs.status = string.upper("healthy")\nreturn hs\n');
    const r = await run('lua5.1', [RUN_HEALTH_LUA, file, join(dir, 'none.lua')]);
    assert.notEqual(r.code, 0);
  });
});

describe('docs/gitops.md', () => {
  test('the argocd-cm snippet carries health.lua verbatim', () => {
    const cm = docBlocks().find(
      (b): b is { kind: string; data: Record<string, string> } =>
        typeof b === 'object' && b !== null && (b as { kind?: string }).kind === 'ConfigMap',
    );
    assert.ok(cm, 'argocd-cm block');
    assert.equal(
      cm.data['resource.customizations.health.a2a.dev_A2AAgent'],
      readFileSync(HEALTH_LUA, 'utf8'),
    );
  });

  test('the Flux snippet names the A2AAgent kind and version', () => {
    const e = fluxHealthCheckExprs();
    assert.equal(e.apiVersion, 'a2a.dev/v1alpha1');
    assert.ok(e.failed && e.inProgress);
  });
});

describe('the Stalled rule, decided by the operator and judged by every tool', () => {
  // Each row: observations → decide() (the operator's pure decision) → the status it writes,
  // then Argo CD's health.lua, the Flux healthCheckExprs and kstatus on that object.
  const card = okCard(v1Raw());
  const S = InterfaceState;
  const liar = (states: readonly InterfaceState[] = [V, V, S.Unimplemented]) => [
    pod('a', card, allVerified),
    pod('b', card, allVerified),
    pod('c', card, states),
  ];
  const rows: { name: string; input: DecideInput; stalled: string; want: Expected }[] = [
    {
      name: 'healthy',
      input: input({ pods: liar(allVerified) }),
      stalled: 'False/Succeeded',
      want: { argo: 'Healthy', flux: 'Current', kstatus: 'Current' },
    },
    {
      name: 'partial failure: gRPC confirmed failing on 1 of 3 pods',
      input: input({ pods: liar() }),
      stalled: 'False/PartialFailure',
      want: { argo: 'Progressing', flux: 'InProgress', kstatus: 'InProgress' },
    },
    {
      name: 'partial failure with spec.probe.failOn AnyPod',
      input: input({ pods: liar(), spec: spec({ probe: { ...spec().probe, failOn: 'AnyPod' } }) }),
      stalled: 'True/FailureConfirmed',
      want: { argo: 'Degraded', flux: 'Failed', kstatus: 'Failed' },
    },
    {
      name: 'failure confirmed on every ready pod',
      input: input({ pods: ['a', 'b', 'c'].map((n) => pod(n, card, [V, V, S.Unimplemented])) }),
      stalled: 'True/FailureConfirmed',
      want: { argo: 'Degraded', flux: 'Failed', kstatus: 'Failed' },
    },
    {
      name: 'Service conflict with every interface verified',
      input: input({ pods: liar(allVerified), serviceConflict: 'Service billing exists and is not ours' }),
      stalled: 'True/ServiceConflict',
      want: { argo: 'Degraded', flux: 'Failed', kstatus: 'Failed' },
    },
    {
      name: 'Service conflict while probes are pending',
      input: input({
        pods: [...liar(allVerified).slice(0, 2), pod('c', card, [V, V, undefined])],
        serviceConflict: 'Service billing exists and is not ours',
      }),
      stalled: 'True/ServiceConflict',
      want: { argo: 'Degraded', flux: 'Failed', kstatus: 'Failed' },
    },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const d = decide(row.input);
      const stalled = d.status.conditions!.find((c) => c.type === 'Stalled')!;
      assert.equal(`${stalled.status}/${stalled.reason}`, row.stalled);
      const obj = {
        apiVersion: 'a2a.dev/v1alpha1',
        kind: 'A2AAgent',
        metadata: { name: 'billing', namespace: 'payments', generation: row.input.generation },
        status: d.status,
      };
      const a = await argo(obj);
      assert.equal(a.status, row.want.argo, `Argo CD: ${a.message}`);
      assert.equal(await flux(obj), row.want.flux, 'Flux healthCheckExprs');
      assert.equal(await kstatus(obj), row.want.kstatus, 'kstatus');
    });
  }
});
