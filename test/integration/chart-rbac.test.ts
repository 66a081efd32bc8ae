/**
 * The chart installed with the real helm into the test control plane, then the operator run
 * with the chart's ServiceAccount token (TokenRequest) and the chart's own container args:
 *
 * - sufficient: a healthy agent (bearer token from a Secret, CA bundle from a ConfigMap)
 *   reaches Ready=True; its Service, EndpointSlices and card ConfigMap are created, a stale
 *   slice is deleted, the readiness gate is patched on the pod, Events are recorded and a
 *   repeated one is aggregated (patched), and the operator is never denied anything;
 * - minimal: for every verb of every rule the chart grants (ClusterRole and leader-election
 *   Role), the rule is applied without that verb and the same scenario fails, with the API
 *   server's denial of exactly that verb in the operator log or the status.
 *
 * There is no kubelet: the Deployment never starts pods, the operator runs here as the pod
 * would (same args, POD_NAME/POD_NAMESPACE from the "downward API", the SA's token).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { createTestCa } from '../agents/test-certs.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { CHART_DIR, helm, one, parseManifests, type Manifest, type PolicyRule } from '../harness/helm.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { createPod } from '../harness/pods.js';

const AGENT = 'rbac-agent';
const IDLE = 'idle';
const TOKEN = 'rbac-probe-token';
const GATE = 'a2a.dev/card-verified';
const LEASE = 'a2a-operator';

let cluster: Cluster;
let releaseNs: string;
let release: string;
let manifests: Manifest[];
let saName: string;
let operatorKubeconfig: string;
let agentPod: AgentPod;
let caPem: string;

function agentConfig() {
  return {
    http: { port: 8080 },
    grpc: { port: 9090 },
    authToken: TOKEN,
    interfaces: [
      { url: `http://${AGENT}:8080/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `http://${AGENT}:9090`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
  };
}

async function kubectlOk(args: string[], input?: string): Promise<string> {
  const r = await cluster.kubectl(args, { input });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function getJson<T>(args: string[]): Promise<T | undefined> {
  const r = await cluster.kubectl([...args, '-o', 'json']);
  if (r.code !== 0) {
    if (/NotFound|not found/.test(r.stderr)) return undefined;
    throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  }
  return JSON.parse(r.stdout) as T;
}

interface Obj {
  metadata: { name: string; uid: string; generation?: number; ownerReferences?: { uid: string }[] };
}
interface AgentObj extends Obj {
  status?: {
    observedGeneration?: number;
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
}
interface EventObj {
  regarding: { name: string };
  reason: string;
  series?: { count: number };
}

/** One scenario namespace: the agent's Pod object (the shared pod host), its Secret, CA ConfigMap, A2AAgents and a stale slice. */
async function prepareScenario(): Promise<{ ns: string; agentUid: string }> {
  const ns = await cluster.createNamespace('rbac');
  await createPod(cluster, {
    namespace: ns,
    name: 'agent-0',
    labels: { app: AGENT },
    ip: agentPod.ip,
    readinessGates: [GATE],
  });
  const objects = [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'probe-token', namespace: ns, labels: { 'a2a.dev/credential': 'true' } },
      stringData: { token: TOKEN },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'probe-ca', namespace: ns },
      data: { 'ca.crt': caPem },
    },
    {
      apiVersion: 'a2a.dev/v1alpha1',
      kind: 'A2AAgent',
      metadata: { name: AGENT, namespace: ns },
      spec: {
        selector: { matchLabels: { app: AGENT } },
        ports: [
          { name: 'http', port: 8080 },
          { name: 'grpc', port: 9090 },
        ],
        card: { port: 'http' },
        probe: { periodSeconds: 5, timeoutSeconds: 2 },
        auth: { bearerToken: { secretKeyRef: { name: 'probe-token', key: 'token' } } },
        tls: { caBundle: { configMapKeyRef: { name: 'probe-ca', key: 'ca.crt' } } },
      },
    },
    {
      // Selects no pod: Ready=False NoReadyPods, one Warning; a spec change repeats it (series).
      apiVersion: 'a2a.dev/v1alpha1',
      kind: 'A2AAgent',
      metadata: { name: IDLE, namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'nothing-here' } },
        ports: [{ name: 'http', port: 8080 }],
        card: { port: 'http' },
        routing: { mode: 'Observe' },
      },
    },
  ];
  await kubectlOk(['apply', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
  const agent = await getJson<Obj>(['get', 'a2a', AGENT, '-n', ns]);
  const agentUid = agent!.metadata.uid;
  // A slice the operator once wrote for a port that is gone: it must delete it.
  const stale = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${AGENT}-stale`,
      namespace: ns,
      labels: {
        'kubernetes.io/service-name': AGENT,
        'endpointslice.kubernetes.io/managed-by': 'operator.a2a.dev',
        'app.kubernetes.io/managed-by': 'a2a-operator',
        'a2a.dev/agent': AGENT,
      },
      ownerReferences: [
        { apiVersion: 'a2a.dev/v1alpha1', kind: 'A2AAgent', name: AGENT, uid: agentUid, controller: true },
      ],
    },
    addressType: 'IPv4',
    endpoints: [],
    ports: [{ name: 'old', port: 7000, protocol: 'TCP' }],
  };
  await kubectlOk(['create', '-f', '-'], JSON.stringify(stale));
  // A Service and card ConfigMap the operator once wrote under names the spec no longer gives
  // (an old serviceName, say): it must delete them (routing/inventory.ts).
  const ours = (name: string) => ({
    name,
    namespace: ns,
    labels: { 'app.kubernetes.io/managed-by': 'a2a-operator', 'a2a.dev/agent': AGENT },
    ownerReferences: stale.metadata.ownerReferences,
  });
  await kubectlOk(
    ['create', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: ours(`${AGENT}-old`),
          spec: { ports: [{ name: 'old', port: 7000 }] },
        },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: ours(`${AGENT}-old-agent-card`), data: {} },
      ],
    }),
  );
  return { ns, agentUid };
}

/** The container args of the chart's Deployment, with the listen addresses left to the harness. */
function chartArgs(): string[] {
  const d = one(manifests, 'Deployment').spec as { template: { spec: { containers: { args: string[] }[] } } };
  const args = d.template.spec.containers[0]!.args;
  assert.equal(args[0], 'run');
  return args.slice(1).filter((a) => !/^--(metrics|cards)-address=/.test(a));
}

interface Outcome {
  passed: boolean;
  /** "verb resource" pairs the API server denied, from the operator log. */
  denied: string[];
  /** Ready=False / Stalled messages that name a permission problem. */
  statusDenials: string[];
  /** Checks not met when the run ended. */
  missing: string[];
  exitCode: number | null | undefined;
}

/** The API group of each plural the operator watches (its watch-error log names the plural). */
const WATCHED_GROUPS: Record<string, string> = {
  a2aagents: 'a2a.dev',
  pods: '',
  services: '',
  endpointslices: 'discovery.k8s.io',
  configmaps: '',
};

/**
 * "verb resource[.group]" pairs the API server denied, from the operator's JSON log: request
 * errors carry the server's message ("cannot patch resource ..."); a refused watch stream
 * only says Forbidden, logged with the resource it was for.
 */
function deniedInLog(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    let entry: { msg?: string; err?: unknown; resource?: string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    // `err` is a string, or an object (pino's error serializer: type, message, ...).
    const err =
      typeof entry.err === 'string' ? entry.err : String((entry.err as { message?: unknown })?.message ?? '');
    for (const m of err.matchAll(/cannot (\w+) resource "([^"]+)"(?: in API group "([^"]*)")?/g)) {
      out.add(`${m[1]} ${m[2]}${m[3] ? `.${m[3]}` : ''}`);
    }
    if (
      entry.msg?.startsWith('watch error') &&
      /Forbidden/.test(err) &&
      !/cannot list/.test(err) &&
      entry.resource
    ) {
      const group = WATCHED_GROUPS[entry.resource];
      out.add(`watch ${entry.resource}${group ? `.${group}` : ''}`);
    }
  }
  return [...out].sort();
}

/**
 * Runs the operator against a fresh scenario until every check holds (passed) or a denial is
 * seen or the deadline passes (failed).
 */
async function runScenario(label: string, deadlineMs: number, graceMs = 30_000): Promise<Outcome> {
  const started = Date.now();
  const { ns, agentUid } = await prepareScenario();
  await cluster.kubectl(['delete', 'lease', LEASE, '-n', releaseNs, '--ignore-not-found']);
  const operator: OperatorProcess = await startOperator({
    kubeconfig: operatorKubeconfig,
    leaderElect: true,
    identity: `${label}-0`,
    extraArgs: chartArgs(),
    env: { POD_NAME: `${label}-0`, POD_NAMESPACE: releaseNs },
  });
  const missing = new Set<string>(['started']);
  let idleBumped = false;
  const check = async (): Promise<void> => {
    missing.clear();
    const agent = await getJson<AgentObj>(['get', 'a2a', AGENT, '-n', ns]);
    const ready = agent?.status?.conditions?.find((c) => c.type === 'Ready');
    if (!(agent?.status?.observedGeneration === agent?.metadata.generation && ready?.status === 'True'))
      missing.add(`Ready=True (${ready?.status ?? 'no status'} ${ready?.reason ?? ''})`);
    const svc = await getJson<Obj>(['get', 'service', AGENT, '-n', ns]);
    if (!svc?.metadata.ownerReferences?.some((r) => r.uid === agentUid)) missing.add('Service');
    const slices = await getJson<{ items: (Obj & { endpoints?: { addresses: string[] }[] })[] }>([
      'get',
      'endpointslices',
      '-n',
      ns,
      '-l',
      `kubernetes.io/service-name=${AGENT}`,
    ]);
    const names = slices?.items.map((s) => s.metadata.name) ?? [];
    if (names.includes(`${AGENT}-stale`)) missing.add('stale EndpointSlice deleted');
    if (await getJson<Obj>(['get', 'service', `${AGENT}-old`, '-n', ns]))
      missing.add('stale Service deleted');
    if (await getJson<Obj>(['get', 'configmap', `${AGENT}-old-agent-card`, '-n', ns]))
      missing.add('stale ConfigMap deleted');
    const withPod =
      slices?.items.filter((s) => s.endpoints?.some((e) => e.addresses.includes(agentPod.ip))) ?? [];
    if (withPod.length < 2) missing.add('EndpointSlices with the pod');
    if (!(await getJson<Obj>(['get', 'configmap', `${AGENT}-agent-card`, '-n', ns])))
      missing.add('card ConfigMap');
    const pod = await getJson<{ status: { conditions?: { type: string; status: string }[] } }>([
      'get',
      'pod',
      'agent-0',
      '-n',
      ns,
    ]);
    if (pod?.status.conditions?.find((c) => c.type === GATE)?.status !== 'True')
      missing.add('readiness gate');
    const events =
      (await getJson<{ items: EventObj[] }>(['get', 'events.events.k8s.io', '-n', ns]))?.items ?? [];
    if (!events.some((e) => e.regarding.name === AGENT)) missing.add('Event');
    const idleEvents = events.filter((e) => e.regarding.name === IDLE);
    if (idleEvents.length > 0 && !idleBumped) {
      // Same verdict for a new generation: the recorder must patch series.count, not create.
      await kubectlOk([
        'patch',
        'a2a',
        IDLE,
        '-n',
        ns,
        '--type=merge',
        '-p',
        '{"spec":{"probe":{"periodSeconds":31}}}',
      ]);
      idleBumped = true;
    }
    if (!idleEvents.some((e) => (e.series?.count ?? 0) >= 2)) missing.add('repeated Event aggregated');
  };
  const statusDenials = async (): Promise<string[]> => {
    const agent = await getJson<AgentObj>(['get', 'a2a', AGENT, '-n', ns]);
    return (agent?.status?.conditions ?? [])
      .filter((c) => c.type === 'Stalled' && c.status === 'True' && /may not read/.test(c.message))
      .map((c) => c.message);
  };
  const deadline = Date.now() + deadlineMs;
  let outcome: Outcome | undefined;
  try {
    while (Date.now() < deadline) {
      await check();
      const denied = deniedInLog(readFileSync(operator.logFile, 'utf8'));
      const sd = await statusDenials();
      if (missing.size === 0 || denied.length > 0 || sd.length > 0 || operator.proc.child.exitCode !== null) {
        outcome = {
          passed: missing.size === 0 && denied.length === 0 && sd.length === 0,
          denied,
          statusDenials: sd,
          missing: [...missing],
          exitCode: operator.proc.child.exitCode,
        };
        break;
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    outcome ??= {
      passed: false,
      denied: deniedInLog(readFileSync(operator.logFile, 'utf8')),
      statusDenials: await statusDenials(),
      missing: [...missing],
      exitCode: operator.proc.child.exitCode,
    };
  } finally {
    // A denied operator may never finish syncing its caches, and it does not stop before
    // they sync: removal runs give it a short grace before SIGKILL.
    // process.ts unrefs the child: after its SIGKILL timer fired, nothing would keep this
    // test process alive until the exit event arrives.
    const keepAlive = setInterval(() => {}, 1000);
    await operator.proc.stop('SIGTERM', graceMs).finally(() => clearInterval(keepAlive));
    // Nothing left for the next cluster-wide operator to reconcile (no garbage collector here).
    await cluster.kubectl(['delete', 'a2a', '--all', '-n', ns, '--wait=false']);
  }
  outcome.exitCode = operator.proc.child.exitCode;
  outcome.denied = deniedInLog(readFileSync(operator.logFile, 'utf8'));
  dbg(`${label} (${Date.now() - started}ms): ${JSON.stringify(outcome)}`);
  if (!outcome.passed && process.env.A2A_RBAC_DEBUG) process.stderr.write(`${operator.proc.tail(8)}\n`);
  return outcome;
}

before(async () => {
  cluster = await useCluster();
  releaseNs = await cluster.createNamespace('a2a-system');
  release = `rbac-${Math.random().toString(36).slice(2, 7)}`;
  const install = await helm(['install', release, CHART_DIR, '--namespace', releaseNs], {
    kubeconfig: cluster.kubeconfigPath,
  });
  assert.equal(install.code, 0, install.stderr);
  const manifest = await helm(['get', 'manifest', release, '--namespace', releaseNs], {
    kubeconfig: cluster.kubeconfigPath,
  });
  assert.equal(manifest.code, 0, manifest.stderr);
  manifests = parseManifests(manifest.stdout);
  saName = one(manifests, 'ServiceAccount').metadata.name;
  operatorKubeconfig = cluster.kubeconfigForToken(await cluster.mintToken(releaseNs, saName));
  const ca = createTestCa();
  caPem = ca.caCert;
  ca.dispose();
  const hostNs = await cluster.createNamespace('rbac-host');
  agentPod = await startAgentPod(cluster, {
    namespace: hostNs,
    name: 'host',
    labels: { app: 'host-only' },
    config: agentConfig(),
  });
});

after(async () => {
  await agentPod?.destroy();
  if (release)
    await helm(['uninstall', release, '--namespace', releaseNs], { kubeconfig: cluster.kubeconfigPath });
});

describe('chart RBAC, with the operator running under the chart ServiceAccount', () => {
  test('helm install created the ServiceAccount, RBAC, Deployment and Services in the cluster', async () => {
    const st = await helm(['status', release, '--namespace', releaseNs, '-o', 'json'], {
      kubeconfig: cluster.kubeconfigPath,
    });
    assert.equal((JSON.parse(st.stdout) as { info: { status: string } }).info.status, 'deployed');
    for (const [kind, name, namespaced] of [
      ['serviceaccount', saName, true],
      ['clusterrole', `${release}-a2a-operator`, false],
      ['clusterrolebinding', `${release}-a2a-operator`, false],
      ['role', `${release}-a2a-operator-leader-election`, true],
      ['deployment', `${release}-a2a-operator`, true],
      ['service', `${release}-a2a-operator-cards`, true],
      ['service', `${release}-a2a-operator-metrics`, true],
      ['poddisruptionbudget', `${release}-a2a-operator`, true],
    ] as const) {
      assert.ok(
        await getJson<Obj>(['get', kind, name, ...(namespaced ? ['-n', releaseNs] : [])]),
        `${kind} ${name}`,
      );
    }
  });

  test('sufficient: the whole scenario passes and nothing is denied', async () => {
    const o = await runScenario('sufficient', 90_000);
    assert.deepEqual(o.denied, [], 'denials in the operator log');
    assert.deepEqual(o.missing, []);
    assert.ok(o.passed);
    assert.equal(o.exitCode, 0, 'graceful exit on SIGTERM');
  });

  test('minimal: removing any verb of any rule makes the scenario fail with that verb denied', async () => {
    const roles = [
      { kind: 'ClusterRole', m: one(manifests, 'ClusterRole') },
      { kind: 'Role', m: one(manifests, 'Role') },
    ];
    const results: string[] = [];
    const problems: string[] = [];
    for (const { kind, m } of roles) {
      const original = m.rules as PolicyRule[];
      for (let i = 0; i < original.length; i++) {
        for (const verb of original[i]!.verbs) {
          const rule = original[i]!;
          const reduced = original
            .map((r, j) => (j === i ? { ...r, verbs: r.verbs.filter((v) => v !== verb) } : r))
            .filter((r) => r.verbs.length > 0);
          const resource = `${rule.resources[0]}${rule.apiGroups[0] ? `.${rule.apiGroups[0]}` : ''}`;
          const label = `${verb}-${rule.resources[0]!.replace('/', '-')}`;
          await kubectlOk(['replace', '-f', '-'], JSON.stringify({ ...m, rules: reduced }));
          try {
            await waitDenied(verb, rule, kind === 'Role' ? releaseNs : 'default');
            const o = await runScenario(label, 45_000, 2_000);
            const named =
              o.denied.includes(`${verb} ${resource}`) ||
              o.statusDenials.some((s) =>
                s.includes(rule.resources[0] === 'secrets' ? 'Secret' : 'ConfigMap'),
              );
            results.push(
              `${kind} ${verb} ${resource}: ${o.passed ? 'PASSED (not minimal)' : `fails; denied ${[...o.denied, ...o.statusDenials].join(', ') || 'nothing'}; missing ${o.missing.join(', ')}`}`,
            );
            if (o.passed) problems.push(`${verb} ${resource}: the scenario still passes without it`);
            else if (!named)
              problems.push(`${verb} ${resource}: failed, but the denial of that verb was not observed`);
          } finally {
            await kubectlOk(['replace', '-f', '-'], JSON.stringify(m));
          }
        }
      }
    }
    process.stderr.write(`RBAC minimality:\n  ${results.join('\n  ')}\n`);
    assert.deepEqual(problems, []);
    assert.ok(results.length >= 20);
  });
});

function dbg(line: string): void {
  if (process.env.A2A_RBAC_DEBUG) process.stderr.write(`[rbac] ${line}\n`);
}

/** Waits until the authorizer has seen the reduced role (`kubectl auth can-i` says no). */
async function waitDenied(verb: string, rule: PolicyRule, ns: string): Promise<void> {
  const [res, sub] = rule.resources[0]!.split('/');
  const resource = `${res}${rule.apiGroups[0] ? `.${rule.apiGroups[0]}` : ''}${rule.resourceNames ? `/${rule.resourceNames[0]}` : ''}`;
  const as = `system:serviceaccount:${releaseNs}:${saName}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const r = await cluster.kubectl([
      'auth',
      'can-i',
      verb,
      resource,
      ...(sub ? [`--subresource=${sub}`] : []),
      '-n',
      ns,
      `--as=${as}`,
    ]);
    if (r.stdout.trim() === 'no') return;
    await new Promise((res2) => setTimeout(res2, 100));
  }
  throw new Error(`${as} may still ${verb} ${resource}`);
}
