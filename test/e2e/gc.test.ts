/**
 * Deleting an A2AAgent on a real cluster: its Service, EndpointSlices and card ConfigMap carry a
 * controller ownerReference to it, so the garbage collector (kube-controller-manager) deletes
 * them; the operator is scaled to zero while that happens, so nobody else can have. Its pods'
 * `a2a.dev/card-verified` gates, held False by a lying card, stop holding them: the operator
 * releases a gate no agent owns any more (docs/conditions.md, "Released, never left False":
 * True with reason AgentDeleted, also when the delete happened while it was down, as every pod
 * event and reconcile checks), and the kubelet then turns the pod Ready.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { condition, waitFor, type AgentView } from '../harness/wait.js';
import {
  GATE,
  a2aAgent,
  agentDeployment,
  agentImage,
  agentPods,
  applyObjects,
  getAgent,
  getJson,
  lyingPodConfig,
  podCondition,
  waitAgent,
} from './agents.js';
import { createPodNamespace, deleteNamespace, useRealCluster, type E2ECluster } from './fixture.js';
import { installOperator, type InstalledOperator } from './operator.js';

const log = (line: string) => process.stderr.write(`[e2e:gc] ${line}\n`);
const NAME = 'doomed';
/** Deleted while the operator runs. */
const LIVE = 'live';

let cluster: E2ECluster;
let ns: string;
let operator: InstalledOperator | undefined;
let agent: AgentView;

interface Owned {
  kind: string;
  metadata: {
    name: string;
    labels?: Record<string, string>;
    ownerReferences?: {
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
      blockOwnerDeletion?: boolean;
    }[];
  };
}

/** The Service, EndpointSlices and card ConfigMap of the agent, as they are now. */
async function owned(name = NAME): Promise<Owned[]> {
  const [svc, slices, cms] = await Promise.all([
    getJson<{ items: Owned[] }>(cluster, ['services', '-n', ns, '--field-selector', `metadata.name=${name}`]),
    getJson<{ items: Owned[] }>(cluster, [
      'endpointslices',
      '-n',
      ns,
      '-l',
      `kubernetes.io/service-name=${name}`,
    ]),
    getJson<{ items: Owned[] }>(cluster, [
      'configmaps',
      '-n',
      ns,
      '--field-selector',
      `metadata.name=${name}-agent-card`,
    ]),
  ]);
  return [
    ...svc.items.map((o) => ({ ...o, kind: 'Service' })),
    ...slices.items.map((o) => ({ ...o, kind: 'EndpointSlice' })),
    ...cms.items.map((o) => ({ ...o, kind: 'ConfigMap' })),
  ];
}

async function scaleOperator(replicas: number): Promise<void> {
  const r = await cluster.kubectl([
    'scale',
    'deployment',
    operator!.deployment,
    '-n',
    operator!.namespace,
    `--replicas=${replicas}`,
  ]);
  assert.equal(r.code, 0, r.stderr);
}

before(async () => {
  cluster = await useRealCluster();
  ns = await createPodNamespace(cluster, 'e2e-gc');
  const image = await agentImage(cluster, log);
  operator = await installOperator(cluster, { watchNamespaces: [ns], replicas: 1, log });
  // one pod whose card declares gRPC it does not serve: its gate goes False, it is not Ready
  await applyObjects(
    cluster,
    ...[NAME, LIVE].flatMap((name) => [
      agentDeployment({ namespace: ns, name, image, gate: true, config: lyingPodConfig(name, ns) }),
      a2aAgent({ namespace: ns, name, probe: { periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 } }),
    ]),
  );
  agent = await waitAgent(
    cluster,
    ns,
    NAME,
    'the failure confirmed',
    (a) => condition(a, 'Stalled')?.status === 'True',
  );
  await waitAgent(
    cluster,
    ns,
    LIVE,
    'the failure confirmed',
    (a) => condition(a, 'Stalled')?.status === 'True',
  );
});

after(async () => {
  if (ns) await deleteNamespace(cluster, ns);
  await operator?.uninstall();
});

describe('deleting an A2AAgent on a real cluster', () => {
  test('its Service, EndpointSlices and card ConfigMap carry a controller ownerReference to it', async () => {
    const objects = await waitFor(
      'the Service, two slices and the ConfigMap',
      async () => {
        const o = await owned();
        return o.length === 4 ? o : undefined;
      },
      60_000,
      500,
    );
    assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
      `ConfigMap/${NAME}-agent-card`,
      `EndpointSlice/${NAME}-grpc`,
      `EndpointSlice/${NAME}-http`,
      `Service/${NAME}`,
    ]);
    for (const o of objects) {
      assert.deepEqual(
        o.metadata.ownerReferences?.map((r) => ({
          apiVersion: r.apiVersion,
          kind: r.kind,
          name: r.name,
          uid: r.uid,
          controller: r.controller,
        })),
        [
          {
            apiVersion: 'a2a.dev/v1alpha1',
            kind: 'A2AAgent',
            name: NAME,
            uid: agent.metadata.uid,
            controller: true,
          },
        ],
        `${o.kind}/${o.metadata.name}`,
      );
      assert.equal(o.metadata.labels?.['app.kubernetes.io/managed-by'], 'a2a-operator');
    }
  });

  test('the lying pod is held not Ready by its gate', async () => {
    const [pod] = await agentPods(cluster, ns, NAME);
    assert.ok(pod);
    assert.equal(podCondition(pod, GATE)?.status, 'False');
    assert.equal(podCondition(pod, 'ContainersReady')?.status, 'True');
    assert.equal(podCondition(pod, 'Ready')?.status, 'False');
    assert.equal(podCondition(pod, 'Ready')?.reason, 'ReadinessGatesNotReady');
  });

  test('with the operator running: the objects are collected, the gate released (AgentDeleted), the pod turns Ready', async () => {
    await waitFor('the objects of the live agent', async () => (await owned(LIVE)).length === 4, 60_000, 500);
    const [before] = await agentPods(cluster, ns, LIVE);
    assert.equal(podCondition(before!, 'Ready')?.status, 'False');
    const started = Date.now();
    const d = await cluster.kubectl(['delete', 'a2a', LIVE, '-n', ns]);
    assert.equal(d.code, 0, d.stderr);
    await waitFor(
      'the owned objects to be garbage-collected',
      async () => (await owned(LIVE)).length === 0,
      120_000,
      500,
    );
    const pod = await waitFor(
      'the pod Ready with its gate released',
      async () => {
        const [p] = await agentPods(cluster, ns, LIVE);
        return p && podCondition(p, 'Ready')?.status === 'True' ? p : undefined;
      },
      120_000,
      500,
    );
    log(
      `live delete: objects gone and pod Ready ${((Date.now() - started) / 1000).toFixed(1)}s after the delete`,
    );
    assert.equal(podCondition(pod, GATE)?.status, 'True');
    assert.equal(podCondition(pod, GATE)?.reason, 'AgentDeleted');
  });

  test('with the operator scaled to zero, the garbage collector removes them once the agent is deleted', async () => {
    await scaleOperator(0);
    await waitFor('no operator pod left', async () => (await operator!.pods()).length === 0, 120_000, 500);
    const started = Date.now();
    const d = await cluster.kubectl(['delete', 'a2a', NAME, '-n', ns, '--wait=true', '--timeout=60s']);
    assert.equal(d.code, 0, d.stderr);
    await waitFor(
      'the owned objects to be garbage-collected',
      async () => (await owned()).length === 0,
      120_000,
      500,
    );
    log(`Service, slices and ConfigMap gone ${((Date.now() - started) / 1000).toFixed(1)}s after the delete`);
    await assert.rejects(getAgent(cluster, ns, NAME), /NotFound/);
    // nobody released the gate: the operator was down
    const [pod] = await agentPods(cluster, ns, NAME);
    assert.equal(podCondition(pod!, GATE)?.status, 'False');
    assert.equal(podCondition(pod!, 'Ready')?.status, 'False');
  });

  test('the operator, back, releases the gate (AgentDeleted): the kubelet turns the pod Ready', async () => {
    const started = Date.now();
    await scaleOperator(1);
    const pod = await waitFor(
      'the pod Ready with its gate released',
      async () => {
        const [p] = await agentPods(cluster, ns, NAME);
        return p && podCondition(p, 'Ready')?.status === 'True' ? p : undefined;
      },
      180_000,
      500,
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await operator?.logs(60)}`);
    });
    log(`pod Ready ${((Date.now() - started) / 1000).toFixed(1)}s after the operator was scaled back up`);
    assert.equal(podCondition(pod, GATE)?.status, 'True');
    assert.equal(podCondition(pod, GATE)?.reason, 'AgentDeleted');
    await waitFor(
      'the Deployment to count the pod available',
      async () =>
        (await getJson<{ status?: { availableReplicas?: number } }>(cluster, ['deployment', NAME, '-n', ns]))
          .status?.availableReplicas === 1,
      60_000,
      500,
    );
  });
});
