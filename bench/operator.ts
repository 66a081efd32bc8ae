/**
 * `npm run bench`: the operator at scale on a real control plane. N A2AAgents x M pods x 3
 * bindings (JSON-RPC, REST, gRPC), served by real @a2a-js/sdk agent processes in network
 * namespaces (one process can serve several pod addresses; every address is a Pod and is
 * dialled as one), and the operator run as it ships: `a2a-operator run` as a child process.
 *
 * Measured in one run, side by side (the machine is small and noisy, so ratios, not absolutes):
 *   1. cold start: operator spawn -> every agent's status reflects its probes, next to the lower
 *      bound, the same card fetches and probes issued by a bare fetchCard/Prober loop at the
 *      same concurrency without Kubernetes;
 *   2. API requests per reconcile (operator metrics), API writes per steady-state period;
 *   3. reaction latency: gRPC broken on an agent process -> each of its pods gone from the
 *      gRPC EndpointSlice, and healed -> back, seen by this process's own watch; and a pod
 *      deleted or marked NotReady -> gone from every slice of its agent (pod-event -> withdrawn);
 *   4. operator RSS and heap at the end (its /metrics).
 * Prints a table and writes it, with the machine's description, to docs/benchmarks.md.
 * Asserts nothing about time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { KubernetesObject, V1EndpointSlice } from '@kubernetes/client-node';
import { REPO_ROOT } from '../test/harness/binaries.js';
import { useCluster, type Cluster } from '../test/harness/cluster.js';
import { agentManifest, apply, healthySpec } from '../test/harness/manifests.js';
import { startOperator, type OperatorProcess } from '../test/harness/operator.js';
import { bareRound, type BareAgent, type BareRound } from './lib/bare-loop.js';
import { Fleet, startFleet, type FleetPod, type FleetProcess } from './lib/agent-fleet.js';
import { parseOptions, usage, type BenchOptions } from './lib/options.js';
import { podWithdrawal } from './lib/pod-withdrawal.js';
import { parsePromText, sumBy, sumOf, type Sample } from './lib/prom-text.js';
import { describeMachine, fixed, machineTable, markdownTable, type Row } from './lib/report.js';
import { median, percentile, seeded, sleep } from './lib/stats.js';
import { WatchMap } from './lib/watch-map.js';

interface AgentObject extends KubernetesObject {
  status?: {
    observedGeneration?: number;
    conditions?: { type: string; status: string }[];
    interfaces?: { state: string; verifiedPods: string }[];
  };
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function log(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

/** Whether an agent's status reflects its probes for its current generation. */
function converged(a: AgentObject | undefined): boolean {
  const s = a?.status;
  if (!a || !s || s.observedGeneration !== a.metadata?.generation) return false;
  if (s.conditions?.find((c) => c.type === 'Reconciling')?.status !== 'False') return false;
  const ifs = s.interfaces ?? [];
  return ifs.length > 0 && ifs.every((i) => i.state !== 'Pending');
}

function allVerified(a: AgentObject | undefined, pods: number): boolean {
  const ifs = a?.status?.interfaces ?? [];
  return ifs.length > 0 && ifs.every((i) => i.state === 'Verified' && i.verifiedPods === `${pods}/${pods}`);
}

/** Ready addresses the agent's Service routes `port` to, over all its slices for that port. */
function routed(slices: ReadonlyMap<string, V1EndpointSlice>, service: string, port: string): Set<string> {
  const out = new Set<string>();
  for (const s of slices.values()) {
    if (s.metadata?.labels?.['kubernetes.io/service-name'] !== service) continue;
    if (!s.ports?.some((p) => p.name === port)) continue;
    for (const e of s.endpoints ?? []) {
      if (e.conditions?.ready === false) continue;
      for (const a of e.addresses) out.add(a);
    }
  }
  return out;
}

interface Metrics {
  at: number;
  samples: Sample[];
}

async function scrape(op: OperatorProcess): Promise<Metrics> {
  return { at: performance.now(), samples: parsePromText(await op.metrics()) };
}

const requests = (m: Metrics) => sumOf(m.samples, 'a2a_operator_api_requests_total');
const writes = (m: Metrics) =>
  sumOf(m.samples, 'a2a_operator_api_requests_total', (l) => WRITE_METHODS.has(l.method ?? ''));
const reconciles = (m: Metrics) => sumOf(m.samples, 'a2a_operator_reconcile_duration_seconds_count');
const reconcileSeconds = (m: Metrics) => sumOf(m.samples, 'a2a_operator_reconcile_duration_seconds_sum');
const probes = (m: Metrics) => sumOf(m.samples, 'a2a_operator_probes_total');
const cpuSeconds = (m: Metrics) => sumOf(m.samples, 'process_cpu_seconds_total');

/** Write requests by resource between two scrapes, e.g. `a2aagents/status=20 pods/status=60`. */
function writesByResource(from: Metrics | undefined, to: Metrics): string {
  const delta = new Map<string, number>();
  for (const [label, samples] of [
    [-1, from?.samples ?? []],
    [1, to.samples],
  ] as const) {
    for (const s of samples) {
      if (s.name !== 'a2a_operator_api_requests_total' || !WRITE_METHODS.has(s.labels.method ?? '')) continue;
      const k = `${s.labels.method} ${s.labels.resource}`;
      delta.set(k, (delta.get(k) ?? 0) + label * s.value);
    }
  }
  const parts = [...delta.entries()].filter(([, n]) => n > 0).map(([k, n]) => `${k}=${n}`);
  return parts.length ? parts.sort().join(', ') : 'none';
}

interface Reaction {
  removeMs: number[];
  readdMs: number[];
  timeouts: number;
  events: number;
}

/**
 * Breaks and heals gRPC on agent processes, `concurrency` events at once, never two on the
 * same process, and records per affected pod how long until its address left the agent's gRPC
 * EndpointSlice and, after healing, came back.
 */
async function reactionLatency(
  fleet: Fleet,
  slices: WatchMap<V1EndpointSlice>,
  opts: BenchOptions,
): Promise<Reaction> {
  const random = seeded(opts.seed);
  const idle = [...fleet.processes];
  const out: Reaction = { removeMs: [], readdMs: [], timeouts: 0, events: 0 };
  const limitMs = (opts.period * 4 + opts.timeout * (opts.threshold + 2) + 30) * 1000;
  let remaining = opts.events;
  const present = (pod: FleetPod) => (m: ReadonlyMap<string, V1EndpointSlice>) =>
    routed(m, pod.agent, 'grpc').has(pod.ip);
  const event = async (proc: FleetProcess): Promise<void> => {
    const n = ++out.events;
    try {
      // Start from the routed state (the previous heal of this process may still be settling).
      await Promise.all(proc.pods.map((p) => slices.until(`${p.name} routed`, present(p), limitMs)));
      const broken = performance.now();
      await proc.setGrpc(false);
      const removed = await Promise.all(
        proc.pods.map((p) =>
          slices.until(`${p.name} removed from ${p.agent}-grpc`, (m) => !present(p)(m), limitMs),
        ),
      );
      out.removeMs.push(...removed.map((t) => t - broken));
      const healed = performance.now();
      await proc.setGrpc(true);
      const back = await Promise.all(
        proc.pods.map((p) => slices.until(`${p.name} back in ${p.agent}-grpc`, present(p), limitMs)),
      );
      out.readdMs.push(...back.map((t) => t - healed));
      log(
        `event ${n}/${opts.events}: process ${proc.index} (${proc.pods.length} pods) removed in ` +
          `${fixed(Math.max(...removed) - broken, 0)} ms, back in ${fixed(Math.max(...back) - healed, 0)} ms`,
      );
    } catch (err) {
      out.timeouts++;
      log(`event ${n}: ${String(err)}`);
      await proc.setGrpc(true).catch(() => undefined);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(opts.eventConcurrency, fleet.processes.length) }, async () => {
      while (remaining > 0) {
        remaining--;
        const proc = idle.splice(Math.floor(random() * idle.length), 1)[0]!;
        await event(proc);
        idle.push(proc);
      }
    }),
  );
  return out;
}

async function run(opts: BenchOptions, cluster: Cluster, state: RunState): Promise<string> {
  const ns = await cluster.createNamespace('bench');
  state.namespace = ns;
  const names = Array.from({ length: opts.agents }, (_, i) => `agent-${String(i).padStart(3, '0')}`);
  log(
    `namespace ${ns}: ${opts.agents} agents x ${opts.pods} pods x 3 bindings, ` +
      `${Math.ceil(opts.agents / opts.agentsPerProcess)} agent processes`,
  );
  await startFleet(
    cluster,
    {
      namespace: ns,
      agents: names,
      podsPerAgent: opts.pods,
      agentsPerProcess: opts.agentsPerProcess,
      log,
    },
    state.fleet,
  );
  const fleet = state.fleet;
  const probe = {
    periodSeconds: opts.period,
    timeoutSeconds: opts.timeout,
    failureThreshold: opts.threshold,
  };
  const specs = new Map(names.map((n) => [n, healthySpec(n, probe)]));
  await apply(cluster, ...names.map((n) => agentManifest(ns, n, specs.get(n)!)));

  // 1. The lower bound: a warm-up round (agents' JIT, this process's), then the measured rounds.
  const bare: BareAgent[] = names.map((n) => ({
    name: n,
    ips: fleet.podsOf(n).map((p) => p.ip),
    spec: specs.get(n)!,
  }));
  const shape = { workers: opts.workers, probeConcurrency: opts.probeConcurrency };
  await bareRound(ns, bare, shape);
  const rounds: BareRound[] = [];
  for (let i = 0; i < opts.bareRounds; i++) rounds.push(await bareRound(ns, bare, shape));
  const bareMs = median(rounds.map((r) => r.ms));
  const bareProbes = rounds[0]!;
  if (rounds.some((r) => r.notVerified > 0)) log('warning: the bare loop saw probes that were not Verified');
  log(
    `bare loop: ${bareProbes.fetches} card fetches + ${bareProbes.probes} probes in ` +
      rounds.map((r) => fixed(r.ms, 0)).join(' / ') +
      ' ms',
  );

  // Watches of our own, opened before the operator starts.
  const agents = new WatchMap<AgentObject>(cluster.kc, `/apis/a2a.dev/v1alpha1/namespaces/${ns}/a2aagents`);
  const slices = new WatchMap<V1EndpointSlice>(
    cluster.kc,
    `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
  );
  state.watches.push(agents, slices);
  await Promise.all([agents.start(), slices.start()]);
  await Promise.all([agents.started, slices.started]);

  // 2. Cold start.
  const coldLimitMs = 180_000 + opts.agents * opts.pods * 1000;
  const spawned = performance.now();
  const operator = await startOperator({
    kubeconfig: cluster.kubeconfigPath,
    namespaces: [ns],
    // Production logging (the harness default is debug), and the concurrency the bare loop used.
    extraArgs: [
      '--log-level=info',
      `--workers=${opts.workers}`,
      `--probe-concurrency=${opts.probeConcurrency}`,
    ],
  });
  state.operator = operator;
  const convergedAt = agents.until(
    'every agent converged',
    (m) => names.every((n) => converged(m.get(`${ns}/${n}`))),
    coldLimitMs,
  );
  const routedAt = slices.until(
    'every pod routed on every port',
    (m) =>
      names.every((n) => {
        const ips = fleet.podsOf(n).map((p) => p.ip);
        return ['http', 'grpc'].every((port) => {
          const r = routed(m, n, port);
          return ips.every((ip) => r.has(ip));
        });
      }),
    coldLimitMs,
  );
  await operator.waitReady(60_000);
  const readyAt = performance.now();
  const tConverged = await convergedAt;
  const cold = await scrape(operator);
  const tRouted = await routedAt;
  const unverified = names.filter((n) => !allVerified(agents.objects.get(`${ns}/${n}`), opts.pods));
  if (unverified.length > 0)
    log(`warning: not every interface Verified at convergence: ${unverified.join(', ')}`);
  const coldMs = tConverged - spawned;
  log(
    `cold start: ready ${fixed(readyAt - spawned, 0)} ms, converged ${fixed(coldMs, 0)} ms, ` +
      `routed ${fixed(tRouted - spawned, 0)} ms after spawn`,
  );

  // 3. Steady state: one period to settle, then a window of whole periods.
  await sleep(opts.period * 1000 + 2000);
  const steady0 = await scrape(operator);
  await sleep(opts.steadyPeriods * opts.period * 1000);
  const steady1 = await scrape(operator);
  const periods = (steady1.at - steady0.at) / (opts.period * 1000);
  const steadyWrites = writes(steady1) - writes(steady0);
  const steadyReconciles = reconciles(steady1) - reconciles(steady0);
  log(
    `steady state: ${steadyWrites} writes, ${steadyReconciles} reconciles over ${fixed(periods, 1)} periods`,
  );

  // 4. Reaction latency.
  const before = await scrape(operator);
  const reaction = await reactionLatency(fleet, slices, opts);
  const end = await scrape(operator);
  const withdrawal = await podWithdrawal(cluster, ns, fleet.pods, slices, {
    events: opts.events,
    random: seeded(opts.seed + 1),
    limitMs: (opts.period * 4 + opts.timeout * (opts.threshold + 2) + 30) * 1000,
    log,
  });
  const withdrawnMs = [...withdrawal.deletedMs, ...withdrawal.notReadyMs];

  const opCpuPerProbe =
    ((cpuSeconds(steady1) - cpuSeconds(steady0)) * 1000) / Math.max(1, probes(steady1) - probes(steady0));
  const bareCpuPerProbe = median(rounds.map((r) => r.cpuMs / r.probes));
  const coldReq = requests(cold);
  const coldRec = reconciles(cold);
  const s = (ms: number) => fixed(ms / 1000, 2);
  const mib = (bytes: number) => fixed(bytes / 1024 ** 2, 1);
  const podsTotal = opts.agents * opts.pods;
  const rows: Row[] = [
    {
      metric: 'cold start: operator spawn -> every agent converged (s)',
      value: s(coldMs),
      note: 'observedGeneration == generation, Reconciling False, no interface Pending',
    },
    { metric: 'cold start: operator /readyz -> every agent converged (s)', value: s(tConverged - readyAt) },
    {
      metric: 'cold start: operator spawn -> every pod routed on every port (s)',
      value: s(tRouted - spawned),
      note: 'EndpointSlices, seen by a watch of the benchmark',
    },
    {
      metric: 'lower bound: bare fetchCard + Prober loop, same probes (s)',
      value: s(bareMs),
      note: `median of ${opts.bareRounds} rounds (${rounds.map((r) => s(r.ms)).join(', ')}); ${bareProbes.fetches} card fetches + ${bareProbes.probes} probes; ${opts.workers} agents at once, ${opts.probeConcurrency} probes in flight, fresh connections`,
    },
    { metric: 'ratio: cold-start convergence / lower bound', value: `${fixed(coldMs / bareMs, 1)}x` },
    {
      metric: 'ratio: convergence after /readyz / lower bound',
      value: `${fixed((tConverged - readyAt) / bareMs, 1)}x`,
    },
    {
      metric: 'operator probes until converged',
      value: String(probes(cold)),
      note: `the bare loop issues ${bareProbes.probes} per round`,
    },
    {
      metric: 'API requests per reconcile, cold start',
      value: fixed(coldReq / coldRec, 2),
      note: `${coldReq} requests / ${coldRec} reconciles until converged; writes: ${writesByResource(undefined, cold)}`,
    },
    {
      metric: 'API requests per reconcile, steady state',
      value: fixed((requests(steady1) - requests(steady0)) / Math.max(1, steadyReconciles), 2),
      note: `${requests(steady1) - requests(steady0)} requests / ${steadyReconciles} reconciles`,
    },
    {
      metric: 'API writes per steady-state period',
      value: fixed(steadyWrites / periods, 2),
      note: `target 0; ${steadyWrites} writes over ${fixed(periods, 1)} periods of ${opts.period} s (${writesByResource(steady0, steady1)})`,
    },
    {
      metric: 'reconciles per steady-state period',
      value: fixed(steadyReconciles / periods, 1),
      note: `${opts.agents} agents`,
    },
    {
      metric: 'mean reconcile duration, steady state (ms)',
      value: fixed(
        ((reconcileSeconds(steady1) - reconcileSeconds(steady0)) / Math.max(1, steadyReconciles)) * 1000,
        1,
      ),
    },
    {
      metric: 'operator CPU, steady state (% of one core)',
      value: fixed(
        ((cpuSeconds(steady1) - cpuSeconds(steady0)) / ((steady1.at - steady0.at) / 1000)) * 100,
        1,
      ),
      note: `${podsTotal * 3} interfaces + ${podsTotal} cards every ${opts.period} s`,
    },
    {
      metric: 'CPU per probe: operator steady state / bare loop (ms)',
      value: `${fixed(opCpuPerProbe, 2)} / ${fixed(bareCpuPerProbe, 2)} (${fixed(opCpuPerProbe / bareCpuPerProbe, 1)}x)`,
      note: 'process CPU over interface probes, card fetches included on both sides',
    },
    {
      metric: 'cold start: reconcile time / workers (s)',
      value: s((reconcileSeconds(cold) * 1000) / opts.workers),
      note: `${coldRec} reconciles, mean ${fixed((reconcileSeconds(cold) / Math.max(1, coldRec)) * 1000, 0)} ms`,
    },
    {
      metric: 'operator CPU, cold start until converged (s)',
      value: fixed(cpuSeconds(cold), 2),
      note: 'includes loading the operator (tsx)',
    },
    {
      metric: 'reaction: gRPC broken -> pod out of the EndpointSlice, p50 / p99 / max (s)',
      value: `${s(percentile(reaction.removeMs, 50))} / ${s(percentile(reaction.removeMs, 99))} / ${s(Math.max(...reaction.removeMs))}`,
      note: `${reaction.removeMs.length} pods over ${reaction.events - reaction.timeouts} events (${Math.min(opts.eventConcurrency, fleet.processes.length)} at once); period ${opts.period} s, failureThreshold ${opts.threshold}`,
    },
    {
      metric: 'reaction: gRPC healed -> pod back in the EndpointSlice, p50 / p99 / max (s)',
      value: `${s(percentile(reaction.readdMs, 50))} / ${s(percentile(reaction.readdMs, 99))} / ${s(Math.max(...reaction.readdMs))}`,
      note: `${reaction.readdMs.length} pods`,
    },
    { metric: 'reaction events that timed out', value: String(reaction.timeouts) },
    {
      metric: 'pod event -> withdrawn from every slice, p50 / p99 / max (s)',
      value: `${s(percentile(withdrawnMs, 50))} / ${s(percentile(withdrawnMs, 99))} / ${s(Math.max(...withdrawnMs))}`,
      note: `${withdrawal.deletedMs.length} deleted (p50 ${s(percentile(withdrawal.deletedMs, 50))}), ${withdrawal.notReadyMs.length} NotReady (p50 ${s(percentile(withdrawal.notReadyMs, 50))}), ${withdrawal.timeouts} timed out; target 1 s`,
    },
    {
      metric: 'API writes per break/heal event',
      value: fixed((writes(end) - writes(before)) / Math.max(1, reaction.events), 1),
      note: writesByResource(before, end),
    },
    {
      metric: 'operator RSS at the end (MiB)',
      value: mib(sumOf(end.samples, 'process_resident_memory_bytes')),
    },
    {
      metric: 'operator heap used / total at the end (MiB)',
      value: `${mib(sumOf(end.samples, 'nodejs_heap_size_used_bytes'))} / ${mib(sumOf(end.samples, 'nodejs_heap_size_total_bytes'))}`,
    },
  ];
  const probeStates = [...sumBy(end.samples, 'a2a_operator_probes_total', 'state').entries()]
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  log(`operator probes by state over the run: ${probeStates}`);
  return markdownTable(rows);
}

interface RunState {
  fleet: Fleet;
  operator?: OperatorProcess;
  watches: { stop(): void }[];
  namespace?: string;
}

async function cleanup(cluster: Cluster | undefined, state: RunState): Promise<void> {
  for (const w of state.watches) w.stop();
  await state.operator?.stop().catch((err: unknown) => log(`stopping the operator: ${String(err)}`));
  await state.fleet.destroy().catch((err: unknown) => log(`removing agent pods: ${String(err)}`));
  if (cluster?.controlPlane) {
    await cluster.controlPlane.stop();
  } else if (cluster && state.namespace) {
    await cluster.kubectl(['delete', 'namespace', state.namespace, '--wait=false']);
  }
}

function document(
  opts: BenchOptions,
  argv: string[],
  cluster: Cluster,
  table: string,
  loadAtStart: number,
): string {
  const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  return `# Benchmarks

Written by \`npm run bench\` (\`bench/operator.ts\`) on ${new Date().toISOString().slice(0, 10)}; rerun it to
refresh this file (\`--no-write\` prints only). Sizes scale with \`--agents\`, \`--pods\` and \`--period\`.

Command: \`${command}\`

## Machine

${machineTable(describeMachine(cluster.version, loadAtStart))}

## Setup

${opts.agents} A2AAgents x ${opts.pods} pods x 3 bindings (JSON-RPC and REST on :8080, gRPC on :9090, protocol
1.0), served by ${Math.ceil(opts.agents / opts.agentsPerProcess)} real \`@a2a-js/sdk\` agent processes
(\`test/agents/agent-server.ts\`), each in its own network namespace with one address per pod it serves
(${opts.agentsPerProcess * opts.pods} per process), one Pod object per address. The control plane is a real
kube-apiserver + etcd (\`test/harness\`); the operator is \`a2a-operator run\` as a child process
(\`--log-level=info --workers=${opts.workers} --probe-concurrency=${opts.probeConcurrency}\`), probe period
${opts.period} s, timeout ${opts.timeout} s, failureThreshold ${opts.threshold}. Everything (control plane, agents, operator, the benchmark) shares the machine,
with whatever else runs on it (see the load average): compare the ratios, not the absolute times.

## Results

${table}

## How each number is measured

- **Cold start**: every object (Pods, A2AAgents) exists before the operator is spawned; the clock starts at
  spawn (so it includes loading the operator, informer sync and the first reconcile of each agent) and stops
  when the benchmark's own watch sees the last agent with \`observedGeneration == generation\`,
  \`Reconciling=False\` and no interface \`Pending\`. Routing is "every pod address in both EndpointSlices".
- **Lower bound**: the same card fetches and probes (one card per pod, then each mapped interface at that pod)
  issued by a loop over the operator's own \`fetchCard\` and \`Prober\`, with the operator's concurrency shape
  (\`--workers\` agents at once, each agent's pods in parallel, \`--probe-concurrency\` probes in flight), fresh
  connections each round, after one warm-up round; no Kubernetes. Both are measured in this run.
- **API requests per reconcile**: \`a2a_operator_api_requests_total\` over the count of
  \`a2a_operator_reconcile_duration_seconds\` (watches are long-lived and not counted per event).
  **Writes per steady-state period**: POST/PUT/PATCH/DELETE requests over ${opts.steadyPeriods} probe periods,
  starting one period after routing completed; the target is zero.
- **Reaction latency**: gRPC is stopped on an agent process (control endpoint), which breaks it on every pod
  address that process serves; each affected pod's latency is the time until the benchmark's watch sees its
  address leave the agent's gRPC EndpointSlice. Then gRPC is restarted, and the latency is until the address
  is back. ${opts.events} events, ${opts.eventConcurrency} at once on different processes, chosen with seed
  ${opts.seed}. p99 of a few dozen samples is close to the maximum.
- **Pod event -> withdrawn**: a pod is deleted or marked NotReady (alternately, ${opts.events} events, one
  at a time, pods chosen with seed ${opts.seed + 1}); the latency is until the benchmark's watch sees its
  address in no EndpointSlice of its agent. The pod is restored before the next event.
- **Memory**: \`process_resident_memory_bytes\` and \`nodejs_heap_size_*\` from the operator's \`/metrics\`
  after the last event.
`;
}

async function main(): Promise<number> {
  const loadAtStart = loadavg()[0]!;
  const argv = process.argv.slice(2);
  let opts: BenchOptions | undefined;
  try {
    opts = parseOptions(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if (!opts) {
    process.stdout.write(usage);
    return 0;
  }
  const state: RunState = { fleet: new Fleet(), watches: [] };
  let cluster: Cluster | undefined;
  let stopping = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${sig}: cleaning up`);
    void cleanup(cluster, state).finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    cluster = await useCluster();
    const table = await run(opts, cluster, state);
    process.stdout.write(`\n${table}\n`);
    if (opts.write) {
      const out = resolve(REPO_ROOT, opts.out);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, document(opts, argv, cluster, table, loadAtStart));
      log(`wrote ${join(opts.out)}`);
    }
    return 0;
  } catch (err) {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    if (state.operator) log(`operator log tail:\n${state.operator.proc.tail(30)}`);
    return 1;
  } finally {
    if (!stopping) await cleanup(cluster, state);
  }
}

process.exit(await main());
