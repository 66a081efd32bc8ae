// The operator SIGKILLed at random points, many times, while pods break and heal their gRPC
// binding at random. An outside watcher checks the routing invariant at every observation:
//   - every pod the grpc EndpointSlice routes to served gRPC at some instant of the last D ms
//     of operator uptime (while it is dead, routing stays as it was: fail static; D is the
//     churn agent's detection bound, CHURN_DETECTION_MS);
//   - the http port, never broken, keeps routing to every pod throughout.
// At the end (everything healed, one last operator): Ready, gRPC routed to every pod.
//
// Events, defined precisely: from every status version an outside watch saw, the transitions
// the operator reports (decide(): Ready status/reason changed to True/False; an interface's state
// changed to anything but Pending) give the expected multiset of Events, keyed by reason and
// interface URL, counting series. Then
//   - duplicate = an Event with no transition to match it: none allowed;
//   - lost = a transition with no Event: allowed only when an operator was killed within
//     LOSS_WINDOW_MS after the status write that made it (Events are written after status, in the
//     background), so at most what the kills explain.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InterfaceReason, type InterfaceState } from '../../src/api/conditions.js';
import { useCluster, type Cluster } from '../harness/cluster.js';
import type { AgentPod } from '../harness/agent-pod.js';
import { CHURN_DETECTION_MS, churnSpec, startChurnPod } from '../harness/churn-agent.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply } from '../harness/manifests.js';
import { condition, waitAgent, type AgentView } from '../harness/wait.js';
import {
  agentEvents,
  BindingHistory,
  churnGrpc,
  FULL,
  healGrpc,
  log,
  observeRouting,
  seeded,
  seedFromEnv,
  sleep,
  StatusRecorder,
  Uptime,
} from './support.js';
import { repeat } from '../harness/repeat.js';

const TAG = 'sigkill';
const KILLS = FULL ? 25 : 12;
const LOSS_WINDOW_MS = 3_000;

let cluster: Cluster;
let ns: string;
let operator: OperatorProcess | undefined;
const pods: AgentPod[] = [];
const grpc = new BindingHistory();
const uptime = new Uptime();
const kills: number[] = [];
let recorder: StatusRecorder;

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('sigkill');
  for (const i of [0, 1, 2]) {
    const p = await startChurnPod(cluster, ns, `churn-${i}`);
    pods.push(p);
    grpc.set(p.ip, true);
  }
  recorder = new StatusRecorder(cluster, ns, 'churn');
  await recorder.start();
  await apply(cluster, agentManifest(ns, 'churn', churnSpec()));
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
  uptime.up();
  await waitAgent(cluster, ns, 'churn', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
});

after(async () => {
  recorder?.stop();
  await operator?.stop('SIGKILL');
  await Promise.all(pods.map((p) => p.destroy()));
});

type Status = AgentView['status'];

/** The Events decide() emits for one status transition, as "reason|url" keys. */
function transitionKeys(prev: Status, next: Status): string[] {
  const keys: string[] = [];
  const pr = prev?.conditions?.find((c) => c.type === 'Ready');
  const nr = next?.conditions?.find((c) => c.type === 'Ready');
  if (nr && nr.status !== 'Unknown' && (!pr || pr.status !== nr.status || pr.reason !== nr.reason))
    keys.push(`${nr.reason}|`);
  const before = new Map((prev?.interfaces ?? []).map((i) => [`${i.protocolBinding} ${i.url}`, i.state]));
  for (const i of next?.interfaces ?? []) {
    const k = `${i.protocolBinding} ${i.url}`;
    if (before.get(k) === i.state || i.state === 'Pending') continue;
    // The reason the operator gives the Event (transition-events.ts): Inconclusive's is ProbeInconclusive.
    const reason =
      i.state === 'Verified'
        ? 'InterfaceVerified'
        : InterfaceReason[i.state as Exclude<InterfaceState, 'Verified'>];
    keys.push(`${reason}|${k}`);
  }
  return keys;
}

function eventKey(e: { reason: string; note: string }): string {
  // Interface events' notes start with "<binding> <url> (v<version>): was → state: …".
  const m = /^(\S+ \S+) \(v[^)]*\): \S+ → /.exec(e.note);
  return m ? `${e.reason}|${m[1]}` : `${e.reason}|`;
}

describe('operator SIGKILLed at random points', () => {
  test('invariant never broken, final state correct, Events explained by the kills', async () => {
    const random = seeded(seedFromEnv(TAG, 20261201));
    const violations: string[] = [];
    let observations = 0;
    const churn = churnGrpc(pods, grpc, random, () => 1000 + random() * 3000);

    let flips = 0;
    const watcher = repeat(async () => {
      const o = await observeRouting(cluster, ns, 'churn').catch(() => undefined);
      if (!o) return;
      observations++;
      const from = uptime.windowStart(o.at, CHURN_DETECTION_MS);
      for (const ip of o.slices.get('churn-grpc') ?? []) {
        if (!grpc.upDuring(ip, from, o.at))
          violations.push(`${o.at}: ${ip} routed for gRPC but down since ${from} (${o.at - from}ms)`);
      }
      const http = o.slices.get('churn-http') ?? [];
      if (http.length !== pods.length)
        violations.push(`${o.at}: http routes to ${http.length}/${pods.length}`);
      if (o.cardBindings && !o.cardBindings.includes('JSONRPC'))
        violations.push(`${o.at}: advertised card lost JSON-RPC: ${o.cardBindings.join(',')}`);
    });
    try {
      for (let k = 0; k < KILLS; k++) {
        // A random point: right after readiness (first reconciles, all probes in flight) up to a few seconds in.
        await sleep(random() * 4000);
        await operator!.stop('SIGKILL');
        kills.push(Date.now());
        uptime.down();
        await sleep(random() * 1500);
        operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
        await operator.waitReady();
        uptime.up();
      }
      flips = await churn.stop();
      await healGrpc(pods, grpc);
      await waitAgent(
        cluster,
        ns,
        'churn',
        'Ready after the kills',
        (a) => condition(a, 'Ready')?.status === 'True',
        60_000,
      );
      await sleep(2_000); // the last Events are written in the background
      await watcher.stop();
    } finally {
      // A failure above must not leave the watcher or the churn running: the file would never exit.
      await Promise.allSettled([churn.stop(), watcher.stop()]);
    }
    const last = await observeRouting(cluster, ns, 'churn');
    assert.deepEqual(violations, [], `${violations.length} violations in ${observations} observations`);
    assert.deepEqual(
      last.slices.get('churn-grpc'),
      pods.map((p) => p.ip).sort(),
      'gRPC routed to every pod at the end',
    );
    assert.ok(last.cardBindings?.includes('GRPC'), 'the advertised card lists gRPC again');
    assert.ok(flips >= 5, `only ${flips} flips`);

    // Events against the status history.
    recorder.stop();
    const expected = new Map<string, number[]>(); // key → write times
    const versions = recorder.versions;
    for (let i = 1; i < versions.length; i++) {
      for (const key of transitionKeys(versions[i - 1]!.status, versions[i]!.status)) {
        expected.set(key, [...(expected.get(key) ?? []), versions[i]!.at]);
      }
    }
    const events = await agentEvents(cluster, ns, 'churn');
    const seen = new Map<string, number>();
    for (const e of events) seen.set(eventKey(e), (seen.get(eventKey(e)) ?? 0) + e.count);
    const problems: string[] = [];
    let lost = 0;
    for (const key of new Set([...expected.keys(), ...seen.keys()])) {
      const times = expected.get(key) ?? [];
      const got = seen.get(key) ?? 0;
      if (got > times.length)
        problems.push(`duplicate: ${got} Events for ${times.length} transitions of ${key}`);
      if (got < times.length) {
        const explained = times.filter((t) =>
          kills.some((k) => k >= t - 500 && k - t <= LOSS_WINDOW_MS),
        ).length;
        lost += times.length - got;
        if (times.length - got > explained)
          problems.push(
            `lost: ${times.length - got} of ${times.length} Events for ${key}, only ${explained} near a kill`,
          );
      }
    }
    const total = [...expected.values()].reduce((n, t) => n + t.length, 0);
    log(
      TAG,
      `${KILLS} kills, ${flips} flips, ${observations} observations, 0 violations; ${versions.length} status versions, ${total} transitions, ${events.length} Event objects, ${lost} lost to kills`,
    );
    if (problems.length > 0) {
      for (const [k, times] of expected)
        log(TAG, `transition ${k} at ${times.map((t) => new Date(t).toISOString()).join(' ')}`);
      for (const e of events)
        log(
          TAG,
          `event ${eventKey(e)} x${e.count} at ${e.eventTime} by ${e.reportingInstance}: ${e.note.slice(0, 120)}`,
        );
      log(TAG, `kills at ${kills.map((t) => new Date(t).toISOString()).join(' ')}`);
    }
    assert.deepEqual(problems, []);
    assert.ok(total > 0, 'the churn made transitions');
  });
});
