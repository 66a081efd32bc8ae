/**
 * The shipped alerts and dashboard, proven on a real Prometheus (Debian's `prometheus`) scraping
 * a running operator that watches real agents: every alert expression and every dashboard query
 * evaluates without error, every metric they read is scraped, every dashboard query returns
 * data, and the withdrawn-interface alert fires when an interface breaks and resolves when it
 * heals. The test's rule copy changes only `for:` (to 0s, evaluated every second); the
 * expressions are the shipped ones.
 *
 * The same run captures the A2AAgent objects behind the Argo CD catalogue's testdata (real
 * status objects): each live object must get the health the catalogue's health_test.yaml
 * expects for its testdata file. A2A_CAPTURE_ARGOCD_TESTDATA=1 rewrites those files.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Document, parse, stringify, visit } from 'yaml';
import { startAgentPod } from '../harness/agent-pod.js';
import { argoHealth, CATALOGUE_DIR } from '../harness/argo-health.js';
import { REPO_ROOT } from '../harness/binaries.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { freePort } from '../harness/ports.js';
import { startProcess, type Managed } from '../harness/process.js';
import { scenario } from '../harness/scenario.js';
import { condition, getAgent, waitAgent, waitFor } from '../harness/wait.js';

const RULES = join(REPO_ROOT, 'charts', 'a2a-operator', 'monitoring', 'alerts.yaml');
const DASHBOARD = join(REPO_ROOT, 'charts', 'a2a-operator', 'monitoring', 'dashboard.json');
const CAPTURE = process.env.A2A_CAPTURE_ARGOCD_TESTDATA === '1';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
}
interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}

const s = scenario('monitoring', {
  async setup({ cluster, ns, pods }) {
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'weather-0',
        labels: { app: 'weather' },
        config: healthyAgentConfig(`weather.${ns}.svc`),
      }),
    );
    await apply(
      cluster,
      agentManifest(
        ns,
        'weather',
        healthySpec('weather', { periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 }),
      ),
      // Selects no pod: not Ready, not stalled.
      agentManifest(ns, 'nopods', healthySpec('nothing-runs-this')),
      // Names a Secret that does not exist: a spec error, stalled.
      agentManifest(ns, 'nosecret', {
        ...healthySpec('nothing-runs-this-either'),
        auth: { bearerToken: { secretKeyRef: { name: 'probe-token', key: 'token' } } },
      }),
    );
  },
  async ready({ cluster, ns, operator }) {
    await waitAgent(cluster, ns, 'weather', 'Ready', (a) => condition(a, 'Ready')?.status === 'True', 90_000);
    await startPrometheus(operator.metricsUrl, ns);
  },
});

let prom: Managed | undefined;
let promUrl = '';

interface QueryResult {
  status: string;
  error?: string;
  data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

async function query(expr: string): Promise<QueryResult> {
  const r = await fetch(`${promUrl}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  return (await r.json()) as QueryResult;
}

interface Alert {
  labels: Record<string, string>;
  state: string;
}
async function alerts(): Promise<Alert[]> {
  const r = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } };
  return r.data.alerts;
}

const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
const panels = (JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] }).panels;

/** A dashboard query as Grafana sends it: variables substituted. */
function dashboardExpr(expr: string, ns: string): string {
  return expr.replaceAll('$__rate_interval', '30s').replaceAll('$namespace', ns);
}

/** The object as `kubectl get -o yaml` shows it, without the server's bookkeeping noise. */
function testdata(obj: Record<string, unknown>): Record<string, unknown> {
  const o = structuredClone(obj) as { metadata: Record<string, unknown> };
  delete o.metadata.managedFields;
  return o as unknown as Record<string, unknown>;
}

interface HealthCase {
  healthStatus: { status: string; message: string };
  inputPath: string;
}
const healthTests = (
  parse(readFileSync(join(CATALOGUE_DIR, 'health_test.yaml'), 'utf8')) as {
    tests: HealthCase[];
  }
).tests;

/** Captures agent `name` as testdata `file`: checked against health_test.yaml, or written with CAPTURE. */
async function capture(name: string, file: string, ns = s.ns): Promise<void> {
  const r = await s.cluster.kubectl(['get', 'a2a', name, '-n', ns, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const obj = testdata(JSON.parse(r.stdout) as Record<string, unknown>);
  const health = await argoHealth(obj);
  assert.equal(health.code, 0, health.stderr);
  if (CAPTURE) {
    // Timestamps quoted, as kubectl prints them (a YAML 1.1 reader would otherwise take them as times).
    const doc = new Document(obj);
    visit(doc, {
      Scalar(_k, node) {
        if (typeof node.value === 'string' && /^\d{4}-\d\d-\d\dT/.test(node.value))
          node.type = 'QUOTE_DOUBLE';
      },
    });
    writeFileSync(join(CATALOGUE_DIR, 'testdata', file), doc.toString());
    process.stderr.write(`[capture] testdata/${file}: ${health.status} ${health.message}\n`);
    return;
  }
  const want = healthTests.find((t) => t.inputPath === `testdata/${file}`);
  assert.ok(want, `health_test.yaml has a case for testdata/${file}`);
  assert.equal(health.status, want.healthStatus.status, `${file}: ${health.message}`);
}

async function startPrometheus(metricsUrl: string, ns: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-prometheus-'));
  // The shipped rules with for: 0s: the alert's expression alone decides, at once.
  const copy = parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] };
  for (const g of copy.groups) for (const r of g.rules) r.for = '0s';
  writeFileSync(join(dir, 'rules.yaml'), stringify(copy));
  const target = new URL(metricsUrl).host;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [join(dir, 'rules.yaml')],
      scrape_configs: [{ job_name: 'a2a-operator', static_configs: [{ targets: [target] }] }],
    }),
  );
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prom = startProcess(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    join(dir, 'prometheus.log'),
  );
  await waitFor(
    'Prometheus ready',
    async () => (await fetch(`${promUrl}/-/ready`).catch(() => undefined))?.ok,
    60_000,
  );
  await waitFor(
    'the operator scraped with weather Ready',
    async () => {
      const r = await query(`a2a_operator_agent_ready{namespace="${ns}",agent="weather"} == 1`);
      return (r.data?.result.length ?? 0) > 0;
    },
    60_000,
  );
}

after(async () => {
  await prom?.stop();
});

describe('alerts and dashboard on a real Prometheus', () => {
  test('every alert expression evaluates, and every metric it reads is scraped', async () => {
    for (const r of rules) {
      const res = await query(r.expr);
      assert.equal(res.status, 'success', `${r.alert}: ${res.error}`);
      for (const m of new Set(r.expr.match(/a2a_operator_[a-z_]+/g) ?? [])) {
        const has = await query(`count({__name__="${m}"})`);
        assert.equal(has.status, 'success');
        assert.ok((has.data?.result.length ?? 0) > 0, `${r.alert} reads ${m}, which is not scraped`);
      }
    }
    // Quiet while everything the alerts watch is healthy: only the two agents without pods or
    // Secret are not Ready. (Rules are evaluated every second, after the scrapes: wait for them.)
    const firing = async () =>
      [
        ...new Set(
          (await alerts())
            .filter((a) => a.state === 'firing' && (a.labels.namespace === s.ns || !a.labels.namespace))
            .map((a) => `${a.labels.alertname}${a.labels.agent ? ` ${a.labels.agent}` : ''}`),
        ),
      ].sort();
    const want = ['A2AAgentNotReady nopods', 'A2AAgentNotReady nosecret'];
    await waitFor(
      'only the not-Ready agents alert',
      async () => JSON.stringify(await firing()) === JSON.stringify(want),
      60_000,
      500,
    ).catch(async (err: Error) => {
      assert.deepEqual(await firing(), want, err.message);
    });
    // And it stays so over several evaluations.
    await new Promise((r) => setTimeout(r, 3000));
    assert.deepEqual(await firing(), want);
  });

  test('capture: healthy, no pods, spec error, and an agent no operator watches', async () => {
    await capture('weather', 'healthy_ready.yaml');
    await waitAgent(s.cluster, s.ns, 'nopods', 'not Ready', (a) => condition(a, 'Ready')?.status === 'False');
    await capture('nopods', 'progressing_noReadyPods.yaml');
    await waitAgent(
      s.cluster,
      s.ns,
      'nosecret',
      'Stalled',
      (a) => condition(a, 'Stalled')?.status === 'True',
    );
    await capture('nosecret', 'degraded_secretNotFound.yaml');
    const other = await s.cluster.createNamespace('unwatched');
    await apply(s.cluster, agentManifest(other, 'weather', healthySpec('weather')));
    await capture('weather', 'progressing_noStatus.yaml', other);
  });

  test('an interface breaks: the withdrawn-interface alert fires; every dashboard query has data', async () => {
    await s.pods[0]!.control('/grpc', { running: false });
    const broke = Date.now();
    const withdrawn = (a: Alert) =>
      a.labels.alertname === 'A2AInterfaceWithdrawn' &&
      a.labels.namespace === s.ns &&
      a.labels.agent === 'weather' &&
      a.labels.binding === 'GRPC';
    const fired = await waitFor(
      'A2AInterfaceWithdrawn firing for weather GRPC',
      async () => (await alerts()).find((a) => withdrawn(a) && a.state === 'firing'),
      120_000,
      500,
    );
    assert.equal(fired.labels.severity, 'warning');
    process.stderr.write(
      `[monitoring] A2AInterfaceWithdrawn firing ${Date.now() - broke}ms after the break\n`,
    );
    // Only the broken interface: JSON-RPC and REST stay advertised.
    assert.equal(
      (await alerts()).filter(
        (a) => a.labels.alertname === 'A2AInterfaceWithdrawn' && a.labels.namespace === s.ns,
      ).length,
      1,
    );

    for (const p of panels) {
      for (const t of p.targets ?? []) {
        const expr = dashboardExpr(t.expr, s.ns);
        const res = await query(expr);
        assert.equal(res.status, 'success', `${p.title}: ${expr}: ${res.error}`);
        assert.ok((res.data?.result.length ?? 0) > 0, `${p.title}: ${expr} returned nothing`);
      }
    }
    const stalled = await waitAgent(
      s.cluster,
      s.ns,
      'weather',
      'Stalled after the confirmed failure',
      (a) => condition(a, 'Stalled')?.status === 'True',
      120_000,
    );
    assert.equal(condition(stalled, 'Stalled')?.reason, 'FailureConfirmed');
    await capture('weather', 'degraded_failureConfirmed.yaml');
  });

  test('the interface heals: the alert resolves', async () => {
    await s.pods[0]!.control('/grpc', { running: true });
    const healed = Date.now();
    await waitAgent(
      s.cluster,
      s.ns,
      'weather',
      'Ready again',
      (a) => condition(a, 'Ready')?.status === 'True',
      120_000,
    );
    await waitFor(
      'A2AInterfaceWithdrawn resolved',
      async () =>
        !(await alerts()).some(
          (a) => a.labels.alertname === 'A2AInterfaceWithdrawn' && a.labels.namespace === s.ns,
        ),
      60_000,
      500,
    );
    process.stderr.write(
      `[monitoring] A2AInterfaceWithdrawn resolved ${Date.now() - healed}ms after the heal\n`,
    );
    const a = await getAgent(s.cluster, s.ns, 'weather');
    assert.ok(a.status?.interfaces?.every((i) => i.advertised));
  });
});
