/**
 * The chart's monitoring objects rendered by the real helm: the PrometheusRule carries the rules
 * file verbatim (Prometheus' own {{ $labels }} templates untouched by Helm), the dashboard
 * ConfigMap carries dashboard.json with the Grafana sidecar's label, and the ServiceMonitor
 * keeps the agents' namespace label.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR, find, one, renderChart, type Manifest } from '../harness/helm.js';

const RULES = readFileSync(join(CHART_DIR, 'monitoring', 'alerts.yaml'), 'utf8');
const DASHBOARD = readFileSync(join(CHART_DIR, 'monitoring', 'dashboard.json'), 'utf8');

describe('chart monitoring objects', () => {
  test('off by default: no PrometheusRule, no dashboard ConfigMap', async () => {
    const ms = await renderChart();
    assert.equal(find(ms, 'PrometheusRule').length, 0);
    assert.equal(find(ms, 'ConfigMap').filter((c) => c.metadata.labels?.grafana_dashboard).length, 0);
  });

  test('prometheusRule.enabled: the rules file verbatim, with the ruleSelector labels', async () => {
    const ms = await renderChart(['prometheusRule.enabled=true', 'prometheusRule.labels.release=prom']);
    const pr = one(ms, 'PrometheusRule') as Manifest & { spec: unknown };
    assert.equal(pr.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(pr.metadata.namespace, 'a2a-system');
    assert.equal(pr.metadata.labels?.release, 'prom');
    assert.deepEqual(pr.spec, parse(RULES));
    assert.match(JSON.stringify(pr.spec), /\{\{ \$labels\.agent \}\}/);
  });

  test('grafanaDashboard.enabled: dashboard.json in a ConfigMap the sidecar picks up', async () => {
    const ms = await renderChart(['grafanaDashboard.enabled=true', 'grafanaDashboard.namespace=monitoring']);
    const cm = find(ms, 'ConfigMap').find((c) => c.metadata.labels?.grafana_dashboard === '1') as
      (Manifest & { data: Record<string, string> }) | undefined;
    assert.ok(cm, 'a ConfigMap labelled grafana_dashboard: "1"');
    assert.equal(cm.metadata.namespace, 'monitoring');
    assert.equal(cm.data['a2a-operator.json'], DASHBOARD);
    assert.equal((JSON.parse(DASHBOARD) as { uid: string }).uid, 'a2a-operator');
  });

  test('the ServiceMonitor honours the scraped namespace label (else it becomes exported_namespace)', async () => {
    const ms = await renderChart(['serviceMonitor.enabled=true']);
    const sm = one(ms, 'ServiceMonitor') as Manifest & { spec: { endpoints: { honorLabels?: boolean }[] } };
    assert.equal(sm.spec.endpoints[0]!.honorLabels, true);
  });
});
