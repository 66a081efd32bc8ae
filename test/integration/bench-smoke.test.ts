// `npm run bench` at two tiny sizes (`--sizes 2,4`) with the multiplexed fleet: it completes,
// cleans up after itself, and prints for each size the results table, then the cost curve and
// the ceiling of one replica, every figure present and finite. `npm run bench:probe` on a few
// interfaces: every client's line and ratio, finite. `npm run bench:api` with a few requests of
// each kind: every kind's line and the cold-start sum, finite. No timing is asserted: the
// benchmarks report numbers, tests check behaviour.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/binaries.js';

const ACCEPTED = 'connections the fleet accepted: operator spawn -> converged / a bare first-visit round';
const SERVED = 'requests the fleet served: operator spawn -> converged / a bare first-visit round';

const METRICS = [
  'fleet: processes started, every address bound (s)',
  'fleet: RSS of every fleet process (MiB)',
  'cold start: operator spawn -> every agent converged (s)',
  'cold start: operator /readyz -> every agent converged (s)',
  'cold start: operator spawn -> every pod routed on every port (s)',
  "lower bound: bare fetchCard + Prober loop, the operator's first-visit calls (s)",
  'ratio: cold-start convergence / lower bound',
  'ratio: convergence after /readyz / lower bound',
  'CPU of the first visits: operator /readyz -> converged / a bare first-visit round (s)',
  ACCEPTED,
  SERVED,
  'bare loop, a steady-state round: cards + probes, capability calls for 1 agent in 10 (s)',
  'operator probes until converged',
  'API requests per reconcile, cold start',
  'API requests per reconcile, steady state',
  'API writes per steady-state period',
  'reconciles per steady-state period',
  'mean reconcile duration, steady state (ms)',
  'operator CPU, steady state (% of one core)',
  'machine CPU, steady state (core-seconds)',
  'operator CPU, steady state: user / system (% of one core)',
  'operator GC pauses, steady state: minor / major (ms per period)',
  'CPU per probe: operator steady state / bare loop (ms)',
  'CPU per probe: bare loop, visits one by one over the period / in a burst (ms)',
  'ceiling: agents (3 pods x 3 bindings) one core sustains at period 10 / 30 / 60 s',
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

const COST_FIGURES = [
  'cold start after /readyz, operator / bare loop (s)',
  'cold start after /readyz per agent, operator / bare loop (ms)',
  'operator CPU until converged (s)',
  'operator CPU until converged, per agent (ms)',
  'operator CPU, steady state (% of one core)',
  'operator CPU, steady state, per agent (% of one core)',
  'CPU per probe, operator / bare loop (ms)',
  'operator RSS at the end (MiB)',
  'operator RSS per agent (KiB)',
  'API requests until converged',
  'API requests until converged, per agent',
  'probes per second, steady state',
  'probes per second per agent',
  'agents one core sustains at period 10 / 30 / 60 s',
];

function runBench(
  args: string[],
  script = 'bench/operator.ts',
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  // NODE_TEST_CONTEXT would make the child think it runs under this test runner.
  const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, script), ...args],
      { cwd: REPO_ROOT, env: { ...env, ...extraEnv }, timeout: 900_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The output's `## title` sections, each as its table rows: first cell -> the other cells. */
function sections(stdout: string): Map<string, Map<string, string[]>> {
  const out = new Map<string, Map<string, string[]>>();
  let rows: Map<string, string[]> | undefined;
  for (const line of stdout.split('\n')) {
    if (line.startsWith('## ')) {
      rows = new Map();
      out.set(line.slice(3).trim(), rows);
      continue;
    }
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (
      !rows ||
      cells.length < 4 ||
      cells[1] === 'metric' ||
      cells[1] === 'figure' ||
      cells[1]?.startsWith('---')
    )
      continue;
    rows.set(cells[1]!, cells.slice(2, -1));
  }
  return out;
}

/** Every number in a cell is finite, and there is at least one (`fixed` prints n/a otherwise). */
function assertFinite(cell: string | undefined, what: string): void {
  assert.ok(cell !== undefined && cell !== '', `no value for ${what}`);
  assert.ok(!/n\/a|NaN|Infinity/.test(cell), `not finite: ${what}: ${JSON.stringify(cell)}`);
  assert.ok(/\d/.test(cell), `no number in ${what}: ${JSON.stringify(cell)}`);
}

describe('npm run bench (tiny, two sizes)', () => {
  test(
    'completes and prints every figure, finite, per size and per agent',
    { timeout: 900_000 },
    async () => {
      const r = await runBench([
        '--sizes=2,4',
        '--pods=2',
        '--agents-per-process=2',
        '--events=2',
        '--period=3',
        '--timeout=2',
        '--steady-periods=1',
        '--bare-rounds=1',
        '--no-write',
      ]);
      assert.equal(r.code, 0, `bench failed:\n${r.stderr.slice(-4000)}`);
      const out = sections(r.stdout);
      for (const size of [2, 4]) {
        const rows = out.get(`${size} agents`);
        assert.ok(rows, `no section for ${size} agents:\n${r.stdout}`);
        for (const metric of METRICS) assertFinite(rows.get(metric)?.[0], `${size} agents: ${metric}`);
        assert.equal(rows.get('reaction events that timed out')?.[0], '0', r.stderr.slice(-4000));
        // The operator dialled at least every interface of every pod: agents x 2 pods x 3 bindings.
        assert.ok(Number(rows.get('operator probes until converged')?.[0]) >= size * 6, r.stdout);
        // The operator's connections are all new: an HTTP and a gRPC connection per pod at least.
        const [accepted] = (rows.get(ACCEPTED)?.[0] ?? '').split(' / ');
        assert.ok(Number(accepted) >= size * 2 * 2, r.stdout);
        // Of them, the agents' HTTP listeners counted at least one per pod, and not more than all.
        const http = /HTTP listeners accepted (\d+) \//.exec(rows.get(ACCEPTED)?.[2] ?? '')?.[1];
        assert.ok(Number(http) >= size * 2 && Number(http) <= Number(accepted), r.stdout);
        // The fleet served every pod's card and probes (agents x 2 pods x (1 + 3)) to the
        // operator, and the bare round every call it counted of its own.
        const [toOperator, toBare] = (rows.get(SERVED)?.[0] ?? '').split(' / ').map(Number);
        assert.ok(toOperator! >= size * 2 * 4, r.stdout);
        const ownCalls = /the bare round counted (\d+) calls/.exec(rows.get(SERVED)?.[2] ?? '')?.[1];
        assert.equal(toBare, Number(ownCalls), r.stdout);
      }
      const cost = out.get('Cost per size');
      assert.ok(cost, r.stdout);
      for (const figure of COST_FIGURES) {
        const cells = cost.get(figure);
        assert.equal(cells?.length, 2, `cost figure ${figure}: one column per size\n${r.stdout}`);
        cells.forEach((c, i) => assertFinite(c, `${figure} at size ${i}`));
      }
      const ceiling = out.get('Ceiling of one replica');
      assert.ok(ceiling, r.stdout);
      for (const period of [10, 30, 60]) {
        assertFinite(
          ceiling.get(`agents (3 pods x 3 bindings) one core sustains, period ${period} s`)?.[0],
          `ceiling at ${period} s`,
        );
      }
    },
  );
});

describe('npm run bench:probe (tiny)', () => {
  test('completes and prints every client and ratio, finite', { timeout: 600_000 }, async () => {
    const r = await runBench([], 'bench/probe.ts', {
      BENCH_AGENTS: '1',
      BENCH_INTERFACES: '6',
      BENCH_ROUNDS: '1',
      BENCH_PASSES: '1',
      BENCH_CONCURRENCY: '4',
    });
    assert.equal(r.code, 0, `bench:probe failed:\n${r.stderr.slice(-4000)}`);
    const lines = r.stdout.split('\n');
    const CLIENTS = [
      'a2a-operator Prober',
      '@a2a-js/sdk client getTask',
      'Prober, JSON-RPC only',
      'undici JSON-RPC GetTask',
      'floor: undici dispatch',
      'Prober, gRPC only',
      'grpc-js unary GetTask',
      'floor: grpc-js createCall',
    ];
    for (const client of CLIENTS) {
      const line = lines.find((l) => l.trim().startsWith(client));
      assert.ok(line, `no line for ${client}:\n${r.stdout}`);
      // probes/s and CPU µs per probe
      const numbers = line
        .slice(line.indexOf(client) + client.length)
        .trim()
        .split(/\s+/);
      assert.equal(numbers.length, 2, line);
      for (const n of numbers) assert.ok(Number.isFinite(Number(n)) && Number(n) > 0, line);
    }
    // operator/SDK throughput and CPU, Prober/undici, Prober/grpc-js, and the two over the floors
    const ratios = lines
      .filter((l) => !l.includes('target'))
      .flatMap((l) => [...l.matchAll(/([\d.]+|NaN|Infinity)x\b/g)].map((m) => m[1]!));
    assert.equal(ratios.length, 6, r.stdout);
    for (const x of ratios) assert.ok(Number.isFinite(Number(x)) && Number(x) > 0, r.stdout);
  });
});

describe('npm run bench:api (tiny)', () => {
  test(
    'completes and prints every request kind and the cold-start sum, finite',
    { timeout: 600_000 },
    async () => {
      // Its own control plane: it reads the API server's and etcd's CPU by pid.
      const r = await runBench(['--requests=10', '--rounds=1'], 'bench/api-cost.ts', {
        A2A_TEST_CLUSTER: '',
        A2A_TEST_KUBECONFIG: '',
      });
      assert.equal(r.code, 0, `bench:api failed:\n${r.stderr.slice(-4000)}`);
      const kinds = r.stdout.split('\n').filter((l) => / ms {2}x \d+ per cold agent$/.test(l));
      // 8 kinds a cold start sends, 4 comparisons
      assert.equal(kinds.length, 12, r.stdout);
      for (const line of kinds) {
        const ms = Number(/([\d.]+) ms {2}x/.exec(line)?.[1]);
        assert.ok(Number.isFinite(ms) && ms >= 0, line);
      }
      // The sum carries the cold start's 10 requests per agent, and some CPU.
      const sum = /an agent's cold start, 10 requests: +([\d.]+) ms/.exec(r.stdout)?.[1];
      assert.ok(Number(sum) > 0, r.stdout);
      assert.match(r.stdout, /status apply: \d+ % of it; without the CRD's schema [\d.]+ ms \(-?\d+ %/);
      assert.match(
        r.stdout,
        /status as a JSON merge patch instead of an apply: [\d.]+ ms \((the apply costs [\d.]+x as much|no CPU measured for it)\)/,
      );
    },
  );
});
