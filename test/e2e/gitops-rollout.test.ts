/**
 * A GitOps rollout stopped by the gate (docs/gitops.md, "Worked example"), on real pods: a
 * healthy Deployment opted in to `a2a.dev/card-verified` (maxUnavailable 0, a short progress
 * deadline), then a revision whose card lies (gRPC declared, the A2A service never registered).
 * The kubelet keeps the new pod not Ready from the gate, the Deployment controller stalls the
 * rollout with ProgressDeadlineExceeded, and kstatus, the Flux expressions and the Argo CD check
 * judge the real objects as docs/gitops.md says. Then the fixed revision rolls out.
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
  getJson,
  healthyPodConfig,
  lyingPodConfig,
  podCondition,
  waitAgent,
  type PodView,
} from './agents.js';
import { createPodNamespace, deleteNamespace, useRealCluster, type E2ECluster } from './fixture.js';
import { assertGitOpsHealth, kstatusOf } from './health.js';
import { installOperator, type InstalledOperator } from './operator.js';

const log = (line: string) => process.stderr.write(`[e2e:gitops-rollout] ${line}\n`);
const NAME = 'billing';
const REPLICAS = 2;
const DEADLINE_SECONDS = 30;

let cluster: E2ECluster;
let ns: string;
let image: string;
let operator: InstalledOperator | undefined;

interface DeploymentView {
  metadata: { generation: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

interface Slice {
  metadata: { name: string };
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean }; targetRef?: { name: string } }[];
}

function deployment(revision: 'v1' | 'lying' | 'fixed') {
  return agentDeployment({
    namespace: ns,
    name: NAME,
    image,
    replicas: REPLICAS,
    gate: true,
    progressDeadlineSeconds: DEADLINE_SECONDS,
    config: revision === 'lying' ? lyingPodConfig(NAME, ns) : healthyPodConfig(NAME, ns),
    // a new pod template for each revision (the fixed one is not a rollback to v1's ReplicaSet)
    labels: { revision },
  });
}

const getDeployment = () => getJson<DeploymentView>(cluster, ['deployment', NAME, '-n', ns]);

function depCondition(d: DeploymentView, type: string) {
  return d.status?.conditions?.find((c) => c.type === type);
}

/** The rollout of the current generation is complete: every replica updated, ready and available. */
function rolledOut(d: DeploymentView): boolean {
  const s = d.status;
  return (
    s?.observedGeneration === d.metadata.generation &&
    s.updatedReplicas === REPLICAS &&
    s.readyReplicas === REPLICAS &&
    s.availableReplicas === REPLICAS &&
    s.replicas === REPLICAS &&
    depCondition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable'
  );
}

async function podsOf(revision: string): Promise<PodView[]> {
  return (await agentPods(cluster, ns, NAME)).filter((p) => p.metadata.labels?.revision === revision);
}

async function healthy(): Promise<{ agent: AgentView; pods: PodView[] }> {
  const started = Date.now();
  const d = await waitFor(
    'the rollout to complete',
    async () => rolledOut(await getDeployment()),
    240_000,
    1000,
  )
    .then(getDeployment)
    .catch(async (err: unknown) => {
      throw new Error(
        `${String(err)}\n${JSON.stringify((await getDeployment()).status)}\n${await operator?.logs(40)}`,
      );
    });
  log(`rollout complete after ${((Date.now() - started) / 1000).toFixed(1)}s`);
  assert.match(await kstatusOf(d), /^Current /);
  const agent = await waitAgent(
    cluster,
    ns,
    NAME,
    'Ready=True',
    (a) =>
      condition(a, 'Ready')?.status === 'True' &&
      a.status?.card?.podsConsistent === `${REPLICAS}/${REPLICAS}`,
  );
  const pods = await agentPods(cluster, ns, NAME);
  return { agent, pods };
}

before(async () => {
  cluster = await useRealCluster();
  ns = await createPodNamespace(cluster, 'e2e-gitops');
  image = await agentImage(cluster, log);
  operator = await installOperator(cluster, { watchNamespaces: [ns], replicas: 1, log });
});

after(async () => {
  if (ns) await deleteNamespace(cluster, ns);
  await operator?.uninstall();
});

describe('a GitOps rollout stopped by the card-verified gate', () => {
  test('v1 (truthful card) rolls out: the kubelet turns the gated pods Ready once the operator verified them', async () => {
    await applyObjects(
      cluster,
      deployment('v1'),
      a2aAgent({
        namespace: ns,
        name: NAME,
        probe: { periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 },
      }),
    );
    const { agent, pods } = await healthy();
    assert.equal(pods.length, REPLICAS);
    for (const p of pods) {
      assert.equal(podCondition(p, GATE)?.status, 'True');
      assert.equal(podCondition(p, GATE)?.reason, 'CardVerified');
      assert.equal(podCondition(p, 'Ready')?.status, 'True');
    }
    assert.equal(agent.status?.verified, '3/3');
    await assertGitOpsHealth(agent, 'Healthy');
  });

  test('a revision whose card lies: the new pod never turns Ready, the rollout fails with ProgressDeadlineExceeded', async () => {
    const v1 = (await podsOf('v1')).map((p) => p.metadata.name).sort();
    const started = Date.now();
    await applyObjects(cluster, deployment('lying'));

    // the surge pod runs with ready containers; the operator holds its gate False: first as not
    // yet verified (PodNotServing), then with the probes' verdict, which is what this waits for
    const liar = await waitFor(
      'the new pod with its gate False for the unimplemented gRPC handler',
      async () => {
        const [p] = await podsOf('lying');
        return p &&
          podCondition(p, 'ContainersReady')?.status === 'True' &&
          podCondition(p, GATE)?.status === 'False' &&
          podCondition(p, GATE)?.reason === 'InterfaceUnimplemented'
          ? p
          : undefined;
      },
      180_000,
      500,
    );
    log(`gate False on ${liar.metadata.name} after ${((Date.now() - started) / 1000).toFixed(1)}s`);
    assert.equal(podCondition(liar, GATE)?.reason, 'InterfaceUnimplemented');
    assert.match(podCondition(liar, GATE)?.message ?? '', /GRPC/);
    // the kubelet computes Ready from the gate
    assert.equal(podCondition(liar, 'Ready')?.status, 'False');
    assert.equal(podCondition(liar, 'Ready')?.reason, 'ReadinessGatesNotReady');

    const stalled = await waitFor(
      'Progressing=False ProgressDeadlineExceeded',
      async () => {
        const d = await getDeployment();
        const c = depCondition(d, 'Progressing');
        return c?.status === 'False' && c.reason === 'ProgressDeadlineExceeded' ? d : undefined;
      },
      (DEADLINE_SECONDS + 150) * 1000,
      1000,
    );
    log(
      `ProgressDeadlineExceeded ${((Date.now() - started) / 1000).toFixed(1)}s after the lying revision was applied`,
    );
    assert.match(await kstatusOf(stalled), /^Failed /);
    // maxUnavailable 0: v1 keeps serving, the liar is the only updated pod and not available
    assert.equal(stalled.status?.updatedReplicas, 1);
    assert.equal(stalled.status?.availableReplicas, REPLICAS);
    assert.deepEqual((await podsOf('v1')).map((p) => p.metadata.name).sort(), v1);
    for (const p of await podsOf('v1')) assert.equal(podCondition(p, 'Ready')?.status, 'True');
    const [still] = await podsOf('lying');
    assert.equal(still?.metadata.name, liar.metadata.name);
    assert.equal(podCondition(still!, 'Ready')?.status, 'False');

    // routing never sent a client to the broken binding: the grpc slice holds only v1 pods, and
    // the liar is listed not ready wherever it is listed
    const slices = await getJson<{ items: Slice[] }>(cluster, [
      'endpointslices',
      '-n',
      ns,
      '-l',
      `kubernetes.io/service-name=${NAME}`,
    ]);
    const grpc = slices.items.find((s) => s.metadata.name === `${NAME}-grpc`);
    assert.deepEqual((grpc?.endpoints ?? []).map((e) => e.targetRef?.name).sort(), v1);
    for (const s of slices.items)
      for (const e of s.endpoints ?? []) {
        const ready = e.targetRef?.name !== liar.metadata.name;
        assert.equal(e.conditions?.ready, ready, `${s.metadata.name} ${e.targetRef?.name}`);
      }
  });

  test('the A2AAgent during the stall: PartialFailure (the Deployment fails it); with failOn: AnyPod, Degraded and Failed', async () => {
    // docs/gitops.md: a rollout in progress is the Deployment's to fail; the agent is not Stalled
    const partial = await waitAgent(
      cluster,
      ns,
      NAME,
      'PartialFailure',
      (a) => condition(a, 'PodsConsistent')?.reason === 'PartialFailure',
    );
    assert.equal(condition(partial, 'Ready')?.status, 'False');
    assert.equal(condition(partial, 'Stalled')?.status, 'False');
    await assertGitOpsHealth(partial, 'Progressing');

    // docs/conditions.md: failOn: AnyPod makes a lie on any one pod fail the sync
    const p = await cluster.kubectl([
      'patch',
      'a2a',
      NAME,
      '-n',
      ns,
      '--type=merge',
      '-p',
      '{"spec":{"probe":{"failOn":"AnyPod"}}}',
    ]);
    assert.equal(p.code, 0, p.stderr);
    const failed = await waitAgent(
      cluster,
      ns,
      NAME,
      'Stalled=True FailureConfirmed',
      (a) => condition(a, 'Stalled')?.status === 'True',
    );
    assert.equal(condition(failed, 'Stalled')?.reason, 'FailureConfirmed');
    assert.equal(condition(failed, 'Ready')?.reason, 'InterfaceUnimplemented');
    await assertGitOpsHealth(failed, 'Degraded');
  });

  test('the fixed revision rolls out: every pod gated True and Ready, everything healthy again', async () => {
    const started = Date.now();
    await applyObjects(cluster, deployment('fixed'));
    const { agent, pods } = await healthy();
    log(`fixed revision healthy after ${((Date.now() - started) / 1000).toFixed(1)}s`);
    assert.deepEqual(
      pods.map((p) => p.metadata.labels?.revision),
      ['fixed', 'fixed'],
    );
    for (const p of pods) {
      assert.equal(podCondition(p, GATE)?.status, 'True');
      assert.equal(podCondition(p, 'Ready')?.status, 'True');
    }
    assert.equal(condition(agent, 'Stalled')?.status, 'False');
    await assertGitOpsHealth(agent, 'Healthy');
    const names = pods.map((p) => p.metadata.name).sort();
    // every slice lists exactly the fixed pods, ready (the liar's endpoint left with its pod)
    await waitFor(
      'every slice to list the fixed pods, ready',
      async () => {
        const slices = await getJson<{ items: Slice[] }>(cluster, [
          'endpointslices',
          '-n',
          ns,
          '-l',
          `kubernetes.io/service-name=${NAME}`,
        ]);
        return (
          slices.items.length === 2 &&
          slices.items.every(
            (s) =>
              JSON.stringify((s.endpoints ?? []).map((e) => e.targetRef?.name).sort()) ===
                JSON.stringify(names) && (s.endpoints ?? []).every((e) => e.conditions?.ready === true),
          )
        );
      },
      60_000,
      500,
    );
  });
});
