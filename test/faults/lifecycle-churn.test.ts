// The lifecycle edges of issue 11 as faults, under churn: while pods (one of them dual-stack)
// break and heal their gRPC binding at random, the agent goes through a spec problem during
// which a dual-stack pod is deleted and another turned NotReady, a routing.serviceName change,
// Enforce -> Observe -> Enforce and a second agent selecting the same pods; the churn pauses
// for an operator restart under a one-probe blip (which must withdraw nothing) and for the
// steady-writes count, where an ES256-signed agent (its card rewritten, so re-signed) costs no
// ConfigMap write. Throughout, the outside watcher of test/harness/routing-observer.ts checks
// that every address in any slice of the operator was present and ready, and every gRPC-routed
// address served gRPC, at some instant of the last D seconds.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import {
  CHURN_DETECTION_MS as D_MS,
  CHURN_PROBE,
  churnSpec as spec,
  startChurnPod,
} from '../harness/churn-agent.js';
import { scenario } from '../harness/scenario.js';
import {
  agentManifest,
  apply,
  healthyAgentConfig,
  healthySpec,
  signingKeySecret,
} from '../harness/manifests.js';
import { applyWithMissingSecret, BLIP_PROBE, restartUnderBlip } from '../harness/lifecycle-steps.js';
import { deletePod, setPodStatus } from '../harness/pods.js';
import { observeOwnedRouting, Transitions, watchLifecycle } from '../harness/routing-observer.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';
import { repeat } from '../harness/repeat.js';
import { apiWrites, FULL, log, seeded, seedFromEnv, sleep } from './support.js';

const TAG = 'lifecycle-churn';
const PERIOD = CHURN_PROBE.periodSeconds;
/** Rounds of the lifecycle (the long profile runs it again on the same pods). */
const ROUNDS = FULL ? 3 : 1;

const grpc = new Transitions();
const presence = new Transitions();
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'fault-key', alg: 'ES256' };

/**
 * Marks a pod's addresses up as of `at`: pass the time before it was started when an agent
 * already selects it, since the operator may route it before startChurnPod returns.
 */
const started = (p: AgentPod, at = Date.now()) => {
  for (const ip of p.ips) {
    grpc.set(ip, true, at);
    presence.set(ip, true, at);
  }
};

const s = scenario('lifecycle-churn', {
  async setup({ cluster, ns, pods }) {
    for (const [i, families] of (['IPv4', 'IPv4', 'dual'] as const).entries()) {
      const p = await startChurnPod(cluster, ns, `churn-${i}`, families);
      pods.push(p);
      started(p);
    }
    // The signed agent's gRPC handler is never registered: its card is always rewritten (gRPC
    // withdrawn), so every publication carries a fresh ES256 signature unless the operator reuses one.
    const config = healthyAgentConfig(`signed.${ns}.svc`);
    config.grpc = { port: 9090, register: false };
    const signed = await startAgentPod(cluster, {
      namespace: ns,
      name: 'signed-0',
      labels: { app: 'signed' },
      config,
    });
    pods.push(signed);
    presence.set(signed.ip, true); // never in the gRPC history: never to be routed for gRPC
    await apply(
      cluster,
      signingKeySecret(ns, 'card-key', 'signed', signingJwk),
      agentManifest(ns, 'churn', spec()),
      agentManifest(ns, 'signed', {
        ...healthySpec('signed', { ...CHURN_PROBE }),
        routing: { signingKey: { secretKeyRef: { name: 'card-key', key: 'key.jwk' } } },
      }),
    );
  },
  async ready({ cluster, ns }) {
    await waitAgent(cluster, ns, 'churn', 'Ready', (x) => condition(x, 'Ready')?.status === 'True');
    // Not Ready (its gRPC is never served): settled once its rewritten card is published, signed.
    await waitAgent(
      cluster,
      ns,
      'signed',
      'advertised and re-signed',
      (x) => x.status?.advertised?.signatures === 'Resigned',
    );
  },
});

/** Flips the churn makes at least, however fast the phases go. */
const MIN_FLIPS = 5;

/** Random gRPC break/heal on the churn agent's pods; pause() heals everything and holds still. */
function churner(random: () => number, pods: () => AgentPod[]) {
  let paused = false;
  let flips = 0;
  let inFlight: Promise<unknown> = Promise.resolve();
  const setGrpc = async (p: AgentPod, up: boolean) => {
    // On the safe side: a break counts from before the request, a heal from after it.
    if (!up) for (const ip of p.ips) grpc.set(ip, false);
    await p.control('/grpc', { running: up });
    if (up) for (const ip of p.ips) grpc.set(ip, true);
  };
  const loop = repeat(async (running) => {
    await sleep(1000 + random() * 3000);
    if (!running() || paused) return;
    const list = pods();
    const p = list[Math.floor(random() * list.length)]!;
    inFlight = setGrpc(p, !grpc.isUp(p.ip));
    await inFlight;
    flips++;
  });
  const healAll = async () => {
    await inFlight;
    for (const p of pods()) if (!grpc.isUp(p.ip)) await setGrpc(p, true);
  };
  return {
    get flips() {
      return flips;
    },
    async pause() {
      paused = true;
      await healAll();
    },
    resume() {
      paused = false;
    },
    async stop() {
      await loop.stop();
      await healAll();
    },
  };
}

describe('lifecycle edges under break/heal churn', () => {
  test('the invariant holds; removals flow under a spec problem; a restart blip withdraws nothing; ES256 steady state writes nothing', async () => {
    const random = seeded(seedFromEnv(TAG, 20261201));
    const churnPods = () => s.pods.filter((p) => p.name.startsWith('churn-'));
    const all = () =>
      churnPods()
        .flatMap((p) => p.ips)
        .sort();
    let mustKeepAll = false;
    const watch = watchLifecycle({
      cluster: s.cluster,
      ns: s.ns,
      presence,
      grpc,
      boundMs: D_MS,
      mustKeep: () => (mustKeepAll ? { service: 'churn', pods: all().length } : undefined),
    });
    const churn = churner(random, churnPods);
    const observe = (service: string) => observeOwnedRouting(s.cluster, s.ns, service, 'churn');
    /** The http port (never broken) of `service` routes to exactly `ips`; with `grpcToo` its grpc port too. */
    const routedTo = (what: string, service: string, ips: string[], grpcToo = false) =>
      waitFor(
        what,
        async () => {
          const o = await observe(service);
          const want = JSON.stringify([...ips].sort());
          return JSON.stringify(o.http) === want && (!grpcToo || JSON.stringify(o.grpc) === want)
            ? o
            : undefined;
        },
        60_000,
      );
    /** Slices of the churn agent's Services, the current and the renamed one. */
    const churnSlices = (o: { slices: { service: string }[] }, moved: string) =>
      o.slices.filter((x) => x.service === 'churn' || x.service === moved);
    let extra: AgentPod | undefined;
    let seen: { violations: string[]; observations: number };
    const phases: string[] = [];
    let steadyWrites: number | undefined;
    const t0 = Date.now();
    const phase = (name: string) => phases.push(`${name} ${((Date.now() - t0) / 1000).toFixed(0)}s`);
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // 1. Removals while the spec has a problem (a missing Secret): a dual-stack pod deleted,
        // another pod turned NotReady. Both leave every slice, churn or not.
        const startedAt = Date.now();
        extra = await startChurnPod(s.cluster, s.ns, `churn-extra-${round}`, 'dual');
        started(extra, startedAt);
        const extraIps = extra.ips;
        await routedTo('the dual-stack pod routed in both families', 'churn', [...all(), ...extraIps]);
        await applyWithMissingSecret(s.cluster, s.ns, 'churn', spec());
        for (const ip of extraIps) presence.set(ip, false);
        await deletePod(s.cluster, s.ns, extra.name);
        const notReady = churnPods()[round % 2]!;
        presence.set(notReady.ip, false);
        await setPodStatus(s.cluster, s.ns, notReady.name, { ip: notReady.ip, ready: false });
        await waitFor(
          'deleted and NotReady pods out of every slice',
          async () =>
            (await observe('churn')).slices.some((x) =>
              x.ips.some((ip) => [...extraIps, notReady.ip].includes(ip)),
            )
              ? undefined
              : true,
          60_000,
        );
        await setPodStatus(s.cluster, s.ns, notReady.name, { ip: notReady.ip, ready: true });
        presence.set(notReady.ip, true);
        await extra.destroy(false);
        extra = undefined;
        await apply(s.cluster, agentManifest(s.ns, 'churn', spec()));
        await routedTo('spec fixed: every pod routed again', 'churn', all());
        phase('removals under a spec problem');

        // 2. An operator restarted under a one-probe blip withdraws nothing (churn paused: the
        // blip is the only failure). A high threshold leaves seconds before a confirmation.
        await churn.pause();
        await apply(s.cluster, agentManifest(s.ns, 'churn', spec({ probe: { ...BLIP_PROBE } })));
        await routedTo('routed before the restart', 'churn', all(), true);
        const blip = churnPods()[0]!;
        await restartUnderBlip(s, 'churn', blip, {
          keep: (on) => (mustKeepAll = on),
          mark: (up) => blip.ips.forEach((ip) => grpc.set(ip, up)),
        });
        await apply(s.cluster, agentManifest(s.ns, 'churn', spec()));
        churn.resume();
        phase('restart under a blip');

        // 3. routing.serviceName changes under churn: the new Service routes, the old one's slices go.
        const moved = `churn-moved-${round}`;
        await apply(s.cluster, agentManifest(s.ns, 'churn', spec({ routing: { serviceName: moved } })));
        await routedTo('the new Service routes every pod', moved, all());
        await waitFor('the old Service has no slice left', async () =>
          (await observe('churn')).slices.some((x) => x.service === 'churn') ? undefined : true,
        );
        phase('serviceName change');

        // 4. Enforce -> Observe: nothing of this agent stays routed or published; -> Enforce: all back.
        await apply(
          s.cluster,
          agentManifest(s.ns, 'churn', spec({ routing: { mode: 'Observe', serviceName: moved } })),
        );
        await waitFor('Observe: no slice and no card of the agent left', async () => {
          const o = await observe('churn');
          return churnSlices(o, moved).length === 0 && !o.cards.includes('churn-agent-card')
            ? true
            : undefined;
        });
        await apply(s.cluster, agentManifest(s.ns, 'churn', spec()));
        await routedTo('Enforce again: every pod routed', 'churn', all());
        phase('Enforce -> Observe -> Enforce');

        // 5. A second agent selecting the same pods routes them under its own Service (it stays:
        // the steady-writes count includes it).
        await apply(s.cluster, agentManifest(s.ns, 'churn-twin', spec()));
        await routedTo('the twin routes every pod', 'churn-twin', all());
        await routedTo('the first agent still routes every pod', 'churn', all());
        phase('overlapping agents');
      }

      // The phases end sooner on a quiet machine than on a busy one: keep churning until the
      // churn has flipped enough to mean something, whatever the machine's speed.
      await waitFor(
        `at least ${MIN_FLIPS} flips`,
        async () => churn.flips >= MIN_FLIPS || undefined,
        120_000,
      );

      // 6. Steady state (churn stopped, everything healed and Ready): over two periods no
      // ConfigMap is written, the ES256-signed agent's included.
      await churn.stop();
      await waitAgent(
        s.cluster,
        s.ns,
        'churn',
        'Ready after churn',
        (x) => condition(x, 'Ready')?.status === 'True',
      );
      await routedTo('gRPC routed to every pod after churn', 'churn', all(), true);
      await sleep(2 * PERIOD * 1000); // let the last transitions' writes land
      const before = apiWrites(await s.operator.metrics(), 'configmaps');
      await sleep(2 * PERIOD * 1000);
      const writes = apiWrites(await s.operator.metrics(), 'configmaps') - before;
      steadyWrites = writes;
      assert.equal(
        writes,
        0,
        `${writes} ConfigMap writes in two steady periods (ES256-signed agent present)`,
      );
      const signed = await waitAgent(s.cluster, s.ns, 'signed', 'signed', () => true);
      assert.equal(
        signed.status?.advertised?.signatures,
        'Resigned',
        'the signed agent publishes a re-signed card',
      );
      phase('steady writes');
    } finally {
      await churn.stop();
      seen = await watch.stop();
      await extra?.destroy(false);
    }
    log(TAG, `phases: ${phases.join(', ')}`);
    log(TAG, `ConfigMap writes in two steady periods: ${steadyWrites}`);
    log(TAG, `${churn.flips} flips, ${seen.observations} observations, ${seen.violations.length} violations`);
    assert.deepEqual(
      seen.violations,
      [],
      `${seen.violations.length} violations in ${seen.observations} observations`,
    );
    assert.ok(churn.flips >= MIN_FLIPS, `only ${churn.flips} flips`);
  });
});
