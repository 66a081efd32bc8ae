// A healthy agent serving all three bindings reaches Ready=True; kubectl wait returns for it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { healthyAgentConfig } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';
import { execFileSync } from 'node:child_process';
import { binaryPath } from '../harness/binaries.js';

/** API writes the operator made so far, from its own request metrics. */
async function apiWrites(op: OperatorProcess): Promise<number> {
  const text = await op.metrics();
  return [
    ...text.matchAll(/^a2a_operator_api_requests_total\{method="(PATCH|POST|PUT|DELETE)"[^}]*\} (\d+)/gm),
  ].reduce((n, m) => n + Number(m[2]), 0);
}

/** a2a_operator_last_probe_timestamp_seconds of one agent. */
async function lastProbeSeconds(
  op: OperatorProcess,
  namespace: string,
  agent: string,
): Promise<number | undefined> {
  const text = await op.metrics();
  const m = new RegExp(
    `^a2a_operator_last_probe_timestamp_seconds\\{namespace="${namespace}",agent="${agent}"\\} (\\S+)$`,
    'm',
  ).exec(text);
  return m ? Number(m[1]) : undefined;
}

let cluster: Cluster;
let ns: string;
let operator: OperatorProcess;
const pods: AgentPod[] = [];

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('healthy');
  const svc = `weather.${ns}.svc`;
  for (const i of [0, 1, 2]) {
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: `weather-${i}`,
        labels: { app: 'weather' },
        config: healthyAgentConfig(svc),
      }),
    );
  }
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
});

after(async () => {
  await operator?.stop();
  await Promise.all(pods.map((p) => p.destroy()));
});

describe('healthy three-binding agent', () => {
  test('reaches Ready=True with every interface verified on every pod', async () => {
    const agent = {
      apiVersion: 'a2a.dev/v1alpha1',
      kind: 'A2AAgent',
      metadata: { name: 'weather', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'weather' } },
        ports: [
          { name: 'http', port: 8080 },
          { name: 'grpc', port: 9090 },
        ],
        card: { port: 'http' },
        probe: { periodSeconds: 5, timeoutSeconds: 2 },
      },
    };
    const applied = await cluster.kubectl(['apply', '-f', '-'], { input: stringify(agent) });
    assert.equal(applied.code, 0, applied.stderr);
    const wait = await cluster.kubectl([
      'wait',
      '--for=condition=Ready',
      '--timeout=60s',
      '-n',
      ns,
      'a2a/weather',
    ]);
    assert.equal(wait.code, 0, `${wait.stderr}\n${operator.proc.tail(30)}`);
    const a = await waitAgent(
      cluster,
      ns,
      'weather',
      'Ready',
      (x) => condition(x, 'Ready')?.status === 'True',
    );
    assert.equal(a.status?.verified, '3/3');
    assert.equal(a.status?.card?.podsConsistent, '3/3');
    assert.equal(a.status?.card?.shape, 'v1.0');
    assert.deepEqual(
      a.status?.interfaces?.map((i) => [i.protocolBinding, i.state, i.verifiedPods, i.advertised]),
      [
        ['JSONRPC', 'Verified', '3/3', true],
        ['HTTP+JSON', 'Verified', '3/3', true],
        ['GRPC', 'Verified', '3/3', true],
      ],
    );
    for (const t of ['CardValid', 'InterfacesVerified', 'PodsConsistent', 'Advertised']) {
      assert.equal(condition(a, t)?.status, 'True', `${t}: ${JSON.stringify(condition(a, t))}`);
    }
    assert.equal(condition(a, 'Reconciling')?.status, 'False');
    assert.equal(condition(a, 'Stalled')?.status, 'False');
    for (const c of a.status?.conditions ?? []) assert.equal(c.observedGeneration, a.metadata.generation);
    const get = await cluster.kubectl(['get', 'a2a', 'weather', '-n', ns]);
    assert.match(get.stdout, /weather\s+True\s+Succeeded\s+3\/3\s+JSONRPC\s+3\/3/);
  });

  test('kstatus (the real library) judges it Current', async () => {
    const json = (await cluster.kubectl(['get', 'a2a', 'weather', '-n', ns, '-o', 'json'])).stdout;
    assert.match(
      execFileSync(binaryPath('kstatus-check'), { input: json, encoding: 'utf8' }),
      new RegExp(`^${ns}/weather Current`),
    );
  });

  test('a steady agent causes zero API writes over several probe periods', async () => {
    const periodSeconds = 5;
    const rv = async (kind: string, name: string) =>
      (await cluster.kubectl(['get', kind, name, '-n', ns, '-o', 'jsonpath={.metadata.resourceVersion}']))
        .stdout;
    const objects: [string, string][] = [
      ['a2a', 'weather'],
      ['service', 'weather'],
      ['endpointslice', 'weather-http'],
      ['endpointslice', 'weather-grpc'],
      ['configmap', 'weather-agent-card'],
      ['pod', 'weather-0'],
    ];
    const before = await Promise.all(objects.map(([k, n]) => rv(k, n)));
    const writesBefore = await apiWrites(operator);
    const lastProbeBefore = await lastProbeSeconds(operator, ns, 'weather');
    assert.ok(lastProbeBefore !== undefined, 'a2a_operator_last_probe_timestamp_seconds is exported');
    const probesBefore = await operator
      .metrics()
      .then((m) =>
        [...m.matchAll(/^a2a_operator_probes_total\{[^}]*\} (\d+)/gm)].reduce((n, x) => n + Number(x[1]), 0),
      );
    await new Promise((r) => setTimeout(r, 3 * periodSeconds * 1000 + 1000));
    const probesAfter = await operator
      .metrics()
      .then((m) =>
        [...m.matchAll(/^a2a_operator_probes_total\{[^}]*\} (\d+)/gm)].reduce((n, x) => n + Number(x[1]), 0),
      );
    assert.ok(
      probesAfter - probesBefore >= 2 * 9,
      `the agent was probed (${probesAfter - probesBefore} probes)`,
    );
    assert.equal(await apiWrites(operator), writesBefore, 'no API write while nothing changed');
    // Freshness is a metric, not a status field: it moves while status stays as written.
    const lastProbe = await lastProbeSeconds(operator, ns, 'weather');
    assert.ok(
      lastProbe !== undefined && Date.now() / 1000 - lastProbe < 2 * periodSeconds + 5,
      `a2a_operator_last_probe_timestamp_seconds is fresh (${lastProbe}, now ${Date.now() / 1000})`,
    );
    assert.ok(lastProbe > lastProbeBefore!, 'and it advanced over the steady periods');
    assert.deepEqual(await Promise.all(objects.map(([k, n]) => rv(k, n))), before, 'no object was rewritten');
  });
});
