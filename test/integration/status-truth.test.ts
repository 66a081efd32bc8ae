// Issue 18 on the real control plane: a three-pod agent with one lying pod (its gRPC handler is
// not registered). status.pods names the liar (kubectl describe shows it); the partial failure
// is Ready=False, PodsConsistent=False/PartialFailure and not Stalled (kstatus InProgress) unless
// spec.probe.failOn is AnyPod; a Service conflict is Stalled=ServiceConflict; endpoint readiness
// mirrors the pod's Ready, so a gated pod serves nothing until its whole card is truthful.
//
// With no kubelet, this file plays its readiness part: a pod is Ready when its containers are
// and every readiness gate it lists is True (Kubernetes' rule), recomputed as gates change.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { binaryPath } from '../harness/binaries.js';
import { condition, getAgent, waitAgent, waitFor, type AgentView } from '../harness/wait.js';
import { repeat, type Repeating } from '../harness/repeat.js';

const GATE = 'a2a.dev/card-verified';
const APP = 'truth';
let cluster: Cluster;
let ns: string;
let operator: OperatorProcess;
const pods: AgentPod[] = [];
let kubelet: { stop: () => Promise<void> } | undefined;

interface PodRow {
  name: string;
  ips?: string[];
  ready: boolean;
  probed: boolean;
  cardDigest?: string;
  verified?: string;
  failing?: string[];
  gate?: string;
}
type View = AgentView & { status?: AgentView['status'] & { pods?: PodRow[]; podsNotListed?: number } };

interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  targetRef: { name: string };
}

/** Sets each pod's Ready from ContainersReady and its readiness gates, as a kubelet does. */
function startKubelet(c: Cluster, namespace: string): Repeating {
  const core = c.kc.makeApiClient(k8s.CoreV1Api);
  const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
  return repeat(async () => {
    try {
      const list = await core.listNamespacedPod({ namespace });
      for (const p of list.items) {
        const conds = p.status?.conditions ?? [];
        const status = (t: string) => conds.find((x) => x.type === t)?.status;
        const gates = (p.spec?.readinessGates ?? []).map((g) => g.conditionType);
        const want =
          status('ContainersReady') === 'True' && gates.every((g) => status(g) === 'True') ? 'True' : 'False';
        if (status('Ready') === want) continue;
        await core.patchNamespacedPodStatus(
          {
            name: p.metadata!.name!,
            namespace,
            body: {
              status: { conditions: [{ type: 'Ready', status: want, lastTransitionTime: new Date() }] },
            },
          },
          strategic,
        );
      }
    } catch {
      // a pod deleted meanwhile; try again
    }
    await new Promise((r) => setTimeout(r, 250));
  });
}

/** The agent's probe period in these tests. */
const PERIOD_SECONDS = 4;

async function slice(port: string): Promise<SliceEndpoint[]> {
  const r = await cluster.kubectl(['get', 'endpointslice', `${APP}-${port}`, '-n', ns, '-o', 'json']);
  if (r.code !== 0) return [];
  return (JSON.parse(r.stdout) as { endpoints?: SliceEndpoint[] }).endpoints ?? [];
}
const shown = (eps: SliceEndpoint[]) =>
  eps.map((e) => `${e.targetRef.name}:${e.conditions.ready}/${e.conditions.serving}`).sort();

async function podReady(name: string): Promise<string | undefined> {
  const pod = JSON.parse((await cluster.kubectl(['get', 'pod', name, '-n', ns, '-o', 'json'])).stdout) as {
    status: { conditions?: { type: string; status: string }[] };
  };
  return pod.status.conditions?.find((c) => c.type === 'Ready')?.status;
}

function kstatus(obj: string): string {
  return execFileSync(binaryPath('kstatus-check'), { input: obj, encoding: 'utf8' }).trim().split(' ')[1]!;
}

async function agentJson(name: string): Promise<string> {
  return (await cluster.kubectl(['get', 'a2a', name, '-n', ns, '-o', 'json'])).stdout;
}

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('truth');
  const svc = `${APP}.${ns}.svc`;
  kubelet = startKubelet(cluster, ns);
  for (const i of [0, 1, 2]) {
    const config = healthyAgentConfig(svc);
    if (i === 2) config.grpc = { port: 9090, register: false }; // the liar: gRPC handler never registered
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: `${APP}-${i}`,
        labels: { app: APP },
        config,
        readinessGates: [GATE],
      }),
    );
  }
  await apply(
    cluster,
    agentManifest(ns, APP, healthySpec(APP, { periodSeconds: PERIOD_SECONDS, timeoutSeconds: 2 })),
  );
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
  await waitAgent(
    cluster,
    ns,
    APP,
    'gRPC confirmed failing on the liar only, settled',
    (a) =>
      a.status?.interfaces?.[2]?.state === 'Unimplemented' &&
      a.status.interfaces[2].verifiedPods === '2/3' &&
      condition(a, 'Reconciling')?.status === 'False',
    120_000,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${operator.proc.tail(40)}`);
  });
});

after(async () => {
  await kubelet?.stop();
  await operator?.stop();
  await Promise.all(pods.map((p) => p.destroy()));
});

describe('a lying pod among three', () => {
  test('partial failure: Ready=False (the failure), PodsConsistent=False/PartialFailure, Stalled=False; kstatus InProgress', async () => {
    const a = await getAgent(cluster, ns, APP);
    const c = (t: string) => `${t}=${condition(a, t)?.status}/${condition(a, t)?.reason}`;
    assert.deepEqual(['Ready', 'InterfacesVerified', 'PodsConsistent', 'Stalled'].map(c), [
      'Ready=False/InterfaceUnimplemented',
      'InterfacesVerified=False/InterfaceUnimplemented',
      'PodsConsistent=False/PartialFailure',
      'Stalled=False/PartialFailure',
    ]);
    assert.match(condition(a, 'PodsConsistent')!.message, new RegExp(`1/3 fail: ${APP}-2 \\(GRPC `));
    assert.equal(kstatus(await agentJson(APP)), 'InProgress');
  });

  test('the interface message names binding, URL and version once, then the evidence and the pods', async () => {
    const a = await getAgent(cluster, ns, APP);
    const url = `http://${APP}.${ns}.svc:9090`;
    const iv = condition(a, 'InterfacesVerified')!.message;
    assert.ok(iv.startsWith(`GRPC ${url} (v1.0): `), iv);
    assert.equal(iv.split(url).length - 1, 1, iv);
    assert.match(
      iv,
      new RegExp(`UNIMPLEMENTED.* on 1/3 pods \\(${APP}-2\\); verified on ${APP}-0, ${APP}-1$`),
    );
    const entry = a.status!.interfaces![2]!.message;
    assert.ok(!entry.includes(url) && !entry.includes('GRPC v1.0'), entry);
  });

  test('status.pods and kubectl describe show which pod lies', async () => {
    const a = (await getAgent(cluster, ns, APP)) as View;
    const rows = a.status?.pods ?? [];
    assert.deepEqual(
      rows.map((p) => p.name),
      [`${APP}-2`, `${APP}-0`, `${APP}-1`],
      'the failing pod first',
    );
    const liar = rows[0]!;
    assert.deepEqual(liar.ips, [pods[2]!.ip]);
    assert.equal(liar.cardDigest, a.status?.card?.digest);
    assert.equal(liar.verified, '2/3');
    assert.deepEqual(liar.failing, [`GRPC http://${APP}.${ns}.svc:9090 (v1.0) Unimplemented`]);
    assert.equal(liar.gate, 'False/InterfaceUnimplemented');
    await waitFor('the liar is not Ready in status', async () => {
      const r = ((await getAgent(cluster, ns, APP)) as View).status?.pods?.[0];
      return r?.ready === false && r.probed;
    });
    for (const ok of rows.slice(1)) {
      assert.equal(ok.failing, undefined);
      assert.equal(ok.gate, 'True/CardVerified');
    }
    const d = await cluster.kubectl(['describe', 'a2a', APP, '-n', ns]);
    assert.equal(d.code, 0, d.stderr);
    const podsSection = d.stdout.slice(d.stdout.indexOf('  Pods:'));
    assert.ok(d.stdout.includes('  Pods:'), d.stdout);
    assert.match(podsSection, /Failing:\s+GRPC http:\/\/\S+:9090 \(v1\.0\) Unimplemented/);
    assert.match(podsSection, new RegExp(`Name:\\s+${APP}-2`));
    assert.equal(
      (a.status as Record<string, unknown>).lastProbeTime,
      undefined,
      'no stale "last probe" field',
    );
  });

  test('endpoint readiness follows the pod: the gated liar is ready:false on http too, absent from grpc', async () => {
    await waitFor('the liar Ready=False (its gate)', async () => (await podReady(`${APP}-2`)) === 'False');
    const want = [`${APP}-0:true/true`, `${APP}-1:true/true`];
    await waitFor(
      'slices mirror pod readiness',
      async () =>
        JSON.stringify(shown(await slice('http'))) === JSON.stringify([...want, `${APP}-2:false/false`]) &&
        JSON.stringify(shown(await slice('grpc'))) === JSON.stringify(want),
      30_000,
    ).catch(async (err: unknown) => {
      throw new Error(
        `${String(err)}: http ${shown(await slice('http')).join(' ')}; grpc ${shown(await slice('grpc')).join(' ')}`,
      );
    });
  });

  test('gated rollout: a new truthful pod turns ready only after its gate; a new lying pod never serves', async () => {
    const svc = `${APP}.${ns}.svc`;
    const broken = healthyAgentConfig(svc);
    broken.grpc = false; // the card declares gRPC on :9090, nothing listens
    const liar = await startAgentPod(cluster, {
      namespace: ns,
      name: `${APP}-new-liar`,
      labels: { app: APP },
      config: broken,
      readinessGates: [GATE],
    });
    pods.push(liar);
    // Created with containers not ready (no window in which the harness says Ready before any
    // gate exists), then its containers turn ready: from there on Ready is the gate's to give.
    const good = await startAgentPod(cluster, {
      namespace: ns,
      name: `${APP}-new-good`,
      labels: { app: APP },
      config: healthyAgentConfig(svc),
      readinessGates: [GATE],
      ready: false,
    });
    pods.push(good);
    const history: string[] = [];
    let listedBeforeReady = false;
    // Recorded, not asserted, inside the poll: waitFor retries on a throw, so an assertion there
    // would count on the last poll only.
    const liarServed: string[] = [];
    const watchLiar = (endpoints: SliceEndpoint[]) => {
      for (const e of endpoints)
        if (e.targetRef.name === liar.name && (e.conditions.ready || e.conditions.serving))
          liarServed.push(JSON.stringify(e));
    };
    const watching = waitFor(
      'the new truthful pod routed ready on both ports',
      async () => {
        const http = await slice('http');
        const grpc = await slice('grpc');
        watchLiar([...http, ...grpc]);
        const g = http.find((e) => e.targetRef.name === good.name);
        const gg = grpc.find((e) => e.targetRef.name === good.name);
        history.push(g ? String(g.conditions.ready) : 'absent');
        // The gate is set before the pod turns Ready, and Ready before its endpoints do.
        if ((g?.conditions.ready || gg?.conditions.ready) && (await podReady(good.name)) !== 'True')
          listedBeforeReady = true;
        return g?.conditions.ready === true && gg?.conditions.ready === true;
      },
      60_000,
      300,
    );
    await new Promise((r) => setTimeout(r, 1000));
    await cluster.kc.makeApiClient(k8s.CoreV1Api).patchNamespacedPodStatus(
      {
        name: good.name,
        namespace: ns,
        body: {
          status: {
            conditions: [{ type: 'ContainersReady', status: 'True', lastTransitionTime: new Date() }],
          },
        },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    await watching;
    assert.equal(listedBeforeReady, false, `an endpoint was ready before its pod: ${history.join(' → ')}`);
    // And for two probe periods after the truthful pod is in: the liar's gate stays shut.
    for (const until = Date.now() + 2 * PERIOD_SECONDS * 1000; Date.now() < until;) {
      watchLiar([...(await slice('http')), ...(await slice('grpc'))]);
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.deepEqual(liarServed, [], 'the lying pod served');
    assert.equal(await podReady(good.name), 'True');
    assert.equal(await podReady(liar.name), 'False');
    const a = await waitAgent(cluster, ns, APP, 'the new liar listed', (x) =>
      ((x as View).status?.pods ?? []).some((p) => p.name === liar.name && p.failing !== undefined),
    );
    const row = (a as View).status!.pods!.find((p) => p.name === liar.name)!;
    assert.equal(row.gate, 'False/Unreachable');
    assert.equal(
      condition(a, 'Stalled')?.status,
      'False',
      'partial: the rollout is held by the gate, not failed',
    );
  });

  test('spec.probe.failOn AnyPod: the same partial failure is Stalled=True/FailureConfirmed; kstatus Failed', async () => {
    const spec = healthySpec(APP, { periodSeconds: 4, timeoutSeconds: 2 }) as {
      probe: Record<string, unknown>;
    };
    spec.probe.failOn = 'AnyPod';
    await apply(cluster, agentManifest(ns, APP, spec));
    const a = await waitAgent(
      cluster,
      ns,
      APP,
      'Stalled with failOn AnyPod',
      (x) => condition(x, 'Stalled')?.status === 'True',
      60_000,
    );
    assert.equal(condition(a, 'Stalled')?.reason, 'FailureConfirmed');
    assert.match(condition(a, 'Stalled')!.message, /spec\.probe\.failOn: AnyPod/);
    assert.equal(kstatus(await agentJson(APP)), 'Failed');
  });

  test('a Service conflict with every interface verified is Stalled=True/ServiceConflict, never FailureConfirmed', async () => {
    await apply(cluster, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'taken', namespace: ns },
      spec: { ports: [{ name: 'http', port: 8080 }] },
    });
    // Selects only the two truthful original pods (an overlap with the older agent costs only gates).
    const spec = healthySpec(APP, { periodSeconds: 4, timeoutSeconds: 2 }) as Record<string, unknown>;
    spec.selector = { matchLabels: { app: APP, truthful: 'true-card' } };
    spec.routing = { serviceName: 'taken' };
    for (const p of pods.slice(0, 2))
      await cluster.kubectl(['label', 'pod', p.name, '-n', ns, 'truthful=true-card', '--overwrite']);
    await apply(cluster, agentManifest(ns, 'conflicted', spec));
    const a = await waitAgent(
      cluster,
      ns,
      'conflicted',
      'settled',
      (x) => condition(x, 'Stalled')?.status === 'True',
      90_000,
    );
    const c = (t: string) => `${t}=${condition(a, t)?.status}/${condition(a, t)?.reason}`;
    assert.deepEqual(['Ready', 'InterfacesVerified', 'Advertised', 'Stalled'].map(c), [
      'Ready=False/ServiceConflict',
      'InterfacesVerified=True/AllVerified',
      'Advertised=False/ServiceConflict',
      'Stalled=True/ServiceConflict',
    ]);
    assert.equal(kstatus(await agentJson('conflicted')), 'Failed');
  });
});
