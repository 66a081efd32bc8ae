// The Grafana dashboard as shipped: docs/dashboard.json is the chart's file, every panel query
// is valid PromQL (promtool parses each one, Grafana's variables substituted), reads only
// metrics the operator exports, and takes its data source from the dashboard variable.
// That each query returns data from a live operator: test/integration/monitoring-prometheus.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { OperatorMetrics } from '../../src/operator/metrics.js';

const CHART = 'charts/a2a-operator/monitoring/dashboard.json';
const DOC = 'docs/dashboard.json';

interface Panel {
  title: string;
  type: string;
  datasource?: { uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
}
const dashboard = JSON.parse(readFileSync(CHART, 'utf8')) as { uid: string; panels: Panel[] };
const queries = dashboard.panels.filter((p) => p.type !== 'row');
const exprs = queries.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

test('docs/dashboard.json is the chart dashboard, byte for byte (cp charts/a2a-operator/monitoring/dashboard.json docs/)', () => {
  assert.equal(readFileSync(DOC, 'utf8'), readFileSync(CHART, 'utf8'));
});

test('every panel has a query and uses the data source variable', () => {
  assert.ok(queries.length >= 10);
  for (const p of queries) {
    assert.ok((p.targets ?? []).length > 0, p.title);
    assert.equal(p.datasource?.uid, '${datasource}', p.title);
  }
});

test('the dashboard shows fleet health, withdrawn interfaces, probe latency by binding, reconcile and queue health', () => {
  const all = exprs.map((e) => e.expr).join('\n');
  for (const m of [
    'a2a_operator_agent_ready',
    'a2a_operator_interface_advertised',
    'a2a_operator_probe_duration_seconds_bucket',
    'a2a_operator_reconcile_duration_seconds',
    'a2a_operator_reconcile_errors_total',
    'a2a_operator_queue_depth',
    'a2a_operator_queue_latency_seconds_bucket',
  ])
    assert.ok(all.includes(m), m);
  assert.match(all, /sum by \(binding, le\) \(rate\(a2a_operator_probe_duration_seconds_bucket/);
});

test('every query reads only exported metrics', async () => {
  const exported = new Set(
    (await new OperatorMetrics().registry.getMetricsAsJSON()).flatMap((m) =>
      String(m.type) === 'histogram' ? [`${m.name}_bucket`, `${m.name}_count`, `${m.name}_sum`] : [m.name],
    ),
  );
  for (const { panel, expr } of exprs)
    for (const m of expr.match(/a2a_operator_[a-z_]+/g) ?? [])
      assert.ok(exported.has(m), `${panel} reads ${m}, which the operator does not export`);
});

test('promtool parses every query (as recording rules, with the variables substituted)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-dashboard-'));
  const file = join(dir, 'queries.yaml');
  const rules = exprs.map((e, i) => ({
    record: `dashboard:query_${i}`,
    expr: e.expr.replaceAll('$__rate_interval', '1m').replaceAll('$namespace', '.*'),
  }));
  writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules }] }));
  const r = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile('promtool', ['check', 'rules', file], (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, out: stdout + stderr }),
    ),
  );
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, new RegExp(`SUCCESS: ${rules.length} rules found`));
});
