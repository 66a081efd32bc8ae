// `npm run bench` at the smallest size: it completes, cleans up after itself, and prints the
// results table with every metric present and a value for each. No timing is asserted: the
// benchmark reports numbers, tests check behaviour.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/binaries.js';

const METRICS = [
  'cold start: operator spawn -> every agent converged (s)',
  'cold start: operator /readyz -> every agent converged (s)',
  'cold start: operator spawn -> every pod routed on every port (s)',
  'lower bound: bare fetchCard + Prober loop, same probes (s)',
  'ratio: cold-start convergence / lower bound',
  'ratio: convergence after /readyz / lower bound',
  'operator probes until converged',
  'API requests per reconcile, cold start',
  'API requests per reconcile, steady state',
  'API writes per steady-state period',
  'reconciles per steady-state period',
  'mean reconcile duration, steady state (ms)',
  'operator CPU, steady state (% of one core)',
  'CPU per probe: operator steady state / bare loop (ms)',
  'cold start: reconcile time / workers (s)',
  'operator CPU, cold start until converged (s)',
  'reaction: gRPC broken -> pod out of the EndpointSlice, p50 / p99 / max (s)',
  'reaction: gRPC healed -> pod back in the EndpointSlice, p50 / p99 / max (s)',
  'reaction events that timed out',
  'pod event -> withdrawn from every slice, p50 / p99 / max (s)',
  'API writes per break/heal event',
  'operator RSS at the end (MiB)',
  'operator heap used / total at the end (MiB)',
];

function runBench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // NODE_TEST_CONTEXT would make the child think it runs under this test runner.
  const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'bench/operator.ts'), ...args],
      { cwd: REPO_ROOT, env, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The table's rows as metric -> value. */
function tableRows(stdout: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 4 || cells[1] === 'metric' || cells[1]?.startsWith('---')) continue;
    rows.set(cells[1]!, cells[2]!);
  }
  return rows;
}

describe('npm run bench (tiny)', () => {
  test('completes and prints every metric', { timeout: 600_000 }, async () => {
    const r = await runBench([
      '--agents=2',
      '--pods=2',
      '--events=2',
      '--period=3',
      '--steady-periods=1',
      '--bare-rounds=1',
      '--no-write',
    ]);
    assert.equal(r.code, 0, `bench failed:\n${r.stderr.slice(-4000)}`);
    const rows = tableRows(r.stdout);
    for (const metric of METRICS) {
      const value = rows.get(metric);
      assert.ok(value !== undefined, `metric missing: ${metric}\n${r.stdout}`);
      assert.ok(value !== '' && !value.includes('n/a'), `no value for ${metric}: ${JSON.stringify(value)}`);
    }
    assert.equal(rows.get('reaction events that timed out'), '0', r.stderr.slice(-4000));
    // The operator dialled at least every interface of every pod: 2 agents x 2 pods x 3 bindings.
    assert.ok(Number(rows.get('operator probes until converged')) >= 12, r.stdout);
  });
});
