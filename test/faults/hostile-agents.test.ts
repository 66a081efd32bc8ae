// Hostile agents beside healthy ones (docs/security.md). Two healthy agents are measured first on their
// own: the time from a spec change (new generation) until their status says Ready for it, a full
// reconcile with a card fetch and three probes. Then hostile agents join, all at once, each
// with its own pod:
//   slow      a card that trickles one byte every 100 ms and never ends
//   huge      a 100 MiB card, chunked (no Content-Length to trust)
//   nested    a card with a member nested 100,000 arrays deep
//   many      a card with 10,000 interfaces (half of them gRPC on a port that accepts and never answers)
//   redirect  a 302 to a "metadata service" (a canary pod host of our own)
//   h2        JSON-RPC declared on a port that answers with an HTTP/2 preface and garbage
//   grpchang  gRPC declared on a port that accepts and never answers
//   tls       an HTTPS card whose certificate names another host
//   foreign   URLs naming another namespace's Service, the API server and the canaries (spec.hosts set)
//   nohosts   URLs naming the canaries and another namespace's Service (no spec.hosts: mapped by port)
//   slashes   a hybrid card (~0.9 MB) whose URLs end in runs of 450,000 and 20,000 slashes: the old
//             trailing-slash regex was quadratic there (hours of event loop); now linear, and the
//             20 KiB URL is Ineligible (over 8 KiB)
//   bignum    a card holding the number 1e400 (valid JSON, Infinity once parsed): CardInvalid
//   grows     a card of 0.95 MiB as read, 4.2 MiB written back (200,000 times `1e20`, 21 bytes
//             each written): CardTooLarge when read, not a ConfigMap the API server refuses
//   ctor      a gRPC interface on a spec port whose targetPort is `constructor`, a name the pod
//             does not have (Object.prototype has it): Unmapped, its port never dialled
//   loopback  an HTTPS card with plaintext http://localhost and http://127.0.0.1 interfaces, whose
//             pod serves plaintext there: Ineligible (no loopback exemption), never dialled
// For each: a clear reason in its status. Throughout: the operator never crashes, its resident
// memory stays bounded, the healthy agents' reconcile latency stays within a generous multiple
// of what it was alone, and (SSRF canary) the canaries never see a connection from it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentConfig } from '../agents/agent-config.js';
import { createTestCa, type TestCa } from '../agents/test-certs.js';
import { startAgentPod, startHealthyPod, type AgentPod } from '../harness/agent-pod.js';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { agentManifest, apply, healthySpec } from '../harness/manifests.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { condition, getAgent, waitAgent, type AgentView } from '../harness/wait.js';
import { FULL, log, metricSum, rssBytes, sleep } from './support.js';

const TAG = 'hostile';
/** The hostile agents' own probe settings: long timeouts make a hostile agent as costly as it can be. */
const HOSTILE_PROBE = { periodSeconds: 30, timeoutSeconds: FULL ? 20 : 5, failureThreshold: 2 };
const HEALTHY = ['good-a', 'good-b'];
const BUMPS = FULL ? 4 : 2;

let cluster: Cluster;
let ns: string;
let victimNs: string;
let operator: OperatorProcess;
let ca: TestCa;
const pods: AgentPod[] = [];
const canaries: Record<string, AgentPod> = {};
const hostile: Record<string, AgentPod> = {};
let apiserverHostPort = '';

function ifaces(list: [string, string][], tenant?: string) {
  return list.map(([url, protocolBinding]) => ({
    url,
    protocolBinding,
    protocolVersion: '1.0',
    ...(tenant ? { tenant } : {}),
  }));
}

function card(name: string, list: [string, string][]) {
  return {
    name,
    description: `hostile agent ${name}`,
    version: '1.0.0',
    supportedInterfaces: ifaces(list),
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** 10,000 interfaces, alternating JSON-RPC on the pod and gRPC on a port that never answers (~0.9 MB). */
function manyInterfaces(): unknown {
  const list = [];
  for (let i = 0; i < 10_000; i++) {
    list.push(
      i % 2 === 0
        ? { url: 'http://m:9090', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: `t${i}` }
        : {
            url: 'http://m:8080/a2a/jsonrpc',
            protocolBinding: 'JSONRPC',
            protocolVersion: '1.0',
            tenant: `t${i}`,
          },
    );
  }
  return { ...card('many', []), supportedInterfaces: list };
}

/** A hybrid card with runs of slashes: 450,000 in two additionalInterfaces, 20,000 in one interface. */
function slashesCard(): unknown {
  const base = `http://slashes.${ns}.svc:8080`;
  const good = `${base}/a2a/jsonrpc`;
  return {
    ...card('slashes', [
      [good, 'JSONRPC'],
      [`${base}/${'/'.repeat(20_000)}a`, 'JSONRPC'],
    ]),
    url: good,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    additionalInterfaces: [
      { url: `${base}/${'/'.repeat(450_000)}a`, transport: 'JSONRPC' },
      { url: `${base}/${'/'.repeat(450_000)}b`, transport: 'HTTP+JSON' },
    ],
  };
}

/** Under 1 MiB as served; JSON.stringify cannot write it so (it would write each 1e20 in full). */
function growsCard(): string {
  const head = JSON.stringify(card('grows', [[`http://grows.${ns}.svc:8080/a2a/jsonrpc`, 'JSONRPC']]));
  return `${head.slice(0, -1)},"n":[${Array(200_000).fill('1e20').join(',')}]}`;
}

function spec(app: string, extra: Record<string, unknown> = {}, ports = [{ name: 'http', port: 8080 }]) {
  return {
    selector: { matchLabels: { app } },
    ports,
    card: { port: 'http' },
    probe: HOSTILE_PROBE,
    ...extra,
  };
}

/** Time from a new generation of a healthy agent until its status is Ready for that generation. */
async function bumpLatency(name: string, i: number): Promise<number> {
  const t0 = Date.now();
  await apply(
    cluster,
    agentManifest(ns, name, healthySpec(name, { periodSeconds: 5 + (i % 2), timeoutSeconds: 2 })),
  );
  await waitAgent(
    cluster,
    ns,
    name,
    `Ready for the new generation (bump ${i})`,
    (a) => condition(a, 'Ready')?.status === 'True',
    120_000,
  );
  return Date.now() - t0;
}

let bumps = 0;

async function measure(label: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < BUMPS; i++) {
    // Both healthy agents at once, as a burst of changes would come; each bump flips the period.
    const n = ++bumps;
    out.push(...(await Promise.all(HEALTHY.map((name) => bumpLatency(name, n)))));
  }
  log(TAG, `${label}: healthy reconcile latency ${out.map((x) => `${x}ms`).join(' ')}`);
  return out;
}

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('hostile');
  victimNs = await cluster.createNamespace('victim');
  apiserverHostPort = new URL(cluster.server).host;
  ca = createTestCa();
  // Canaries: pod hosts of our own standing for a metadata service and another namespace's
  // Service. Every address a hostile card names is one of theirs; they count connections.
  const canaryConfig: AgentConfig = { http: { port: 8080 }, plain: { port: 80 }, hang: { port: 9090 } };
  for (const name of ['metadata', 'victim']) {
    canaries[name] = await startAgentPod(cluster, {
      namespace: victimNs,
      name,
      labels: { app: name },
      config: canaryConfig,
    });
  }
  const meta = canaries.metadata!.ip;
  const victim = canaries.victim!.ip;
  const victimSvc = `victim.${victimNs}.svc.cluster.local`;
  for (const n of HEALTHY) pods.push(await startHealthyPod(cluster, ns, n));
  await apply(cluster, ...HEALTHY.map((n) => agentManifest(ns, n, healthySpec(n))));

  const wrongName = ca.issue(['wrong.example']);
  const configs: Record<string, AgentConfig> = {
    slow: { http: { port: 8080 }, card: { serve: 'slow', intervalMs: 100 } },
    huge: { http: { port: 8080 }, card: { serve: 'huge', totalBytes: 100 * 1024 * 1024 } },
    nested: {
      http: { port: 8080 },
      card: {
        serve: 'nested',
        depth: 100_000,
        json: card('nested', [[`http://nested.${ns}.svc:8080/a2a/jsonrpc`, 'JSONRPC']]),
      },
    },
    // Too large for argv: the 10,000 interfaces go through the control endpoint once it runs.
    many: { http: { port: 8080 }, hang: { port: 9090 }, card: { serve: 'json', json: card('many', []) } },
    redirect: {
      http: { port: 8080 },
      card: { serve: 'redirect', location: `http://${meta}:80/latest/meta-data/iam/security-credentials/` },
    },
    h2: {
      http: { port: 8080 },
      h2garbage: { port: 8081 },
      card: { serve: 'json', json: card('h2', [[`http://h2.${ns}.svc:8081/a2a/jsonrpc`, 'JSONRPC']]) },
    },
    grpchang: {
      http: { port: 8080 },
      hang: { port: 9090 },
      card: { serve: 'json', json: card('grpchang', [[`http://grpchang.${ns}.svc:9090`, 'GRPC']]) },
    },
    tls: { http: { port: 8443, tls: wrongName } },
    // Too large for argv: set through the control endpoint once it runs.
    slashes: { http: { port: 8080 }, card: { serve: 'json', json: card('slashes', []) } },
    // Too large for argv: set through the control endpoint once it runs.
    grows: { http: { port: 8080 }, card: { serve: 'raw', text: '{}' } },
    bignum: {
      http: { port: 8080 },
      card: {
        serve: 'raw',
        // JSON.stringify cannot write it: Infinity would become null.
        text: `${JSON.stringify(card('bignum', [[`http://bignum.${ns}.svc:8080/a2a/jsonrpc`, 'JSONRPC']])).slice(0, -1)},"n":1e400}`,
      },
    },
    ctor: {
      http: { port: 8080 },
      hang: { port: 9090 },
      card: {
        serve: 'json',
        json: card('ctor', [
          [`http://ctor.${ns}.svc:8080/a2a/jsonrpc`, 'JSONRPC'],
          [`http://ctor.${ns}.svc:9090`, 'GRPC'],
        ]),
      },
    },
    loopback: {
      http: { port: 8443, tls: ca.issue([`loopback.${ns}.svc`]) },
      plain: { port: 8080 },
      card: {
        serve: 'json',
        json: card('loopback', [
          [`https://loopback.${ns}.svc:8443/a2a/jsonrpc`, 'JSONRPC'],
          ['http://localhost:8080/a2a/jsonrpc', 'JSONRPC'],
          ['http://127.0.0.1:8080/a2a/rest', 'HTTP+JSON'],
        ]),
      },
    },
    foreign: {
      http: { port: 8080 },
      card: {
        serve: 'json',
        json: card('foreign', [
          [`http://foreign.${ns}.svc:8080/a2a/jsonrpc`, 'JSONRPC'],
          [`http://${victimSvc}:8080/a2a/jsonrpc`, 'JSONRPC'],
          ['https://kubernetes.default.svc:443/a2a/rest', 'HTTP+JSON'],
          [`https://${apiserverHostPort}/a2a/rest`, 'HTTP+JSON'],
          [`http://${victim}:8080/a2a/jsonrpc`, 'JSONRPC'],
          [`http://${meta}:9090`, 'GRPC'],
        ]),
      },
    },
    nohosts: {
      http: { port: 8080 },
      grpc: { port: 9090 },
      card: {
        serve: 'json',
        json: card('nohosts', [
          [`http://${victim}:8080/a2a/jsonrpc`, 'JSONRPC'],
          [`http://${meta}:9090`, 'GRPC'],
          [`http://${victimSvc}:8080/a2a/rest`, 'HTTP+JSON'],
        ]),
      },
    },
  };
  const started = await Promise.all(
    Object.entries(configs).map(async ([name, config]) => {
      const pod = await startAgentPod(cluster, {
        namespace: ns,
        name: `${name}-0`,
        labels: { app: name },
        config,
      });
      return [name, pod] as const;
    }),
  );
  for (const [name, pod] of started) {
    hostile[name] = pod;
    pods.push(pod);
  }
  await hostile.many!.control('/card', { serve: 'json', json: manyInterfaces() });
  await hostile.slashes!.control('/card', { serve: 'json', json: slashesCard() });
  await hostile.grows!.control('/card', { serve: 'raw', text: growsCard() });
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
  for (const n of HEALTHY)
    await waitAgent(cluster, ns, n, 'Ready', (a) => condition(a, 'Ready')?.status === 'True');
});

after(async () => {
  await operator?.stop();
  await Promise.all([...pods, ...Object.values(canaries)].map((p) => p.destroy()));
  ca?.dispose();
});

interface Expectation {
  name: string;
  what: string;
  ok: (a: AgentView) => boolean;
}

function cardReason(reason: string, message?: RegExp): (a: AgentView) => boolean {
  return (a) => {
    const c = condition(a, 'CardValid');
    return c?.status === 'False' && c.reason === reason && (!message || message.test(c.message));
  };
}

function ifaceState(url: RegExp, state: string): (a: AgentView) => boolean {
  return (a) => Boolean(a.status?.interfaces?.some((i) => url.test(i.url) && i.state === state));
}

describe('hostile agents beside healthy ones', () => {
  let baseline: number[] = [];
  let baselineRss = 0;

  test('baseline: healthy agents alone', async () => {
    baseline = await measure('alone');
    baselineRss = await rssBytes(operator.metricsUrl);
    log(TAG, `baseline RSS ${(baselineRss / 2 ** 20).toFixed(0)} MiB`);
  });

  test('each hostile agent gets a clear reason; healthy ones unaffected; memory bounded; no crash', async () => {
    const pid = operator.proc.child.pid;
    let maxRss = baselineRss;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        maxRss = Math.max(maxRss, await rssBytes(operator.metricsUrl).catch(() => 0));
        await sleep(500);
      }
    })();
    const hostileSpecs: Record<string, Record<string, unknown>> = {
      slow: spec('slow'),
      huge: spec('huge'),
      nested: spec('nested'),
      many: spec('many', {}, [
        { name: 'http', port: 8080 },
        { name: 'grpc', port: 9090 },
      ]),
      redirect: spec('redirect'),
      h2: spec('h2', {}, [
        { name: 'http', port: 8080 },
        { name: 'h2', port: 8081 },
      ]),
      grpchang: spec('grpchang', {}, [
        { name: 'http', port: 8080 },
        { name: 'grpc', port: 9090 },
      ]),
      tls: {
        ...spec('tls', {}, [{ name: 'https', port: 8443 }]),
        card: { port: 'https', scheme: 'HTTPS' },
        tls: { caBundle: { configMapKeyRef: { name: 'hostile-ca', key: 'ca.crt' } } },
      },
      foreign: spec('foreign', { hosts: [`foreign.${ns}.svc`] }),
      slashes: spec('slashes'),
      bignum: spec('bignum'),
      grows: spec('grows'),
      ctor: spec('ctor', {}, [
        { name: 'http', port: 8080 },
        { name: 'grpc', port: 9090, targetPort: 'constructor' },
      ] as { name: string; port: number }[]),
      loopback: {
        ...spec('loopback', {}, [
          { name: 'https', port: 8443 },
          { name: 'plain', port: 8080 },
        ]),
        card: { port: 'https', scheme: 'HTTPS' },
        tls: { caBundle: { configMapKeyRef: { name: 'hostile-ca', key: 'ca.crt' } } },
      },
      nohosts: spec('nohosts', {}, [
        { name: 'http', port: 8080 },
        { name: 'grpc', port: 9090 },
      ]),
    };
    await apply(
      cluster,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'hostile-ca', namespace: ns },
        data: { 'ca.crt': ca.caCert },
      },
      ...Object.entries(hostileSpecs).map(([n, s]) => agentManifest(ns, n, s)),
    );
    // Let the hostile agents get going (first fetches and probes in flight) before measuring.
    await sleep(2_000);
    const withHostile = await measure('with hostile agents');

    const expectations: Expectation[] = [
      { name: 'slow', what: 'CardFetchFailed (deadline)', ok: cardReason('CardFetchFailed') },
      { name: 'huge', what: 'CardTooLarge', ok: cardReason('CardTooLarge') },
      { name: 'nested', what: 'CardInvalid (nesting)', ok: cardReason('CardInvalid', /nest/i) },
      {
        name: 'many',
        what: 'bounded status, gRPC Timeout',
        ok: (a) =>
          (a.status?.interfaces?.length ?? 0) <= 64 &&
          ifaceState(/^http:\/\/m:9090$/, 'Timeout')(a) &&
          condition(a, 'Ready')?.status === 'False',
      },
      {
        name: 'redirect',
        what: 'CardFetchFailed (redirect not followed)',
        ok: cardReason('CardFetchFailed', /redirect/),
      },
      { name: 'h2', what: 'WrongBinding', ok: ifaceState(/:8081\//, 'WrongBinding') },
      { name: 'grpchang', what: 'Timeout', ok: ifaceState(/:9090$/, 'Timeout') },
      { name: 'tls', what: 'CardFetchFailed (certificate name)', ok: cardReason('CardFetchFailed') },
      {
        name: 'foreign',
        what: 'foreign URLs Unmapped, own URL Verified',
        ok: (a) =>
          (a.status?.interfaces ?? []).filter((i) => i.state === 'Unmapped').length === 5 &&
          ifaceState(/^http:\/\/foreign\./, 'Verified')(a),
      },
      {
        name: 'slashes',
        what: 'own URL Verified, the 20 KiB URL Ineligible (over 8 KiB)',
        ok: (a) =>
          ifaceState(/^http:\/\/slashes\.[^/]+\/a2a\/jsonrpc$/, 'Verified')(a) &&
          Boolean(
            a.status?.interfaces?.some(
              (i) => i.state === 'Ineligible' && /over the 8192-byte limit/.test(i.message ?? ''),
            ),
          ),
      },
      { name: 'bignum', what: 'CardInvalid (1e400)', ok: cardReason('CardInvalid', /double range/) },
      {
        name: 'grows',
        what: 'CardTooLarge (written back)',
        ok: cardReason('CardTooLarge', /bytes written back as JSON \(\d+ as read/),
      },
      {
        name: 'ctor',
        what: 'gRPC on targetPort constructor Unmapped, JSON-RPC Verified',
        ok: (a) => ifaceState(/:9090$/, 'Unmapped')(a) && ifaceState(/:8080\/a2a\/jsonrpc$/, 'Verified')(a),
      },
      {
        name: 'loopback',
        what: 'plaintext loopback interfaces Ineligible, HTTPS one Verified',
        ok: (a) =>
          ifaceState(/^http:\/\/localhost:8080\//, 'Ineligible')(a) &&
          ifaceState(/^http:\/\/127\.0\.0\.1:8080\//, 'Ineligible')(a) &&
          ifaceState(/^https:\/\/loopback\./, 'Verified')(a) &&
          condition(a, 'CardValid')?.reason === 'InsecureDowngrade',
      },
      {
        name: 'nohosts',
        what: 'probed at its own pod only',
        ok: (a) =>
          (a.status?.interfaces ?? []).length === 3 && condition(a, 'CardValid')?.status !== undefined,
      },
    ];
    const failures: string[] = [];
    await Promise.all(
      expectations.map(async (e) => {
        try {
          const a = await waitAgent(cluster, ns, e.name, e.what, e.ok, 90_000);
          const c = condition(a, 'CardValid');
          const r = condition(a, 'Ready');
          log(
            TAG,
            `${e.name}: Ready=${r?.status} ${r?.reason}; CardValid=${c?.status} ${c?.reason}: ${c?.message.slice(0, 160)}`,
          );
          assert.ok(
            JSON.stringify(a.status).length < 64 * 1024,
            `${e.name}: status is ${JSON.stringify(a.status).length} bytes`,
          );
        } catch (err) {
          const a = await getAgent(cluster, ns, e.name).catch(() => undefined);
          failures.push(
            `${e.name}: expected ${e.what}: ${(err as Error).message}\n  status: ${JSON.stringify(a?.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message.slice(0, 200)]))}`,
          );
        }
      }),
    );
    sampling = false;
    await sampler;

    // The hostile card streams ended when the operator gave up: a deadline and a byte bound.
    const slow = await hostile.slow!.state();
    const huge = await hostile.huge!.state();
    log(TAG, `slow card streams (ms): ${slow.cardStreams.map((s) => s.ms).join(' ')}`);
    log(TAG, `huge card streams (bytes): ${huge.cardStreams.map((s) => s.bytes).join(' ')}`);
    for (const s of slow.cardStreams)
      assert.ok(
        s.ms < (HOSTILE_PROBE.timeoutSeconds + 5) * 1000,
        `a slow card was read for ${s.ms}ms (timeout ${HOSTILE_PROBE.timeoutSeconds}s)`,
      );
    assert.ok(slow.cardStreams.length > 0, 'the slow card was fetched');
    for (const s of huge.cardStreams)
      assert.ok(s.bytes < 16 * 2 ** 20, `the operator took ${s.bytes} bytes of the huge card`);

    // SSRF canary: no connection from anyone (the operator is the only thing that reads these cards).
    for (const [name, c] of Object.entries(canaries)) {
      const st = await c.state();
      assert.deepEqual(
        Object.values(st.connections).reduce((a, b) => a + b, 0),
        0,
        `canary ${name} (${c.ip}) saw connections: ${JSON.stringify(st.connections)}`,
      );
    }

    // Ports the operator must never dial: the gRPC port behind targetPort `constructor`, the
    // plaintext port the loopback URLs name.
    const ctorState = await hostile.ctor!.state();
    assert.equal(ctorState.connections.hang, 0, 'the port behind targetPort constructor was dialled');
    const loopState = await hostile.loopback!.state();
    assert.equal(loopState.connections.plain, 0, 'a plaintext loopback interface was dialled');

    assert.equal(operator.proc.child.exitCode, null, `operator exited:\n${operator.proc.tail(30)}`);
    assert.equal(operator.proc.child.pid, pid);
    const metrics = await operator.metrics();
    const errors = metricSum(metrics, 'a2a_operator_reconcile_errors_total');
    log(
      TAG,
      `max RSS ${(maxRss / 2 ** 20).toFixed(0)} MiB (baseline ${(baselineRss / 2 ** 20).toFixed(0)}), reconcile errors ${errors}`,
    );
    assert.ok(
      maxRss - baselineRss < 256 * 2 ** 20,
      `RSS grew by ${((maxRss - baselineRss) / 2 ** 20).toFixed(0)} MiB`,
    );

    // Healthy agents are not held up past the design's bound: a healthy reconcile may queue behind
    // hostile ones, each holding a worker at most for its card fetch, its probes and its
    // capability calls, each step bounded by the hostile agents' timeout. A blocked event loop
    // (a quadratic regex on the slashes card once blocked it for hours) is far past this; a busy
    // machine (another CI run beside this one doubled a worst case from 3.2 s to 6.4 s) is not.
    const worstAlone = Math.max(...baseline);
    const worstWith = Math.max(...withHostile);
    const heldAtMostMs = 3 * HOSTILE_PROBE.timeoutSeconds * 1000;
    assert.ok(
      worstWith <= Math.max(2 * worstAlone, worstAlone + heldAtMostMs),
      `healthy reconcile latency ${worstWith}ms with hostile agents vs ${worstAlone}ms alone (bound: alone + ${heldAtMostMs}ms)`,
    );
    assert.deepEqual(failures, []);
  });
});
