// Removals always flow (docs/routing.md: fail static holds back additions and unproven withdrawals,
// never removals). A pod that is deleted or turns NotReady leaves every EndpointSlice even
// while full routing is held: a missing Secret, a renamed containerPort (PortNotFound), another
// pod's probe still running. What has no evidence against it stays (never wiped).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { deletePod, setPodStatus } from '../harness/pods.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';
import { observeOwnedRouting, type RoutingView } from '../harness/routing-observer.js';

let cluster: Cluster;
let operator: OperatorProcess;
const pods: AgentPod[] = [];

/** The agent's Service's slices, as the operator wrote them. */
const routed = (ns: string, service: string) => observeOwnedRouting(cluster, ns, service);

/** Whether the operator has a slice for `port` of `service`. */
const hasSlice = (o: RoutingView, service: string, port: string) =>
  o.slices.some((x) => x.service === service && x.port === port);

async function startPods(ns: string, app: string, n: number, containerPorts = false): Promise<AgentPod[]> {
  const started: AgentPod[] = [];
  for (let i = 0; i < n; i++) {
    const p = await startAgentPod(cluster, {
      namespace: ns,
      name: `${app}-${i}`,
      labels: { app },
      config: healthyAgentConfig(`${app}.${ns}.svc`),
      ...(containerPorts
        ? {
            containerPorts: [
              { name: 'http', containerPort: 8080 },
              { name: 'grpc', containerPort: 9090 },
            ],
          }
        : {}),
    });
    started.push(p);
    pods.push(p);
  }
  return started;
}

async function routedToAll(ns: string, app: string, ps: AgentPod[]): Promise<void> {
  const ips = ps.map((p) => p.ip).sort();
  await waitFor(
    `${app}: both ports routed to every pod`,
    async () => {
      const o = await routed(ns, app);
      return JSON.stringify(o.http) === JSON.stringify(ips) && JSON.stringify(o.grpc) === JSON.stringify(ips);
    },
    60_000,
  );
}

/**
 * Time from now until `ip` is in neither port's slice of the Service; asserts that both slices
 * stayed and that `kept` never left either of them meanwhile (never wiped). Violations are
 * recorded and asserted after the wait: waitFor retries on a throw, so an assertion inside it
 * would count on the last poll only.
 */
async function timeUntilGone(ns: string, service: string, ip: string, kept: string[]): Promise<number> {
  const start = Date.now();
  const wiped: string[] = [];
  await waitFor(
    `${ip} gone from every slice of ${service}`,
    async () => {
      const o = await routed(ns, service);
      for (const port of ['http', 'grpc'] as const)
        for (const k of kept) if (!o[port].includes(k)) wiped.push(`${k} left the ${port} slice`);
      return (['http', 'grpc'] as const).every((port) => hasSlice(o, service, port) && !o[port].includes(ip));
    },
    60_000,
    50,
  );
  assert.deepEqual(wiped, [], 'the pods with no evidence against them stay routed');
  return Date.now() - start;
}

before(async () => {
  cluster = await useCluster();
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath });
  await operator.waitReady();
});

after(async () => {
  await operator?.stop();
  await Promise.all(pods.map((p) => p.destroy()));
});

describe('removals flow while full routing is held', () => {
  test('a pod deleted while the probe Secret is missing leaves every slice', async () => {
    const ns = await cluster.createNamespace('rm-secret');
    const ps = await startPods(ns, 'sec', 2);
    await apply(
      cluster,
      agentManifest(ns, 'sec', healthySpec('sec', { periodSeconds: 5, timeoutSeconds: 2 })),
    );
    await routedToAll(ns, 'sec', ps);
    await apply(
      cluster,
      agentManifest(ns, 'sec', {
        ...healthySpec('sec', { periodSeconds: 5, timeoutSeconds: 2 }),
        auth: { bearerToken: { secretKeyRef: { name: 'missing', key: 'token' } } },
      }),
    );
    await waitAgent(
      cluster,
      ns,
      'sec',
      'Stalled SecretNotFound',
      (a) => condition(a, 'Stalled')?.reason === 'SecretNotFound',
    );
    // The process keeps serving: only the Pod object goes, so the removal is the pod event's.
    await deletePod(cluster, ns, 'sec-1');
    const ms = await timeUntilGone(ns, 'sec', ps[1]!.ip, [ps[0]!.ip]);
    // The pod event's removal, not a later probe's: a probe finds the pod's process still serving.
    assert.ok(ms < 30_000, `withdrawn after ${ms} ms`);
    const a = await waitAgent(cluster, ns, 'sec', 'still stalled', () => true);
    assert.equal(condition(a, 'Stalled')?.reason, 'SecretNotFound', 'the spec problem is still reported');
  });

  test('a pod turned NotReady while a containerPort name is wrong (PortNotFound) leaves every slice; the others stay', async () => {
    const ns = await cluster.createNamespace('rm-port');
    const ps = await startPods(ns, 'port', 3, true);
    const spec = (target: string) => ({
      ...healthySpec('port', { periodSeconds: 5, timeoutSeconds: 2 }),
      ports: [
        { name: 'http', port: 8080, targetPort: 'http' },
        { name: 'grpc', port: 9090, targetPort: target },
      ],
    });
    await apply(cluster, agentManifest(ns, 'port', spec('grpc')));
    await routedToAll(ns, 'port', ps);
    await apply(cluster, agentManifest(ns, 'port', spec('grpc-renamed')));
    await waitAgent(
      cluster,
      ns,
      'port',
      'Stalled PortNotFound',
      (a) => condition(a, 'Stalled')?.reason === 'PortNotFound',
    );
    // A spec mistake is no evidence about the pods: nothing was withdrawn for it.
    const held = await routed(ns, 'port');
    assert.deepEqual(
      { http: held.http, grpc: held.grpc, ports: held.slices.map((x) => x.port).sort() },
      { http: ps.map((p) => p.ip).sort(), grpc: ps.map((p) => p.ip).sort(), ports: ['grpc', 'http'] },
    );
    await setPodStatus(cluster, ns, 'port-2', { ip: ps[2]!.ip, ready: false });
    await timeUntilGone(ns, 'port', ps[2]!.ip, [ps[0]!.ip, ps[1]!.ip]);
  });

  test("a pod deleted while another pod's probe is still running (a slow agent) leaves every slice before that probe ends", async () => {
    const ns = await cluster.createNamespace('rm-slow');
    const ps = await startPods(ns, 'slow', 2);
    // A long probe deadline: the new pod's gRPC probe hangs for all of it.
    const probe = { periodSeconds: 60, timeoutSeconds: 20 }; // the largest the CRD allows
    await apply(cluster, agentManifest(ns, 'slow', healthySpec('slow', probe)));
    await routedToAll(ns, 'slow', ps);
    const slow = await startAgentPod(cluster, {
      namespace: ns,
      name: 'slow-hanging',
      labels: { app: 'slow' },
      // The card declares gRPC on :9090; there a listener accepts and never answers.
      config: healthyAgentConfig(`slow.${ns}.svc`, { grpc: false, hang: { port: 9090 } }),
    });
    pods.push(slow);
    await waitFor(
      'the hanging probe has started',
      async () => ((await slow.state()).connections.hang ?? 0) > 0,
      30_000,
    );
    const started = Date.now();
    await deletePod(cluster, ns, 'slow-0');
    const ms = await timeUntilGone(ns, 'slow', ps[0]!.ip, [ps[1]!.ip]);
    const a = await waitAgent(cluster, ns, 'slow', 'status', () => true);
    assert.ok(
      Date.now() - started < probe.timeoutSeconds * 1000,
      `withdrawn after ${ms} ms, before the hanging probe's deadline`,
    );
    assert.notEqual(a.status?.interfaces?.[2]?.state, 'Timeout', 'the hanging probe had not ended yet');
    assert.ok(!(await routed(ns, 'slow')).grpc.includes(slow.ip), 'the unproven pod was never added');
  });
});
