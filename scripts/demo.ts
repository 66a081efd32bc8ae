// `npm run demo`: the operator at work on a laptop, no cluster needed.
//
// Starts the local control plane (real kube-apiserver + etcd, built from Go modules), three
// real A2A agents (the official SDK) in pod hosts, their A2AAgents from examples/, and the
// operator; prints `kubectl get a2aagents -o wide` and, for the broken agents, what the card
// declared against what is advertised; then stays up with the KUBECONFIG line until Ctrl-C
// (or SIGTERM), and removes everything it started (test/harness/stop-signal.ts).
//
//   --existing   apply only the samples' A2AAgents (and namespace) to the cluster in
//                KUBECONFIG, print how to watch them, and exit
//   --real       the same on a real single-node cluster (kubelet, containerd, kube-proxy): the
//                agents as Deployments of real pods, the operator installed by its Helm chart
//                from the image built here (docs/real-cluster.md)
//
// Needs root (pod hosts are network namespaces), Go, iproute2 and openssl, like `npm test`.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { createTestCa, type TestCa } from '../test/agents/test-certs.js';
import { startAgentPod, type AgentPod } from '../test/harness/agent-pod.js';
import { REPO_ROOT } from '../test/harness/binaries.js';
import { startSharedCluster, useCluster } from '../test/harness/cluster.js';
import { healthyAgentConfig, seedAgentConfig } from '../test/harness/manifests.js';
import { startOperator, type OperatorProcess } from '../test/harness/operator.js';
import { startRealCluster, type RealCluster } from '../test/harness/real-cluster/cluster.js';
import { agentDeployment, agentImage } from '../test/e2e/agents.js';
import { handleOf } from '../test/e2e/cluster-handle.js';
import { installOperator, type InstalledOperator } from '../test/e2e/operator.js';
import type { AgentConfig } from '../test/agents/agent-config.js';
import { StopRequested, stopOnSignal } from '../test/harness/stop-signal.js';
import { condition, type AgentView } from '../test/harness/wait.js';

const NS = 'a2a-demo';
const args = new Set(process.argv.slice(2));
const existing = args.has('--existing');
const real = args.has('--real');

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

interface Sample {
  name: string;
  doc: Record<string, unknown>;
}

function samples(): Sample[] {
  const dir = join(REPO_ROOT, 'examples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) =>
      parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as Record<string, unknown>),
    )
    .filter((d) => d?.kind === 'A2AAgent')
    .map((doc) => ({ name: (doc.metadata as { name: string }).name, doc }));
}

/** kubectl against the demo's cluster: its stdout, or an error with its stderr. */
type Kubectl = (argv: string[], input?: string) => Promise<string>;

function kubectlOf(run: (argv: string[], input?: string) => Promise<KubectlAnswer>): Kubectl {
  return async (argv, input) => {
    const r = await run(argv, input);
    if (r.code !== 0) throw new Error(`kubectl ${argv.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
}

interface KubectlAnswer {
  stdout: string;
  stderr: string;
  code: number;
}

async function applySamples(kubectl: Kubectl, extra: object[] = []): Promise<void> {
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } };
  const docs = [ns, ...extra, ...samples().map((s) => s.doc)];
  await kubectl(['apply', '-f', '-'], docs.map((d) => stringify(d)).join('---\n'));
}

async function agents(kubectl: Kubectl): Promise<AgentView[]> {
  return (
    JSON.parse(await kubectl(['get', 'a2aagents', '-n', NS, '-o', 'json'])) as {
      items: AgentView[];
    }
  ).items;
}

/** Settled: Ready=True, or a confirmed failure (Stalled=True) with no interface still pending. */
function settled(a: AgentView): boolean {
  if (a.status?.observedGeneration !== a.metadata.generation) return false;
  if (condition(a, 'Ready')?.status === 'True') return true;
  return (
    condition(a, 'Stalled')?.status === 'True' &&
    !(a.status.interfaces ?? []).some((i) => i.state === 'Pending')
  );
}

async function waitSettled(kubectl: Kubectl, names: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const all = await agents(kubectl);
    if (names.every((n) => all.some((a) => a.metadata.name === n && settled(a)))) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  say(`(some agents have not settled after ${timeoutMs / 1000}s; showing what is known)`);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd()).join('\n');
}

/** The advertised card as a client gets it: a JSON body, or why there is none. */
type CardSource = (name: string) => Promise<{ ok: true; body: string } | { ok: false; why: string }>;

async function explain(a: AgentView, cardOf: CardSource, where: string): Promise<void> {
  say();
  say(`${a.metadata.name}: Ready=${condition(a, 'Ready')?.status} (${condition(a, 'Ready')?.reason})`);
  say('  what the card declares, and what the probes found:');
  say(
    table([
      ['binding', 'url', 'version', 'state', 'pods', 'advertised'],
      ...(a.status?.interfaces ?? []).map((i) => [
        i.protocolBinding,
        i.url,
        i.protocolVersion,
        i.state,
        i.verifiedPods,
        i.advertised ? 'yes' : 'no',
      ]),
    ]),
  );
  const res = await cardOf(a.metadata.name);
  if (res.ok) {
    const card = JSON.parse(res.body) as {
      url?: string;
      preferredTransport?: string;
      supportedInterfaces?: { url: string; protocolBinding: string }[];
      additionalInterfaces?: { url: string; transport: string }[];
    };
    const listed = card.supportedInterfaces?.map((i) => `${i.protocolBinding} ${i.url}`) ?? [
      ...(card.url ? [`${card.preferredTransport ?? 'JSONRPC'} ${card.url} (url, preferredTransport)`] : []),
      ...(card.additionalInterfaces ?? []).map((i) => `${i.transport} ${i.url} (additionalInterfaces)`),
    ];
    say(`  the advertised card (${where}) lists:`);
    for (const l of listed) say(`    ${l}`);
  } else {
    say(`  ${res.why}`);
  }
}

/** The three sample agents' pods: weather (healthy), seed (the seed scenario), ledger (gRPC handler not registered). */
function demoAgents(
  ca: TestCa,
): { app: string; config: AgentConfig; ports: { name: string; containerPort: number }[] }[] {
  const cert = ca.issue(['agent.internal']);
  const plain = [
    { name: 'http', containerPort: 8080 },
    { name: 'grpc', containerPort: 9090 },
  ];
  return [
    { app: 'weather', config: healthyAgentConfig(`weather.${NS}.svc`), ports: plain },
    {
      app: 'seed',
      config: seedAgentConfig(cert),
      ports: [
        { name: 'https', containerPort: 8443 },
        { name: 'grpc', containerPort: 9443 },
      ],
    },
    {
      app: 'ledger',
      config: healthyAgentConfig(`ledger.${NS}.svc`, { grpc: { port: 9090, register: false } }),
      ports: plain,
    },
  ];
}

/** The seed agent's private CA, which its A2AAgent names (examples/seed.yaml). */
function caMap(ca: TestCa): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'seed-ca', namespace: NS },
    data: { 'ca.crt': ca.caCert },
  };
}

async function runExisting(): Promise<void> {
  process.env.USE_EXISTING_CLUSTER = 'true';
  const cluster = await useCluster(); // applies the CRD from crds/
  await applySamples(kubectlOf((argv, input) => cluster.kubectl(argv, { input })));
  say(
    `applied ${samples()
      .map((s) => s.name)
      .join(', ')} to namespace ${NS} of ${cluster.server}`,
  );
  say('their pods are yours to deploy (labels app=weather, app=seed, app=ledger); then watch:');
  say(`  kubectl get a2aagents -n ${NS} -o wide -w`);
}

async function runLocal(): Promise<void> {
  const stop = stopOnSignal('a2a-demo');
  say('starting a local control plane (kube-apiserver + etcd; first run builds them from Go modules) ...');
  let shared: { stop: () => Promise<void> } | undefined;
  const pods: AgentPod[] = [];
  let operator: OperatorProcess | undefined;
  let ca: TestCa | undefined;
  // Stops what was started, the operator first (it still talks to the API server), then the
  // agents and their pod hosts, then the control plane; the temporary folder last.
  const cleanup = async () => {
    await operator?.stop().catch(() => undefined);
    await Promise.all(pods.map((p) => p.destroy(false).catch(() => undefined)));
    ca?.dispose();
    await shared?.stop().catch(() => undefined);
    stop.removeTmp();
  };
  try {
    shared = await startSharedCluster();
    stop.checkpoint();
    const cluster = await useCluster();
    const kubectl = kubectlOf((argv, input) => cluster.kubectl(argv, { input }));
    await kubectl(['create', 'namespace', NS]);
    say(
      'starting three SDK agents in pod hosts: weather (healthy), seed (the seed scenario), ledger (gRPC handler not registered) ...',
    );
    ca = createTestCa();
    for (const a of demoAgents(ca)) {
      stop.checkpoint();
      pods.push(
        await startAgentPod(cluster, {
          namespace: NS,
          name: `${a.app}-0`,
          labels: { app: a.app },
          config: a.config,
        }),
      );
    }
    await applySamples(kubectl, [caMap(ca)]);
    stop.checkpoint();
    say('starting the operator ...');
    operator = await startOperator({
      kubeconfig: cluster.kubeconfigPath,
      namespaces: [NS],
      extraArgs: ['--log-level=info'],
    });
    await operator.waitReady();
    await Promise.race([
      waitSettled(
        kubectl,
        samples().map((s) => s.name),
        90_000,
      ),
      stop.stopped,
    ]);
    stop.checkpoint();

    say();
    say(`$ kubectl get a2aagents -n ${NS} -o wide`);
    say((await kubectl(['get', 'a2aagents', '-n', NS, '-o', 'wide'])).trimEnd());
    const cardsUrl = operator.cardsUrl;
    for (const a of await agents(kubectl)) {
      if (condition(a, 'Ready')?.status !== 'True')
        await explain(
          a,
          async (name) => {
            const res = await fetch(`${cardsUrl}/cards/${NS}/${name}`);
            return res.ok
              ? { ok: true, body: await res.text() }
              : { ok: false, why: `the card endpoint answers ${res.status}: ${await res.text()}` };
          },
          `GET /cards/${NS}/${a.metadata.name}, ConfigMap ${a.metadata.name}-agent-card`,
        );
    }
    say();
    say('explore with kubectl (built in .cache/bin):');
    say(`  export KUBECONFIG=${cluster.kubeconfigPath}`);
    say(`  export PATH=${cluster.kubectlPath.replace(/\/kubectl$/, '')}:$PATH`);
    say(`  kubectl describe a2a seed -n ${NS}; kubectl get endpointslices,configmaps,events -n ${NS}`);
    say(`  curl ${operator.cardsUrl}/cards/${NS}    # the advertised cards`);
    say(`operator log: ${operator.logFile}`);
    say('Ctrl-C stops everything.');
    await stop.stopped;
  } catch (err) {
    if (!(err instanceof StopRequested)) throw err;
  } finally {
    await cleanup();
  }
}

/**
 * `--real`: the same three agents as Deployments of real pods on a real single-node cluster
 * (kubelet, containerd, kube-proxy: test/harness/real-cluster), the operator installed from its
 * image (built here from the Dockerfile) by its Helm chart, two replicas with leader election.
 * Needs root and the Debian packages of docs/real-cluster.md; one such cluster per machine.
 */
async function runReal(): Promise<void> {
  const stop = stopOnSignal('a2a-demo');
  let real: RealCluster | undefined;
  let operator: InstalledOperator | undefined;
  let ca: TestCa | undefined;
  const log = (line: string) => say(`  ${line}`);
  try {
    say(
      'starting a real single-node cluster (kube-apiserver, controller-manager, scheduler, kubelet, containerd, kube-proxy; first run builds them from Go modules) ...',
    );
    real = await startRealCluster({ log });
    stop.checkpoint();
    const cluster = handleOf(real);
    const kubectl = kubectlOf((argv, input) => cluster.kubectl(argv, input));
    say(
      'building the images (the operator from the Dockerfile, the test agents) and importing them into containerd ...',
    );
    const image = await agentImage(cluster, log);
    stop.checkpoint();
    // The chart grants the operator its RBAC in each watched namespace: they exist first.
    await kubectl(['create', 'namespace', NS]);
    say('installing the operator with its Helm chart (two replicas, leader election) ...');
    operator = await installOperator(cluster, {
      namespace: 'a2a-system',
      release: 'a2a-operator',
      watchNamespaces: [NS],
      log,
    });
    stop.checkpoint();
    say(
      'deploying three agents as Deployments of real pods: weather (healthy), seed (the seed scenario), ledger (gRPC handler not registered) ...',
    );
    ca = createTestCa();
    const deployments = demoAgents(ca).map((a) =>
      agentDeployment({ namespace: NS, name: a.app, image, config: a.config, ports: a.ports }),
    );
    await applySamples(kubectl, [caMap(ca), ...deployments]);
    await Promise.race([
      waitSettled(
        kubectl,
        samples().map((s) => s.name),
        180_000,
      ),
      stop.stopped,
    ]);
    stop.checkpoint();

    say();
    say(`$ kubectl get pods -n ${NS} -o wide`);
    say((await kubectl(['get', 'pods', '-n', NS, '-o', 'wide'])).trimEnd());
    say();
    say(`$ kubectl get a2aagents -n ${NS} -o wide`);
    say((await kubectl(['get', 'a2aagents', '-n', NS, '-o', 'wide'])).trimEnd());
    for (const a of await agents(kubectl)) {
      if (condition(a, 'Ready')?.status !== 'True')
        await explain(
          a,
          async (name) => {
            const r = await cluster.kubectl([
              'get',
              'configmap',
              `${name}-agent-card`,
              '-n',
              NS,
              '-o',
              'json',
            ]);
            if (r.code !== 0) return { ok: false, why: `no advertised card: ${r.stderr.trim()}` };
            const body = (JSON.parse(r.stdout) as { data?: Record<string, string> }).data?.[
              'agent-card.json'
            ];
            return body
              ? { ok: true, body }
              : { ok: false, why: 'the card ConfigMap holds no agent-card.json' };
          },
          `ConfigMap ${a.metadata.name}-agent-card`,
        );
    }
    say();
    say('explore with kubectl (built in .cache/bin):');
    say(`  export KUBECONFIG=${cluster.kubeconfigPath}`);
    say(`  export PATH=${cluster.kubectlPath.replace(/\/kubectl$/, '')}:$PATH`);
    say(`  kubectl get pods -n a2a-system; kubectl logs -n a2a-system deploy/${operator.deployment}`);
    say(`  kubectl describe a2a seed -n ${NS}; kubectl get endpointslices,configmaps,events -n ${NS}`);
    say('Ctrl-C stops everything and restores the host.');
    await stop.stopped;
  } catch (err) {
    if (!(err instanceof StopRequested)) throw err;
  } finally {
    await operator?.uninstall().catch(() => undefined);
    ca?.dispose();
    await real?.stop();
    stop.removeTmp();
  }
}

try {
  await (existing ? runExisting() : real ? runReal() : runLocal());
  process.exit(0);
} catch (err) {
  process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
