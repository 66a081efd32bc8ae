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
//
// Needs root (pod hosts are network namespaces), Go, iproute2 and openssl, like `npm test`.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { createTestCa, type TestCa } from '../test/agents/test-certs.js';
import { startAgentPod, type AgentPod } from '../test/harness/agent-pod.js';
import { REPO_ROOT } from '../test/harness/binaries.js';
import { startSharedCluster, useCluster, type Cluster } from '../test/harness/cluster.js';
import { healthyAgentConfig, seedAgentConfig } from '../test/harness/manifests.js';
import { startOperator, type OperatorProcess } from '../test/harness/operator.js';
import { StopRequested, stopOnSignal } from '../test/harness/stop-signal.js';
import { condition, type AgentView } from '../test/harness/wait.js';

const NS = 'a2a-demo';
const args = new Set(process.argv.slice(2));
const existing = args.has('--existing');

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

async function kubectl(cluster: Cluster, argv: string[], input?: string): Promise<string> {
  const r = await cluster.kubectl(argv, { input });
  if (r.code !== 0) throw new Error(`kubectl ${argv.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function applySamples(cluster: Cluster, extra: Record<string, unknown>[] = []): Promise<void> {
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } };
  const docs = [ns, ...extra, ...samples().map((s) => s.doc)];
  await kubectl(cluster, ['apply', '-f', '-'], docs.map((d) => stringify(d)).join('---\n'));
}

async function agents(cluster: Cluster): Promise<AgentView[]> {
  return (
    JSON.parse(await kubectl(cluster, ['get', 'a2aagents', '-n', NS, '-o', 'json'])) as {
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

async function waitSettled(cluster: Cluster, names: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const all = await agents(cluster);
    if (names.every((n) => all.some((a) => a.metadata.name === n && settled(a)))) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  say(`(some agents have not settled after ${timeoutMs / 1000}s; showing what is known)`);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd()).join('\n');
}

async function explain(cluster: Cluster, operator: OperatorProcess, a: AgentView): Promise<void> {
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
  const res = await fetch(`${operator.cardsUrl}/cards/${NS}/${a.metadata.name}`);
  if (res.ok) {
    const card = (await res.json()) as {
      url?: string;
      preferredTransport?: string;
      supportedInterfaces?: { url: string; protocolBinding: string }[];
      additionalInterfaces?: { url: string; transport: string }[];
    };
    const listed = card.supportedInterfaces?.map((i) => `${i.protocolBinding} ${i.url}`) ?? [
      ...(card.url ? [`${card.preferredTransport ?? 'JSONRPC'} ${card.url} (url, preferredTransport)`] : []),
      ...(card.additionalInterfaces ?? []).map((i) => `${i.transport} ${i.url} (additionalInterfaces)`),
    ];
    say(
      `  the advertised card (GET /cards/${NS}/${a.metadata.name}, ConfigMap ${a.metadata.name}-agent-card) lists:`,
    );
    for (const l of listed) say(`    ${l}`);
  } else {
    say(`  the card endpoint answers ${res.status}: ${await res.text()}`);
  }
}

async function runExisting(): Promise<void> {
  process.env.USE_EXISTING_CLUSTER = 'true';
  const cluster = await useCluster(); // applies the CRD from crds/
  await applySamples(cluster);
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
    await kubectl(cluster, ['create', 'namespace', NS]);
    say(
      'starting three SDK agents in pod hosts: weather (healthy), seed (the seed scenario), ledger (gRPC handler not registered) ...',
    );
    ca = createTestCa();
    const cert = ca.issue(['agent.internal']);
    for (const opts of [
      { name: 'weather-0', labels: { app: 'weather' }, config: healthyAgentConfig(`weather.${NS}.svc`) },
      { name: 'seed-0', labels: { app: 'seed' }, config: seedAgentConfig(cert) },
      {
        name: 'ledger-0',
        labels: { app: 'ledger' },
        config: healthyAgentConfig(`ledger.${NS}.svc`, { grpc: { port: 9090, register: false } }),
      },
    ]) {
      stop.checkpoint();
      pods.push(await startAgentPod(cluster, { namespace: NS, ...opts }));
    }
    const caMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'seed-ca', namespace: NS },
      data: { 'ca.crt': ca.caCert },
    };
    await applySamples(cluster, [caMap]);
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
        cluster,
        samples().map((s) => s.name),
        90_000,
      ),
      stop.stopped,
    ]);
    stop.checkpoint();

    say();
    say(`$ kubectl get a2aagents -n ${NS} -o wide`);
    say((await kubectl(cluster, ['get', 'a2aagents', '-n', NS, '-o', 'wide'])).trimEnd());
    for (const a of await agents(cluster)) {
      if (condition(a, 'Ready')?.status !== 'True') await explain(cluster, operator, a);
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

try {
  await (existing ? runExisting() : runLocal());
  process.exit(0);
} catch (err) {
  process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
