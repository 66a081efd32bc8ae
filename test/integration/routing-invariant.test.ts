// The routing safety invariant under churn (DESIGN 4), checked from outside by a watcher of
// its own: pods break and heal their gRPC binding at random for a while; at every observation
//   (a) the advertised card lists GRPC exactly when the grpc port routes somewhere (no two
//       observations in a row disagree: the card and the slices are separate writes), and
//   (b) every pod the grpc slice routes to served gRPC at some instant of the last D seconds,
//       where D bounds detection (one period) plus confirmation and probe timeouts: a pod broken
//       for longer than that is never routed;
//   (c) the http port, never broken, keeps routing to every pod throughout.
// A2A_INVARIANT_SECONDS sets the churn duration (default 90 s; the "few minutes" on demand).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';
import { seeded } from '../harness/seeded.js';

const PERIOD = 3;
const TIMEOUT = 1;
const THRESHOLD = 2;
/** Detection bound: a period, confirmation reprobes (1 s, 2 s), probe timeouts, and a reconcile's writes. */
const D_MS = (PERIOD + 1 + 2 + THRESHOLD * TIMEOUT + 3) * 1000;
const CHURN_MS = Number(process.env.A2A_INVARIANT_SECONDS ?? 90) * 1000;

/** Per pod: [time, grpcUp] transitions. */
const history = new Map<string, [number, boolean][]>();

/** Whether the pod's gRPC was up at any instant of [from, to]. */
function upDuring(ip: string, from: number, to: number): boolean {
  const h = history.get(ip) ?? [];
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

interface Observation {
  at: number;
  grpc: string[];
  http: string[];
  cardHasGrpc: boolean;
}

async function observe(): Promise<Observation> {
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
        metadata: { name: string };
        endpoints?: { addresses: string[] }[];
        data?: Record<string, string>;
      }[];
    }
  ).items;
  const ips = (name: string) =>
    (items.find((i) => i.kind === 'EndpointSlice' && i.metadata.name === name)?.endpoints ?? [])
      .map((e) => e.addresses[0]!)
      .sort();
  const cm = items.find((i) => i.kind === 'ConfigMap');
  const card = cm?.data?.['agent-card.json']
    ? (JSON.parse(cm.data['agent-card.json']) as { supportedInterfaces: { protocolBinding: string }[] })
    : undefined;
  return {
    at,
    grpc: ips('churn-grpc'),
    http: ips('churn-http'),
    cardHasGrpc: Boolean(card?.supportedInterfaces.some((i) => i.protocolBinding === 'GRPC')),
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
});
