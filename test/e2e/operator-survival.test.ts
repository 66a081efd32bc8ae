/**
 * The operator survives losing its leader pod (issue 14 item 4, last bullet), measured from the
 * outside: two replicas installed by the chart judge a real agent; the leader pod is deleted
 * (graceful: it releases the Lease on SIGTERM), then the next leader is killed outright (SIGKILL
 * of its container through containerd, then the pod force-deleted: no release, the other pods
 * must wait the lease out). Each time a spec change of the agent is made right after the kill, and
 * the test measures how long until its status shows that generation (observedGeneration, still
 * Ready) and until another pod holds the Lease. Bounds are the design's own (lease duration,
 * retry period, the pod's grace period) plus generous slack for a busy machine; the numbers are
 * printed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as k8s from '@kubernetes/client-node';
import { LEADER_ELECTION_DEFAULTS } from '../../src/kube/leader-election.js';
import { ctr } from '../harness/real-cluster/containerd.js';
import { condition, waitFor, type AgentView } from '../harness/wait.js';
import {
  a2aAgent,
  agentDeployment,
  agentImage,
  applyObjects,
  getAgent,
  healthyPodConfig,
  waitPodsRunning,
} from './agents.js';
import { createPodNamespace, deleteNamespace, useRealCluster, type E2ECluster } from './fixture.js';
import { installOperator, type InstalledOperator } from './operator.js';

const log = (line: string) => process.stderr.write(`[e2e:operator-survival] ${line}\n`);
const AGENT = 'survivor';
const TIMEOUT = 180_000;
/** A busy 2-core machine: a reconcile (probe of one pod over three bindings) and API latency. */
const SLACK_MS = 60_000;

let cluster: E2ECluster;
let ns: string;
let op: InstalledOperator | undefined;
let period = 5;

function livePods(pods: k8s.V1Pod[]): string[] {
  return pods.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata!.name!);
}

/** Changes the agent's spec (probe period 5 <-> 6 s) and returns the new generation. */
async function bumpSpec(): Promise<number> {
  period = period === 5 ? 6 : 5;
  const r = await cluster.kubectl([
    '-n',
    ns,
    'patch',
    'a2a',
    AGENT,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { probe: { periodSeconds: period } } }),
    '-o',
    'jsonpath={.metadata.generation}',
  ]);
  assert.equal(r.code, 0, r.stderr);
  return Number(r.stdout);
}

interface Takeover {
  leaseMs: number;
  statusMs: number;
  newLeader: string;
}

/**
 * Kills the leader with `kill`, changes the spec right after, and times (from the kill) the Lease
 * moving to another pod and the status reaching the new generation.
 */
async function takeover(what: string, kill: (leader: string) => Promise<void>): Promise<Takeover> {
  const leader = await op!.waitReady();
  const standby = livePods(await op!.pods()).filter((p) => p !== leader);
  log(`${what}: leader ${leader}, standby ${standby.join(', ')}`);
  const t0 = Date.now();
  await kill(leader);
  const generation = await bumpSpec();
  let leaseMs: number | undefined;
  let statusMs: number | undefined;
  let newLeader = '';
  let seen: AgentView | undefined;
  await waitFor(
    `${what}: another pod to lead and ${ns}/${AGENT} to show generation ${generation}`,
    async () => {
      if (leaseMs === undefined) {
        const holder = await op!.leaderPod();
        if (holder && holder !== leader) [leaseMs, newLeader] = [Date.now() - t0, holder];
      }
      if (statusMs === undefined) {
        const a = (seen = await getAgent(cluster, ns, AGENT));
        if ((a.status?.observedGeneration ?? 0) >= generation) statusMs = Date.now() - t0;
      }
      return leaseMs !== undefined && statusMs !== undefined;
    },
    TIMEOUT,
    250,
  ).catch(async (err: unknown) =>
    assert.fail(
      `${String(err)}\nlast status: ${JSON.stringify(seen?.status?.conditions)}\n${await op!.logs()}`,
    ),
  );
  const a = await getAgent(cluster, ns, AGENT);
  assert.equal(condition(a, 'Ready')?.status, 'True', JSON.stringify(a.status?.conditions));
  log(
    `${what}: Lease taken by ${newLeader} after ${(leaseMs! / 1000).toFixed(1)}s; ` +
      `spec change (generation ${generation}) in status after ${(statusMs! / 1000).toFixed(1)}s`,
  );
  // The chart's Deployment replaces the lost pod: two Ready replicas again, one of them leading.
  const t1 = Date.now();
  await op!.waitReady();
  log(`${what}: 2 replicas Ready again ${((Date.now() - t1) / 1000).toFixed(1)}s later`);
  return { leaseMs: leaseMs!, statusMs: statusMs!, newLeader };
}

before(async () => {
  cluster = await useRealCluster();
  ns = await createPodNamespace(cluster, 'e2e-survival');
  const image = await agentImage(cluster, log);
  op = await installOperator(cluster, { watchNamespaces: [ns], replicas: 2, log });
  await applyObjects(
    cluster,
    agentDeployment({ namespace: ns, name: AGENT, image, config: healthyPodConfig(AGENT, ns) }),
    a2aAgent({
      namespace: ns,
      name: AGENT,
      probe: { periodSeconds: period, timeoutSeconds: 2, failureThreshold: 2 },
    }),
  );
  await waitPodsRunning(cluster, ns, AGENT, 1);
  await waitFor(
    `${ns}/${AGENT} Ready for its generation`,
    async () => {
      const a = await getAgent(cluster, ns, AGENT);
      return (
        a.status?.observedGeneration === a.metadata.generation && condition(a, 'Ready')?.status === 'True'
      );
    },
    TIMEOUT,
    500,
  );
});

after(async () => {
  await op?.uninstall();
  if (ns) await deleteNamespace(cluster, ns);
});

describe('the operator survives losing its leader pod', () => {
  test('the leader pod deleted: it hands the Lease over on SIGTERM and a spec change made right after lands in status', async () => {
    const lease = await op!.lease();
    const leaseS = lease?.spec?.leaseDurationSeconds ?? 15;
    const graceS = (await op!.pods())[0]?.spec?.terminationGracePeriodSeconds ?? 30;
    const r = await takeover('graceful delete', async (leader) => {
      const d = await cluster.kubectl(['-n', op!.namespace, 'delete', 'pod', leader, '--wait=false']);
      assert.equal(d.code, 0, d.stderr);
    });
    // Worst case by design: the old leader finishes in-flight work within its grace period and
    // releases (or, failing that, the lease runs out), then a candidate's jittered retry.
    const boundMs = (graceS + leaseS) * 1000 + 2.2 * LEADER_ELECTION_DEFAULTS.retryPeriodMs + SLACK_MS;
    assert.ok(r.leaseMs < boundMs, `Lease moved after ${r.leaseMs}ms, bound ${boundMs}ms`);
    assert.ok(r.statusMs < boundMs, `status after ${r.statusMs}ms, bound ${boundMs}ms`);
    // And it was a hand-over: without the release the others wait the lease out (the kill test
    // below), so a move this early shows the old leader released it on SIGTERM.
    const releasedBy = leaseS * 1000 - 2.2 * LEADER_ELECTION_DEFAULTS.retryPeriodMs;
    assert.ok(r.leaseMs < releasedBy, `Lease moved only after ${r.leaseMs}ms: was it released?`);
  });

  test('the leader killed (SIGKILL, pod force-deleted): another replica takes over once the lease expires', async () => {
    const lease = await op!.lease();
    const leaseS = lease?.spec?.leaseDurationSeconds ?? 15;
    const pods = await op!.pods();
    let standby: string[] = [];
    let killed = '';
    const r = await takeover('kill', async (leader) => {
      killed = leader;
      standby = livePods(pods).filter((p) => p !== leader);
      const pod = pods.find((p) => p.metadata?.name === leader)!;
      const id = pod.status?.containerStatuses?.[0]?.containerID?.replace(/^containerd:\/\//, '');
      assert.ok(id, `container id of ${leader}`);
      // No SIGTERM, no release: the process is gone as after an OOM kill or a node crash.
      await ctr(cluster.containerdAddress, ['-n', 'k8s.io', 'tasks', 'kill', '--signal', 'SIGKILL', id]);
      // and the pod with it, so the kubelet does not restart the same identity in place
      const d = await cluster.kubectl([
        '-n',
        op!.namespace,
        'delete',
        'pod',
        leader,
        '--grace-period=0',
        '--force',
        '--wait=false',
      ]);
      assert.equal(d.code, 0, d.stderr);
    });
    // Another pod: the standby or the replacement the Deployment started. Both judge expiry by
    // their own clocks (a whole lease duration after they last saw it change) and retry with
    // jitter (1 to 2.2 retry periods), so the standby's head start (the replacement's start-up,
    // ~2 s here) does not decide the race: either may win, and the test says which.
    assert.ok(r.newLeader !== killed, `the killed pod ${killed} leads again`);
    log(`kill: the new leader is ${standby.includes(r.newLeader) ? 'the standby' : 'the replacement pod'}`);
    // By design: the lease duration as the standby saw it, plus its jittered retry, plus a reconcile.
    const boundMs = leaseS * 1000 + 2.2 * LEADER_ELECTION_DEFAULTS.retryPeriodMs + SLACK_MS;
    assert.ok(r.leaseMs < boundMs, `Lease moved after ${r.leaseMs}ms, bound ${boundMs}ms`);
    assert.ok(r.statusMs < boundMs, `status after ${r.statusMs}ms, bound ${boundMs}ms`);
    // The kill was not a release: the standby could not have taken over before the lease ran out
    // by much (it saw the last renewal at most one jittered retry period before the kill).
    assert.ok(
      r.leaseMs >= leaseS * 1000 - 2.2 * LEADER_ELECTION_DEFAULTS.retryPeriodMs - 1000,
      `Lease moved after only ${r.leaseMs}ms: was it released?`,
    );
  });
});
