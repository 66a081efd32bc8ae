// The per-agent and per-interface metrics follow the decision: set, changed and removed, with
// labels per agent and interface only (docs/metrics.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Decision } from '../../src/controller/decide.js';
import type { InterfaceStatus } from '../../src/api/a2aagent.js';
import { OperatorMetrics } from '../../src/operator/metrics.js';

function iface(url: string, state: InterfaceStatus['state'], advertised: boolean): InterfaceStatus {
  return {
    url,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    state,
    verifiedPods: state === 'Verified' ? '2/2' : '0/2',
    advertised,
    message: '',
  };
}

function decision(ready: boolean, interfaces: InterfaceStatus[], diverged = false): Decision {
  const cond = (type: string, status: boolean, reason: string) => ({
    type,
    status: status ? 'True' : 'False',
    reason,
    message: '',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  });
  return {
    status: {
      conditions: [
        cond('Ready', ready, ready ? 'Succeeded' : 'Unreachable'),
        cond('PodsConsistent', !diverged, diverged ? 'CardDiverged' : 'Consistent'),
      ],
      interfaces,
    },
    gates: [],
    events: [],
  } as unknown as Decision;
}

async function series(m: OperatorMetrics, name: string): Promise<{ labels: object; value: number }[]> {
  const metric = m.registry.getSingleMetric(name);
  assert.ok(metric, name);
  return (await metric.get()).values.map((v) => ({ labels: v.labels, value: v.value }));
}

test('ready, interface advertised and state follow each decision; stale interface series go away', async () => {
  const m = new OperatorMetrics();
  m.agentDecided(
    'shop/weather',
    decision(true, [iface('http://w/a2a', 'Verified', true), iface('w:9090', 'Verified', true)]),
  );
  assert.deepEqual(await series(m, 'a2a_operator_agent_ready'), [
    { labels: { namespace: 'shop', agent: 'weather' }, value: 1 },
  ]);
  assert.equal((await series(m, 'a2a_operator_interface_advertised')).length, 2);

  m.agentDecided('shop/weather', decision(false, [iface('http://w/a2a', 'Unreachable', false)], true));
  assert.deepEqual(await series(m, 'a2a_operator_agent_ready'), [
    { labels: { namespace: 'shop', agent: 'weather' }, value: 0 },
  ]);
  assert.deepEqual(await series(m, 'a2a_operator_agent_card_diverged'), [
    { labels: { namespace: 'shop', agent: 'weather' }, value: 1 },
  ]);
  const base = { namespace: 'shop', agent: 'weather', binding: 'JSONRPC', url: 'http://w/a2a' };
  assert.deepEqual(await series(m, 'a2a_operator_interface_advertised'), [{ labels: base, value: 0 }]);
  assert.deepEqual(await series(m, 'a2a_operator_interface_state'), [
    { labels: { ...base, state: 'Unreachable' }, value: 1 },
  ]);

  m.agentRemoved('shop/weather');
  for (const name of [
    'a2a_operator_agent_ready',
    'a2a_operator_agent_card_diverged',
    'a2a_operator_interface_advertised',
    'a2a_operator_interface_state',
  ])
    assert.deepEqual(await series(m, name), [], name);
});

test('the same decision again sets nothing; after a removal it sets every series again', async () => {
  const m = new OperatorMetrics();
  const same = () => decision(true, [iface('http://w/a2a', 'Verified', true)]);
  m.agentDecided('shop/weather', same());
  const ready = m.registry.getSingleMetric('a2a_operator_agent_ready')!;
  let sets = 0;
  const set = (ready as unknown as { set: (...a: unknown[]) => void }).set.bind(ready);
  (ready as unknown as { set: (...a: unknown[]) => void }).set = (...a) => (sets++, set(...a));
  m.agentDecided('shop/weather', same());
  assert.equal(sets, 0, 'a steady reconcile sets no series');
  m.agentDecided('shop/weather', decision(true, [iface('http://w/a2a', 'Verified', false)]));
  assert.equal(sets, 1, 'a changed interface sets them again');
  assert.deepEqual(await series(m, 'a2a_operator_interface_advertised'), [
    { labels: { namespace: 'shop', agent: 'weather', binding: 'JSONRPC', url: 'http://w/a2a' }, value: 0 },
  ]);
  // Deleted, then recreated under the same name with the same outcome: its series come back.
  m.agentRemoved('shop/weather');
  m.agentDecided('shop/weather', decision(true, [iface('http://w/a2a', 'Verified', false)]));
  assert.deepEqual(await series(m, 'a2a_operator_agent_ready'), [
    { labels: { namespace: 'shop', agent: 'weather' }, value: 1 },
  ]);
  assert.equal((await series(m, 'a2a_operator_interface_state')).length, 1);
});

test('Observe mode exports no advertised series (nothing is advertised there)', async () => {
  const m = new OperatorMetrics();
  m.agentDecided('shop/watch', decision(true, [iface('http://w/a2a', 'Verified', false)]), false);
  assert.deepEqual(await series(m, 'a2a_operator_interface_advertised'), []);
  assert.equal((await series(m, 'a2a_operator_interface_state')).length, 1);
});

test('probe freshness: the timestamp moves only when a reconcile probed', async () => {
  const m = new OperatorMetrics();
  m.probeRound('shop/weather', 3, 30, 1_000_000);
  m.probeRound('shop/weather', 0, 30, 2_000_000);
  assert.deepEqual(await series(m, 'a2a_operator_last_probe_timestamp_seconds'), [
    { labels: { namespace: 'shop', agent: 'weather' }, value: 1000 },
  ]);
  assert.deepEqual(await series(m, 'a2a_operator_agent_probe_period_seconds'), [
    { labels: { namespace: 'shop', agent: 'weather' }, value: 30 },
  ]);
});

test('no metric has a pod, IP, task or instance label', async () => {
  const m = new OperatorMetrics();
  m.agentDecided('shop/weather', decision(true, [iface('http://w/a2a', 'Verified', true)]));
  m.probeRound('shop/weather', 1, 30);
  m.probeDone('JSONRPC', 'Verified', 12);
  const allowed = new Set(['namespace', 'agent', 'name', 'kind', 'binding', 'url', 'state']);
  allowed.add('outcome').add('terminal').add('method').add('resource').add('code').add('le').add('priority');
  for (const metric of await m.registry.getMetricsAsJSON()) {
    if (!metric.name.startsWith('a2a_operator_')) continue;
    for (const v of metric.values)
      for (const l of Object.keys(v.labels)) assert.ok(allowed.has(l), `${metric.name} has label ${l}`);
  }
});

test('queue latency is by priority, both series there from the start', async () => {
  const m = new OperatorMetrics();
  const count = async (priority: string) =>
    (await m.registry.getSingleMetric('a2a_operator_queue_latency_seconds')!.get()).values.find(
      (v) =>
        (v as { metricName?: string }).metricName === 'a2a_operator_queue_latency_seconds_count' &&
        v.labels.priority === priority,
    )?.value;
  assert.equal(await count('high'), 0, 'rate() over it is 0, not empty, before a first urgent key');
  assert.equal(await count('low'), 0);
  const observer = m.controllerObserver(() => undefined);
  observer.queueLatency(7, 'high');
  observer.queueLatency(0.2, 'low');
  observer.queueLatency(0.1, 'low');
  assert.equal(await count('high'), 1);
  assert.equal(await count('low'), 2);
});
