// The routing safety invariant under churn (docs/routing.md), checked from outside by a watcher of
// its own: pods break and heal their gRPC binding at random for a while; at every observation
//   (a) the advertised card lists GRPC exactly when the grpc port routes somewhere (they may
//       disagree for as long as a reconcile's writes take: the card and the slices are separate
//       writes), and
//   (b) every pod the grpc slice routes to served gRPC at some instant of the last D seconds,
//       where D bounds detection (one period) plus confirmation and probe timeouts: a pod broken
//       for longer than that is never routed;
//   (c) the http port, never broken, keeps routing to every pod throughout.
// A2A_INVARIANT_SECONDS sets the churn duration (default 90 s; the "few minutes" on demand).
//
// Then the lifecycle edges (issue 11), on the same pods, with the same outside watcher checking
// at every observation that every address in any slice of the operator belongs to a pod that
// was present and ready, and every gRPC-routed address served gRPC, at some instant of the
// last D seconds: a pod deleted (a dual-stack one) and one turned NotReady while the spec has a
// problem (missing Secret); an operator restarted under a one-probe blip (withdraws nothing);
// a routing.serviceName change (the old Service's slices go); Enforce -> Observe -> Enforce;
// two agents selecting the same pods.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentPod } from '../harness/agent-pod.js';
import {
  CHURN_DETECTION_MS as D_MS,
  churnSpec as spec,
  startChurnPod,
  WRITES_MS,
} from '../harness/churn-agent.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply } from '../harness/manifests.js';
import { applyWithMissingSecret, BLIP_PROBE, restartUnderBlip } from '../harness/lifecycle-steps.js';
import { deletePod, setPodStatus } from '../harness/pods.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';
import { seeded } from '../harness/seeded.js';
import {
  Disagreement,
  OBSERVE_EVERY_MS,
  observeOwnedRouting,
  Transitions,
  watchLifecycle,
  type LifecycleWatch,
} from '../harness/routing-observer.js';

const CHURN_MS = Number(process.env.A2A_INVARIANT_SECONDS ?? 90) * 1000;

/** Per pod address: serving gRPC. */
const history = new Transitions();
/** Per pod address: present and ready. */
const presence = new Transitions();

const s = scenario('invariant', {
  async setup({ cluster, ns, pods }) {
    for (const i of [0, 1, 2]) {
      const p = await startChurnPod(cluster, ns, `churn-${i}`);
      pods.push(p);
      history.set(p.ip, true);
      presence.set(p.ip, true);
    }
    await apply(cluster, agentManifest(ns, 'churn', spec()));
  },
  async ready({ cluster, ns }) {
    await waitAgent(cluster, ns, 'churn', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
  },
});

/** The operator's objects; `service` picks the one whose ports fill grpc/http (default churn). */
const observe = (service = 'churn') => observeOwnedRouting(s.cluster, s.ns, service, 'churn');

describe('routing invariant under random break/heal', () => {
  test('holds at every observation', async () => {
    const random = seeded(20261129);
    const stop = Date.now() + CHURN_MS;
    const violations: string[] = [];
    let observations = 0;
    let flips = 0;
    /** Per broken address, when it broke; the first observation without it gives a withdrawal time. */
    const brokeAt = new Map<string, number>();
    const withdrawMs: number[] = [];
    const churn = (async () => {
      while (Date.now() < stop) {
        await new Promise((r) => setTimeout(r, 1500 + random() * 4000));
        const p = s.pods[Math.floor(random() * s.pods.length)]!;
        const up = !history.isUp(p.ip);
        // Record the transition on the safe side: a break counts from before the request, a heal from after it.
        if (!up) history.set(p.ip, false);
        if (!up) brokeAt.set(p.ip, Date.now());
        await p.control('/grpc', { running: up });
        if (up) history.set(p.ip, true);
        if (up) brokeAt.delete(p.ip);
        flips++;
      }
      // End healed, so the final state is checkable too.
      for (const p of s.pods) {
        if (!history.isUp(p.ip)) {
          await p.control('/grpc', { running: true });
          history.set(p.ip, true);
        }
      }
    })();
    const disagreement = new Disagreement(WRITES_MS);
    /** Per address, since when the grpc slice has routed it without a gap in the observations. */
    const routedSince = new Map<string, number>();
    while (Date.now() < stop + 2000) {
      await new Promise((r) => setTimeout(r, OBSERVE_EVERY_MS));
      const o = await observe();
      observations++;
      for (const ip of [...routedSince.keys()]) if (!o.grpc.includes(ip)) routedSince.delete(ip);
      for (const ip of o.grpc) if (!routedSince.has(ip)) routedSince.set(ip, o.at);
      for (const [ip, at] of brokeAt) {
        if (o.grpc.includes(ip) || o.at < at) continue;
        withdrawMs.push(o.at - at);
        brokeAt.delete(ip);
      }
      if (disagreement.persists(o.at, o.cardHasGrpc !== o.grpc.length > 0))
        violations.push(
          `${o.at}: card lists GRPC=${o.cardHasGrpc} but grpc routes to ${o.grpc.length} pods, for ${disagreement.age(o.at)}ms`,
        );
      for (const ip of o.grpc) {
        if (!history.upDuring(ip, o.at - D_MS, o.at))
          violations.push(
            `${o.at}: ${ip} routed for gRPC but down for all of the last ${D_MS}ms ` +
              `(transitions: ${history.describe(ip, o.at - 3 * D_MS, o.at)}; ` +
              `routed since ${routedSince.get(ip)! - o.at}ms)`,
          );
      }
      if (o.http.length !== s.pods.length)
        violations.push(`${o.at}: http routes to ${o.http.length}/${s.pods.length} pods`);
    }
    await churn;
    const sorted = withdrawMs.sort((a, b) => a - b);
    const q = (f: number) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))] ?? NaN;
    process.stderr.write(
      `[invariant] ${flips} flips, ${observations} observations, ${violations.length} violations; ` +
        `break -> withdrawn (${sorted.length}): p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${q(1)} ms (bound ${D_MS} ms)\n`,
    );
    assert.deepEqual(violations, [], `${violations.length} violations in ${observations} observations`);
    assert.ok(flips >= 10, `only ${flips} flips`);
    // And it converges: every pod healthy again → gRPC routed to all of them.
    await waitAgent(
      s.cluster,
      s.ns,
      'churn',
      'Ready after churn',
      (a) => condition(a, 'Ready')?.status === 'True',
      30_000,
    );
    const last = await observe();
    assert.deepEqual(last.grpc, s.pods.map((p) => p.ip).sort());
  });

  test('holds through the lifecycle edges: removals under a spec problem, restart blip, rename, modes, overlap', async () => {
    /** Set during the restart blip: the churn agent's slices must keep every pod. */
    let mustKeepAll = false;
    const watch = watchLifecycle({
      cluster: s.cluster,
      ns: s.ns,
      presence,
      grpc: history,
      boundMs: D_MS,
      mustKeep: () => (mustKeepAll ? { service: 'churn', pods: s.pods.length } : undefined),
    });
    const all = () => s.pods.map((p) => p.ip).sort();
    /** Both ports of `service` route to exactly the given addresses. */
    const routedTo = (what: string, service: string, ips: string[]) =>
      waitFor(
        what,
        async () => {
          const o = await observe(service);
          return JSON.stringify(o.grpc) === JSON.stringify([...ips].sort()) &&
            JSON.stringify(o.http) === JSON.stringify([...ips].sort())
            ? o
            : undefined;
        },
        60_000,
      );
    const gone = (what: string, ips: string[]) =>
      waitFor(
        what,
        async () =>
          (await observe()).slices.some((x) => x.ips.some((ip) => ips.includes(ip))) ? undefined : true,
        60_000,
      );
    let extra: AgentPod | undefined;
    let seen: Awaited<ReturnType<LifecycleWatch['stop']>>;
    try {
      // 1. Removals while the spec has a problem: a dual-stack pod deleted, another turned NotReady.
      // Up as of before the Pod object exists: the operator may route the pod (and the watch see
      // it) before startChurnPod returns, under load by hundreds of milliseconds.
      const extraStartedAt = Date.now();
      extra = await startChurnPod(s.cluster, s.ns, 'churn-extra', 'dual');
      const extraIps = extra.ips;
      for (const ip of extraIps) {
        history.set(ip, true, extraStartedAt);
        presence.set(ip, true, extraStartedAt);
      }
      await waitFor(
        'the dual-stack pod routed in both families',
        async () => {
          const o = await observe();
          const routed = o.slices.filter((x) => x.service === 'churn').flatMap((x) => x.ips);
          return extraIps.every((ip) => routed.includes(ip)) ? true : undefined;
        },
        60_000,
      );
      await applyWithMissingSecret(s.cluster, s.ns, 'churn', spec());
      for (const ip of extraIps) presence.set(ip, false);
      await deletePod(s.cluster, s.ns, 'churn-extra');
      const notReady = s.pods[2]!;
      presence.set(notReady.ip, false);
      await setPodStatus(s.cluster, s.ns, notReady.name, { ip: notReady.ip, ready: false });
      await gone('deleted and NotReady pods out of every slice', [...extraIps, notReady.ip]);
      await setPodStatus(s.cluster, s.ns, notReady.name, { ip: notReady.ip, ready: true });
      presence.set(notReady.ip, true);
      await apply(s.cluster, agentManifest(s.ns, 'churn', spec()));
      await routedTo('spec fixed: every pod routed again', 'churn', all());

      // 2. An operator restarted under a one-probe blip withdraws nothing. A high threshold
      // leaves seconds between the first failure and its confirmation.
      await apply(s.cluster, agentManifest(s.ns, 'churn', spec({ probe: { ...BLIP_PROBE } })));
      await waitAgent(s.cluster, s.ns, 'churn', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
      await routedTo('routed before the restart', 'churn', all());
      const blip = s.pods[0]!;
      await restartUnderBlip(s, 'churn', blip, {
        keep: (on) => (mustKeepAll = on),
        mark: (up) => history.set(blip.ip, up),
      });

      // 3. routing.serviceName changes: the new Service routes, the old one's slices go.
      await apply(s.cluster, agentManifest(s.ns, 'churn', spec({ routing: { serviceName: 'churn-moved' } })));
      await routedTo('the new Service routes every pod', 'churn-moved', all());
      await waitFor('the old Service has no slice left', async () =>
        (await observe()).slices.some((x) => x.service === 'churn') ? undefined : true,
      );

      // 4. Enforce -> Observe: nothing stays routed or published; -> Enforce: all back.
      await apply(s.cluster, agentManifest(s.ns, 'churn', spec({ routing: { mode: 'Observe' } })));
      await waitFor('Observe: no slice and no card left', async () => {
        const o = await observe();
        return o.slices.length === 0 && o.cards.length === 0 ? true : undefined;
      });
      await apply(s.cluster, agentManifest(s.ns, 'churn', spec()));
      await routedTo('Enforce again: every pod routed', 'churn', all());

      // 5. Two agents selecting the same pods: each routes them under its own Service.
      await apply(s.cluster, agentManifest(s.ns, 'churn-twin', spec()));
      await routedTo('the twin routes every pod', 'churn-twin', all());
      await routedTo('the first agent still routes every pod', 'churn', all());
    } finally {
      seen = await watch.stop();
      await extra?.destroy(false);
    }
    const { violations, observations } = seen;
    assert.deepEqual(violations, [], `${violations.length} violations in ${observations} observations`);
    assert.ok(observations > 20, `only ${observations} observations`);
    process.stderr.write(`[invariant] lifecycle: ${observations} observations, 0 violations\n`);
  });
});
