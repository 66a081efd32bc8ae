// The shipped alerting rules, tested the way Prometheus runs them: promtool test rules
// (test/fixtures/alerts/alerts_test.yaml) reproduces every alert and its silence. The plain
// rules file in docs/ is the chart's file, each alert has a runbook, and each reads only
// metrics the operator exports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { OperatorMetrics } from '../../src/operator/metrics.js';

const CHART_RULES = 'charts/a2a-operator/monitoring/alerts.yaml';
const DOC_RULES = 'docs/alerts.rules.yaml';
const PROMTOOL_TESTS = 'test/fixtures/alerts/alerts_test.yaml';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}
interface PromtoolTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}

const rules = (parse(readFileSync(CHART_RULES, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules);

function promtool(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('promtool', args, { timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr }),
    );
  });
}

test('docs/alerts.rules.yaml is the chart rules file, byte for byte (cp charts/a2a-operator/monitoring/alerts.yaml docs/alerts.rules.yaml)', () => {
  assert.equal(readFileSync(DOC_RULES, 'utf8'), readFileSync(CHART_RULES, 'utf8'));
});

test('promtool check rules accepts the file', async () => {
  const r = await promtool(['check', 'rules', DOC_RULES]);
  assert.equal(r.code, 0, r.out);
});

test('promtool test rules: every alert fires on its cause and stays silent on its near miss', async () => {
  const r = await promtool(['test', 'rules', PROMTOOL_TESTS]);
  assert.equal(r.code, 0, r.out);
});

test('every alert has a firing case and a silent case in the promtool tests', () => {
  const cases = (parse(readFileSync(PROMTOOL_TESTS, 'utf8')) as PromtoolTests).tests.flatMap(
    (t) => t.alert_rule_test ?? [],
  );
  for (const { alert } of rules) {
    const mine = cases.filter((c) => c.alertname === alert);
    assert.ok(
      mine.some((c) => c.exp_alerts.length > 0),
      `${alert}: no case where it fires`,
    );
    assert.ok(
      mine.some((c) => c.exp_alerts.length === 0),
      `${alert}: no case where it stays silent`,
    );
  }
});

test('the promtool tests have teeth: the withdrawn-interface rule without its Pending exclusion fails them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-alerts-'));
  const broken = readFileSync(CHART_RULES, 'utf8').replace(
    /unless on \(namespace, agent, binding, url\)\n\s*a2a_operator_interface_state\{state="Pending"\} == 1/,
    '',
  );
  assert.notEqual(broken, readFileSync(CHART_RULES, 'utf8'));
  writeFileSync(join(dir, 'alerts.rules.yaml'), broken);
  const tests = readFileSync(PROMTOOL_TESTS, 'utf8').replace(
    '../../../docs/alerts.rules.yaml',
    join(dir, 'alerts.rules.yaml'),
  );
  writeFileSync(join(dir, 'alerts_test.yaml'), tests);
  const r = await promtool(['test', 'rules', join(dir, 'alerts_test.yaml')]);
  assert.notEqual(r.code, 0, r.out);
  assert.match(r.out, /A2AInterfaceWithdrawn/);
});

test('every alert has a runbook section in docs/alerts.md and links it', () => {
  const doc = readFileSync('docs/alerts.md', 'utf8');
  for (const r of rules) {
    const rule = r as Rule & { annotations?: { runbook?: string } };
    assert.ok(doc.includes(`\n## ${r.alert}\n`), `docs/alerts.md has no "## ${r.alert}" section`);
    assert.equal(rule.annotations?.runbook, `docs/alerts.md#${r.alert.toLowerCase()}`);
    const section = doc.split(`\n## ${r.alert}\n`)[1]!.split('\n## ')[0]!;
    for (const part of ['**Means**', '**Run**', '**Fix**'])
      assert.ok(section.includes(part), `${r.alert}: runbook lacks ${part}`);
  }
});

test('every metric an alert reads is one the operator exports', async () => {
  const exported = new Set(
    (await new OperatorMetrics().registry.getMetricsAsJSON()).flatMap((m) =>
      String(m.type) === 'histogram' ? [`${m.name}_bucket`, `${m.name}_count`, `${m.name}_sum`] : [m.name],
    ),
  );
  for (const r of rules) {
    const used = r.expr.match(/a2a_operator_[a-z_]+/g) ?? [];
    assert.ok(used.length > 0, r.alert);
    for (const m of used)
      assert.ok(exported.has(m), `${r.alert} reads ${m}, which the operator does not export`);
  }
});
