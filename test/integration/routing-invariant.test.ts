// The routing safety invariant under churn (DESIGN 4), checked from outside by a watcher of
// its own: pods break and heal their gRPC binding at random for a while; at every observation
//   (a) the advertised card lists GRPC exactly when the grpc port routes somewhere (no two
//       observations in a row disagree: the card and the slices are separate writes), and
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
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { startOperator } from '../harness/operator.js';
import { deletePod, setPodStatus } from '../harness/pods.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';
import { seeded } from '../harness/seeded.js';

const PERIOD = 3;
const TIMEOUT = 1;
const THRESHOLD = 2;
/** Detection bound: a period, confirmation reprobes (1 s, 2 s), probe timeouts, and a reconcile's writes. */
const D_MS = (PERIOD + 1 + 2 + THRESHOLD * TIMEOUT + 3) * 1000;
const CHURN_MS = Number(process.env.A2A_INVARIANT_SECONDS ?? 90) * 1000;

/** Per pod address: [time, grpcUp] transitions. */
const history = new Map<string, [number, boolean][]>();
/** Per pod address: [time, present and ready] transitions. */
const presence = new Map<string, [number, boolean][]>();

/** Whether the pod's gRPC was up at any instant of [from, to]. */
function upDuring(ip: string, from: number, to: number, of = history): boolean {
  const h = of.get(ip) ?? [];
  let state = false;
  for (const [t, up] of h) {
    if (t > to) break;
    if (t <= from) state = up;
    else if (up) return true;
  }
  return state;
}

const s = scenario('invariant', {
  async setup({ cluster, ns, pods }) {
    for (const i of [0, 1, 2]) {
      const p = await startAgentPod(cluster, {
        namespace: ns,
        name: `churn-${i}`,
        labels: { app: 'churn' },
        config: healthyAgentConfig(`churn.${ns}.svc`),
      });
      pods.push(p);
      history.set(p.ip, [[Date.now(), true]]);
      presence.set(p.ip, [[Date.now(), true]]);
    }
    await apply(
      cluster,
      agentManifest(
        ns,
        'churn',
        healthySpec('churn', { periodSeconds: PERIOD, timeoutSeconds: TIMEOUT, failureThreshold: THRESHOLD }),
      ),
    );
  },
  async ready({ cluster, ns }) {
    await waitAgent(cluster, ns, 'churn', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
  },
});

interface Slice {
  service: string;
  port: string;
  ips: string[];
}

interface Observation {
  at: number;
  grpc: string[];
  http: string[];
  cardHasGrpc: boolean;
  /** Every slice of the operator in the namespace, whichever agent or Service. */
  slices: Slice[];
  /** Card ConfigMaps present, by name. */
  cards: string[];
}

/** The operator's objects; `service` picks the one whose ports fill grpc/http (default churn). */
async function observe(service = 'churn'): Promise<Observation> {
  const at = Date.now();
  const out = await s.cluster.kubectl([
    'get',
    'endpointslices,configmaps',
    '-n',
    s.ns,
    '-l',
    'app.kubernetes.io/managed-by=a2a-operator',
    '-o',
    'json',
  ]);
  const items = (
    JSON.parse(out.stdout) as {
      items: {
        kind: string;
        metadata: { name: string; labels?: Record<string, string> };
        ports?: { name: string }[];
        endpoints?: { addresses: string[] }[];
        data?: Record<string, string>;
      }[];
    }
  ).items;
  const slices = items
    .filter((i) => i.kind === 'EndpointSlice')
    .map((i) => ({
      service: i.metadata.labels?.['kubernetes.io/service-name'] ?? '',
      port: i.ports?.[0]?.name ?? '',
      ips: (i.endpoints ?? []).map((e) => e.addresses[0]!),
    }));
  const ips = (port: string) =>
    slices
      .filter((x) => x.service === service && x.port === port)
      .flatMap((x) => x.ips)
      .sort();
  const cm = items.find((i) => i.kind === 'ConfigMap' && i.metadata.name === 'churn-agent-card');
  const card = cm?.data?.['agent-card.json']
    ? (JSON.parse(cm.data['agent-card.json']) as { supportedInterfaces: { protocolBinding: string }[] })
    : undefined;
  return {
    at,
    grpc: ips('grpc'),
    http: ips('http'),
    cardHasGrpc: Boolean(card?.supportedInterfaces.some((i) => i.protocolBinding === 'GRPC')),
    slices,
    cards: items.filter((i) => i.kind === 'ConfigMap').map((i) => i.metadata.name),
  };
}

describe('routing invariant under random break/heal', () => {
  test('holds at every observation', async () => {
    const random = seeded(20261129);
    const stop = Date.now() + CHURN_MS;
    const violations: string[] = [];
    let observations = 0;
    let flips = 0;
    const churn = (async () => {
      while (Date.now() < stop) {
        await new Promise((r) => setTimeout(r, 1500 + random() * 4000));
        const p = s.pods[Math.floor(random() * s.pods.length)]!;
        const h = history.get(p.ip)!;
        const up = !h.at(-1)![1];
        // Record the transition on the safe side: a break counts from before the request, a heal from after it.
        if (!up) h.push([Date.now(), false]);
        await p.control('/grpc', { running: up });
        if (up) h.push([Date.now(), true]);
        flips++;
      }
      // End healed, so the final state is checkable too.
      for (const p of s.pods) {
        const h = history.get(p.ip)!;
        if (!h.at(-1)![1]) {
          await p.control('/grpc', { running: true });
          h.push([Date.now(), true]);
        }
      }
    })();
    let previousDisagreed = false;
    while (Date.now() < stop + 2000) {
      const o = await observe();
      observations++;
      // The card (a ConfigMap) and the slices are separate objects written one after the other,
      // and read here by separate list calls: one observation can fall between the two writes.
      // A disagreement that is still there at the next observation is a violation.
      const disagrees = o.cardHasGrpc !== o.grpc.length > 0;
      if (disagrees && previousDisagreed)
        violations.push(`${o.at}: card lists GRPC=${o.cardHasGrpc} but grpc routes to ${o.grpc.length} pods`);
      previousDisagreed = disagrees;
      for (const ip of o.grpc) {
        if (!upDuring(ip, o.at - D_MS, o.at))
          violations.push(`${o.at}: ${ip} routed for gRPC but down for all of the last ${D_MS}ms`);
      }
      if (o.http.length !== s.pods.length)
        violations.push(`${o.at}: http routes to ${o.http.length}/${s.pods.length} pods`);
    }
    await churn;
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
    process.stderr.write(`[invariant] ${flips} flips, ${observations} observations, 0 violations\n`);
  });

  test('holds through the lifecycle edges: removals under a spec problem, restart blip, rename, modes, overlap', async () => {
    const violations: string[] = [];
    let observations = 0;
    let watching = true;
    /** Set during the restart blip: the churn agent's slices must keep every pod. */
    let mustKeepAll = false;
    const watcher = (async () => {
      while (watching) {
        const o = await observe().catch(() => undefined);
        if (!o) continue;
        observations++;
        for (const x of o.slices) {
          for (const ip of x.ips) {
            if (!upDuring(ip, o.at - D_MS, o.at, presence))
              violations.push(`${o.at}: ${ip} in ${x.service}/${x.port} but gone or NotReady for ${D_MS}ms`);
            // Under the restart blip the phase checks the opposite on purpose (nothing withdrawn
            // before failureThreshold confirms; its bound is that spec's, not D).
            if (x.port === 'grpc' && !mustKeepAll && !upDuring(ip, o.at - D_MS, o.at))
              violations.push(`${o.at}: ${ip} routed for gRPC in ${x.service} but down for ${D_MS}ms`);
          }
        }
        if (mustKeepAll && (o.grpc.length !== s.pods.length || o.http.length !== s.pods.length))
          violations.push(
            `${o.at}: restart blip withdrew: grpc ${o.grpc.join(',')} http ${o.http.join(',')}`,
          );
      }
    })();
    const spec = (extra: Record<string, unknown> = {}) => ({
      ...healthySpec('churn', {
        periodSeconds: PERIOD,
        timeoutSeconds: TIMEOUT,
        failureThreshold: THRESHOLD,
      }),
      ...extra,
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
    const stopAt = (ip: string, of: Map<string, [number, boolean][]>) =>
      of.get(ip)!.push([Date.now(), false]);
    let extra: AgentPod | undefined;
    try {
      // 1. Removals while the spec has a problem: a dual-stack pod deleted, another turned NotReady.
      extra = await startAgentPod(s.cluster, {
        namespace: s.ns,
        name: 'churn-extra',
        labels: { app: 'churn' },
        config: healthyAgentConfig(`churn.${s.ns}.svc`),
        families: 'dual',
      });
      const extraIps = extra.ips;
      for (const ip of extraIps) {
        history.set(ip, [[Date.now(), true]]);
        presence.set(ip, [[Date.now(), true]]);
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
      await apply(
        s.cluster,
        agentManifest(
          s.ns,
          'churn',
          spec({ auth: { bearerToken: { secretKeyRef: { name: 'missing', key: 'token' } } } }),
        ),
      );
      await waitAgent(
        s.cluster,
        s.ns,
        'churn',
        'Stalled SecretNotFound',
        (a) => condition(a, 'Stalled')?.reason === 'SecretNotFound',
      );
      for (const ip of extraIps) stopAt(ip, presence);
      await deletePod(s.cluster, s.ns, 'churn-extra');
      const notReady = s.pods[2]!;
      stopAt(notReady.ip, presence);
      await setPodStatus(s.cluster, s.ns, notReady.name, { ip: notReady.ip, ready: false });
      await gone('deleted and NotReady pods out of every slice', [...extraIps, notReady.ip]);
      await setPodStatus(s.cluster, s.ns, notReady.name, { ip: notReady.ip, ready: true });
      presence.get(notReady.ip)!.push([Date.now(), true]);
      await apply(s.cluster, agentManifest(s.ns, 'churn', spec()));
      await routedTo('spec fixed: every pod routed again', 'churn', all());

      // 2. An operator restarted under a one-probe blip withdraws nothing. A high threshold
      // leaves seconds between the first failure and its confirmation.
      await apply(
        s.cluster,
        agentManifest(
          s.ns,
          'churn',
          spec({ probe: { periodSeconds: 8, timeoutSeconds: 2, failureThreshold: 5 } }),
        ),
      );
      await waitAgent(s.cluster, s.ns, 'churn', 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
      await routedTo('routed before the restart', 'churn', all());
      await s.operator.stop();
      mustKeepAll = true;
      const blip = s.pods[0]!;
      stopAt(blip.ip, history);
      await blip.control('/grpc', { running: false });
      s.operator = await startOperator({ kubeconfig: s.cluster.kubeconfigPath, namespaces: [s.ns] });
      await s.operator.waitReady();
      const failedGrpc = async () =>
        [...(await s.operator.metrics()).matchAll(/^a2a_operator_probes_total\{([^}]*)\} (\d+)/gm)]
          .filter((m) => m[1]!.includes('binding="GRPC"') && !m[1]!.includes('state="Verified"'))
          .reduce((n, m) => n + Number(m[2]), 0);
      await waitFor('the first failed gRPC probe', async () => (await failedGrpc()) > 0, 60_000, 100);
      await blip.control('/grpc', { running: true });
      history.get(blip.ip)!.push([Date.now(), true]);
      await waitAgent(
        s.cluster,
        s.ns,
        'churn',
        'gRPC verified again',
        (a) => a.status?.interfaces?.every((i) => i.state === 'Verified') === true,
      );
      mustKeepAll = false;

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
      watching = false;
      await watcher;
      await extra?.destroy(false);
    }
    assert.deepEqual(violations, [], `${violations.length} violations in ${observations} observations`);
    assert.ok(observations > 20, `only ${observations} observations`);
    process.stderr.write(`[invariant] lifecycle: ${observations} observations, 0 violations\n`);
  });
});
