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
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { KubernetesObject, V1EndpointSlice } from '@kubernetes/client-node';
import { CAPABILITY_PERIODS } from '../src/controller/probe-memory.js';
import { REPO_ROOT } from '../test/harness/binaries.js';
import { imageEntrypoint } from '../test/harness/image-entrypoint.js';
import { useCluster, type Cluster } from '../test/harness/cluster.js';
import { agentManifest, apply, healthySpec } from '../test/harness/manifests.js';
import { startOperator, type OperatorProcess } from '../test/harness/operator.js';
import { bareRound, type BareAgent, type BareRound, type HeldCards } from './lib/bare-loop.js';
import { buildDist, loadShipped, stackTracesAsShipped } from './lib/shipped.js';
import {
  Fleet,
  startFleet,
  type FleetAgent,
  type FleetPod,
  trafficBetween,
  type Traffic,
} from './lib/agent-fleet.js';
import { parseOptions, usage, type BenchOptions } from './lib/options.js';
import {
  agentsPerCore,
  ceilingRows,
  costSvg,
  costTable,
  throughputNote,
  type SizePoint,
} from './lib/cost-curve.js';
import { podWithdrawal } from './lib/pod-withdrawal.js';
import { readAccepts } from './lib/tcp-accepts.js';
import { parsePromText, sumBy, sumOf, type Sample } from './lib/prom-text.js';
import {
  busyPct,
  cpuBetween,
  describeSplit,
  machineCores,
  readCpu,
  splitParts,
  splitValue,
  type CpuSplit,
  type Role,
} from './lib/machine-cpu.js';
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

/** Probes per agent per period in the ceiling: 3 pods x 3 bindings. */
const PROBES_PER_AGENT = 9;
// The share of the period a spread bare round starts its visits over: the last one starts early
// enough to end within the period, as the measured CPU is the whole period's.
const SPREAD_SHARE = 0.9;

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
function routed(slices: WatchMap<V1EndpointSlice>, service: string, port: string): Set<string> {
  return routedIn(slices.group(service), port);
}

/** The ready addresses of `port` in one Service's slices (a group of the slices' WatchMap). */
function routedIn(serviceSlices: ReadonlyMap<string, V1EndpointSlice>, port: string): Set<string> {
  const out = new Set<string>();
  for (const s of serviceSlices.values()) {
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
const unchangedReconciles = (m: Metrics) => sumOf(m.samples, 'a2a_operator_reconciles_unchanged_total');
const reconcileSeconds = (m: Metrics) => sumOf(m.samples, 'a2a_operator_reconcile_duration_seconds_sum');
const probes = (m: Metrics) => sumOf(m.samples, 'a2a_operator_probes_total');
const cpuSeconds = (m: Metrics) => sumOf(m.samples, 'process_cpu_seconds_total');
const cpuUserSeconds = (m: Metrics) => sumOf(m.samples, 'process_cpu_user_seconds_total');
const cpuSystemSeconds = (m: Metrics) => sumOf(m.samples, 'process_cpu_system_seconds_total');
/** V8's main-thread pauses of one kind (minor: scavenges; major: mark-compact; incremental: marking steps). */
const gcSeconds = (m: Metrics, kind: string) =>
  sumOf(m.samples, 'nodejs_gc_duration_seconds_sum', (l) => l.kind === kind);
const gcCount = (m: Metrics, kind: string) =>
  sumOf(m.samples, 'nodejs_gc_duration_seconds_count', (l) => l.kind === kind);

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

/** Why the operator makes each kind of request (issue 15: requests printed with their reason). */
const REQUEST_REASONS: Record<string, string> = {
  'PATCH a2aagents/status': 'status: probe results and conditions',
  'PATCH services': "the agent's Service (server-side apply)",
  'PATCH endpointslices': 'one EndpointSlice per port, verified pods only',
  'PATCH configmaps': 'the route table ConfigMap',
  'POST events': 'Events on transitions',
  'PUT leases': 'leader election',
};

/** Every request by verb and resource between two scrapes, each with its reason when known. */
function requestsByResource(from: Metrics | undefined, to: Metrics): string {
  const delta = new Map<string, number>();
  for (const [sign, samples] of [
    [-1, from?.samples ?? []],
    [1, to.samples],
  ] as const) {
    for (const s of samples) {
      if (s.name !== 'a2a_operator_api_requests_total') continue;
      const k = `${s.labels.method} ${s.labels.resource}`;
      delta.set(k, (delta.get(k) ?? 0) + sign * s.value);
    }
  }
  const parts = [...delta.entries()]
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}=${n}${REQUEST_REASONS[k] ? ` (${REQUEST_REASONS[k]})` : ''}`);
  return parts.length ? parts.join(', ') : 'none';
}

interface SizeResult {
  table: string;
  point: SizePoint;
}

interface Reaction {
  removeMs: number[];
  readdMs: number[];
  timeouts: number;
  events: number;
}

/**
 * Breaks and heals gRPC on agents (every pod address of one agent), `concurrency` events at
 * once, never two on the same agent, and records per affected pod how long until its address
 * left the agent's gRPC EndpointSlice and, after healing, came back.
 */
async function reactionLatency(
  fleet: Fleet,
  slices: WatchMap<V1EndpointSlice>,
  opts: BenchOptions,
): Promise<Reaction> {
  const random = seeded(opts.seed);
  const idle = [...fleet.agents];
  const out: Reaction = { removeMs: [], readdMs: [], timeouts: 0, events: 0 };
  const limitMs = (opts.period * 4 + opts.timeout * (opts.threshold + 2) + 30) * 1000;
  let remaining = opts.events;
  const present = (pod: FleetPod) => () => routed(slices, pod.agent, 'grpc').has(pod.ip);
  const event = async (agent: FleetAgent): Promise<void> => {
    const n = ++out.events;
    try {
      // Start from the routed state (the previous heal of this agent may still be settling).
      await Promise.all(agent.pods.map((p) => slices.until(`${p.name} routed`, present(p), limitMs)));
      const broken = performance.now();
      await agent.setGrpc(false);
      const removed = await Promise.all(
        agent.pods.map((p) =>
          slices.until(`${p.name} removed from ${p.agent}-grpc`, () => !present(p)(), limitMs),
        ),
      );
      out.removeMs.push(...removed.map((t) => t - broken));
      const healed = performance.now();
      await agent.setGrpc(true);
      const back = await Promise.all(
        agent.pods.map((p) => slices.until(`${p.name} back in ${p.agent}-grpc`, present(p), limitMs)),
      );
      out.readdMs.push(...back.map((t) => t - healed));
      log(
        `event ${n}/${opts.events}: ${agent.name} (${agent.pods.length} pods) removed in ` +
          `${fixed(Math.max(...removed) - broken, 0)} ms, back in ${fixed(Math.max(...back) - healed, 0)} ms`,
      );
    } catch (err) {
      out.timeouts++;
      log(`event ${n}: ${String(err)}`);
      await agent.setGrpc(true).catch(() => undefined);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(opts.eventConcurrency, idle.length) }, async () => {
      while (remaining > 0) {
        remaining--;
        const agent = idle.splice(Math.floor(random() * idle.length), 1)[0]!;
        await event(agent);
        idle.push(agent);
      }
    }),
  );
  return out;
}

async function runSize(opts: BenchOptions, cluster: Cluster, state: RunState): Promise<SizeResult> {
  const ns = await cluster.createNamespace('bench');
  state.namespace = ns;
  const names = Array.from({ length: opts.agents }, (_, i) => `agent-${String(i).padStart(3, '0')}`);
  log(
    `namespace ${ns}: ${opts.agents} agents x ${opts.pods} pods x 3 bindings, ` +
      `${Math.ceil(opts.agents / opts.agentsPerProcess)} fleet processes`,
  );
  const fleetStarted = performance.now();
  await startFleet(
    cluster,
    {
      namespace: ns,
      agents: names,
      podsPerAgent: opts.pods,
      agentsPerProcess: opts.agentsPerProcess,
      ...(opts.agentKeepAlive === undefined ? {} : { keepAliveMs: opts.agentKeepAlive * 1000 }),
      log,
    },
    state.fleet,
  );
  const fleet = state.fleet;
  const fleetStartMs = performance.now() - fleetStarted;
  // The machine's CPU by process, for the windows whose length the machine may bound.
  const cores = machineCores();
  const fleetPids = () => fleet.processes.map((p) => p.proc?.child.pid);
  const pids = (): Partial<Record<Role, (number | undefined)[]>> => ({
    operator: [state.operator?.proc.child.pid],
    'kube-apiserver': [cluster.controlPlane?.pids.apiserver],
    etcd: [cluster.controlPlane?.pids.etcd],
    fleet: fleetPids(),
    benchmark: [process.pid],
  });
  const fleetRss = await fleet.rssBytes();
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
  // The operator's Prober as it ships (dist/), as the operator process runs it (lib/shipped.ts).
  const lib = await loadShipped();
  const prober = new lib.probe.Prober({ concurrency: opts.probeConcurrency });
  // First-visit rounds make every call the operator makes on its first visit of an agent: card,
  // probes, and the capability calls of every verified interface (the bound of cold start).
  // Steady rounds make the capability calls for one agent in CAPABILITY_PERIODS, in turn, as the
  // operator does per period once its findings are conclusive (the CPU per probe compared).
  // Cards are held between rounds as the operator holds them between visits: a first visit
  // parses every card, a steady round only those whose bytes changed (none here).
  const cards: HeldCards = new Map();
  const firstVisit = { workers: opts.workers, capabilities: () => true, held: { cards, reuse: false } };
  const steady = (round: number) => ({
    workers: opts.workers,
    capabilities: (i: number) => (i + round) % CAPABILITY_PERIODS === 0,
    held: { cards, reuse: true },
  });
  const rounds: BareRound[] = [];
  const roundSplits: CpuSplit[] = [];
  const roundAccepts: number[] = [];
  const roundTraffic: Traffic[] = [];
  const steadyRounds: (BareRound & { periodCpuMs: number })[] = [];
  const spreadRounds: (BareRound & { periodCpuMs: number })[] = [];
  // Rounds start a probe period apart, as the operator's visits do: connections then idle
  // between rounds exactly as long as the operator's, and the agents' keep-alive timeout
  // (Node's 5 s) closes them for both sides alike. Back to back, the loop would never pay
  // the reconnects the operator pays every period.
  const periodMs = opts.period * 1000;
  try {
    let next = performance.now();
    const paced = async (shape: Parameters<typeof bareRound>[4], using = prober): Promise<BareRound> => {
      await sleep(Math.max(0, next - performance.now()));
      next = performance.now() + periodMs;
      return bareRound(ns, bare, lib, using, shape);
    };
    // The warm-up round (JIT on both sides) opens the shared Prober's gRPC channels, which the
    // steady rounds then find open, as the operator's steady visits do.
    await paced(firstVisit);
    for (let i = 0; i < opts.bareRounds; i++) {
      await sleep(Math.max(0, next - performance.now()));
      // A measured first visit starts with no connection, as the operator's cold start does: a
      // Prober of its own. The agents close idle HTTP connections between rounds anyway; an idle
      // gRPC channel stays open for the Prober's idle timeout, and a shared Prober's round would
      // open none of the one-per-pod gRPC connections a cold start opens.
      const fresh = new lib.probe.Prober({ concurrency: opts.probeConcurrency });
      try {
        const cpu0 = readCpu(pids());
        const accepts0 = readAccepts(fleetPids());
        const traffic0 = await fleet.traffic();
        rounds.push(await paced(firstVisit, fresh));
        roundSplits.push(cpuBetween(cpu0, readCpu(pids()), cores));
        roundAccepts.push(readAccepts(fleetPids()) - accepts0);
        roundTraffic.push(trafficBetween(traffic0, await fleet.traffic()));
      } finally {
        await fresh.close();
      }
    }
    // A steady round's CPU is that of its whole period, as the operator's steady figure counts
    // every second of its periods: work a round leaves behind (garbage collected after it
    // ended, timers) is its cost too. Nothing else runs in this process between rounds.
    const periodRound = async (shape: Parameters<typeof bareRound>[4]) => {
      const cpu = process.cpuUsage();
      const round = await paced(shape);
      await sleep(Math.max(0, next - performance.now()));
      const used = process.cpuUsage(cpu);
      return { ...round, periodCpuMs: (used.user + used.system) / 1000 };
    };
    // Each burst round is followed by the same calls with the visits spread one by one over the
    // period: a comparison only (the ratio's bound stays the burst) of what a wake-up per visit
    // costs, the reason the operator's revisits fall on a grid (routineDueAt).
    for (let i = 0; i < opts.bareRounds; i++) {
      steadyRounds.push(await periodRound(steady(i)));
      spreadRounds.push(await periodRound({ ...steady(i), spreadMs: periodMs * SPREAD_SHARE }));
    }
  } finally {
    await prober.close();
  }
  const bareMs = median(rounds.map((r) => r.ms));
  // The machine during the median first-visit round (the one nearest bareMs).
  const nearestRound = rounds.reduce(
    (best, r, i) => (Math.abs(r.ms - bareMs) < Math.abs(rounds[best]!.ms - bareMs) ? i : best),
    0,
  );
  const bareSplit = roundSplits[nearestRound]!;
  const bareAccepts = roundAccepts[nearestRound]!;
  const bareTraffic = roundTraffic[nearestRound]!;
  const bareCalls = (r: BareRound): number => r.fetches + r.probes + r.capabilityCalls;
  const bareSteadyMs = median(steadyRounds.map((r) => r.ms));
  const bareProbes = rounds[0]!;
  if ([...rounds, ...steadyRounds, ...spreadRounds].some((r) => r.notVerified > 0))
    log('warning: the bare loop saw probes that were not Verified');
  log(
    `bare loop: first visit ${bareProbes.fetches} card fetches + ${bareProbes.probes} probes + ` +
      `${bareProbes.capabilityCalls} capability calls in ${rounds.map((r) => fixed(r.ms, 0)).join(' / ')} ms; ` +
      `steady rounds in ${steadyRounds.map((r) => fixed(r.ms, 0)).join(' / ')} ms, ` +
      `CPU per probe ${steadyRounds.map((r) => fixed(r.cpuMs / r.probes, 3)).join(' / ')} ms in the round, ` +
      `${steadyRounds.map((r) => fixed(r.periodCpuMs / r.probes, 3)).join(' / ')} ms over its period; ` +
      `one by one over the period: ${spreadRounds.map((r) => fixed(r.periodCpuMs / r.probes, 3)).join(' / ')} ms`,
  );

  // Watches of our own, opened before the operator starts.
  // Grouped by agent, so the cold-start waits re-check only the agent an event touched.
  const agents = new WatchMap<AgentObject>(
    cluster.kc,
    `/apis/a2a.dev/v1alpha1/namespaces/${ns}/a2aagents`,
    {},
    (a) => a.metadata?.name,
  );
  const slices = new WatchMap<V1EndpointSlice>(
    cluster.kc,
    `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
    {},
    (s) => s.metadata?.labels?.['kubernetes.io/service-name'],
  );
  state.watches.push(agents, slices);
  await Promise.all([agents.start(), slices.start()]);
  await Promise.all([agents.started, slices.started]);

  // 2. Cold start.
  const coldLimitMs = 180_000 + opts.agents * opts.pods * 200;
  const spawned = performance.now();
  // From the spawn: nothing else dials the fleet then, and a first visit may start before /readyz is seen.
  const acceptsAtSpawn = readAccepts(fleetPids());
  const trafficAtSpawn = await fleet.traffic();
  const operator = await startOperator({
    kubeconfig: cluster.kubeconfigPath,
    namespaces: [ns],
    dist: true,
    nodeArgs: opts.operatorNodeArgs.split(/\s+/).filter(Boolean),
    // Production logging (the harness default is debug), and the concurrency the bare loop used.
    extraArgs: [
      '--log-level=info',
      `--workers=${opts.workers}`,
      `--probe-concurrency=${opts.probeConcurrency}`,
    ],
  });
  state.operator = operator;
  const convergedAt = agents.untilEvery(
    'every agent converged',
    names,
    (n) => converged(agents.objects.get(`${ns}/${n}`)),
    coldLimitMs,
  );
  const routedAt = slices.untilEvery(
    'every pod routed on every port',
    names,
    (n, agentSlices) => {
      const ips = fleet.podsOf(n).map((p) => p.ip);
      return ['http', 'grpc'].every((port) => {
        const r = routedIn(agentSlices, port);
        return ips.every((ip) => r.has(ip));
      });
    },
    coldLimitMs,
  );
  await operator.waitReady(60_000);
  const readyAt = performance.now();
  const cpuAtReady = readCpu(pids());
  const atReady = await scrape(operator);
  const tConverged = await convergedAt;
  const coldSplit = cpuBetween(cpuAtReady, readCpu(pids()), cores);
  const coldAccepts = readAccepts(fleetPids()) - acceptsAtSpawn;
  const coldTraffic = trafficBetween(trafficAtSpawn, await fleet.traffic());
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
  log(`machine CPU, /readyz -> converged: ${describeSplit(coldSplit)}`);
  log(`machine CPU, a bare first-visit round: ${describeSplit(bareSplit)}`);

  // 3. Steady state: one period to settle, then a window of whole periods.
  await sleep(opts.period * 1000 + 2000);
  const steady0 = await scrape(operator);
  const cpuSteady0 = readCpu(pids());
  await sleep(opts.steadyPeriods * opts.period * 1000);
  const steady1 = await scrape(operator);
  // The whole machine's too: when the operator falls behind the period without being CPU-bound
  // itself, this says whether its reconciles waited for cores the fleet and control plane held.
  const steadySplit = cpuBetween(cpuSteady0, readCpu(pids()), cores);
  /** How much `f` of the operator's metrics grew over the steady window. */
  const steadyDelta = (f: (m: Metrics) => number): number => f(steady1) - f(steady0);
  const steadyWindowS = (steady1.at - steady0.at) / 1000;
  const periods = steadyWindowS / opts.period;
  const steadyWrites = steadyDelta(writes);
  const steadyReconciles = steadyDelta(reconciles);
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

  const steadyProbes = steadyDelta(probes);
  const steadyCpuS = steadyDelta(cpuSeconds);
  const opCpuPerProbe = (steadyCpuS * 1000) / Math.max(1, steadyProbes);
  const bareCpuPerProbe = median(steadyRounds.map((r) => r.periodCpuMs / r.probes));
  const spreadCpuPerProbe = median(spreadRounds.map((r) => r.periodCpuMs / r.probes));
  const bareColdCpuMs = median(rounds.map((r) => r.cpuMs));
  const coldCpuAfterReadyS = cpuSeconds(cold) - cpuSeconds(atReady);
  // The ceiling is for agents of 3 pods x 3 bindings (9 interfaces and 3 card fetches a period),
  // whatever --pods this run used: CPU per probe already carries the card fetches' share. The
  // operator probes an interface a little more often than once a period (the jitter draws each
  // visit 0.8-1.0 periods after the last): its own measured rate, not 1, times the 9.
  const probesPerInterfacePeriod = steadyProbes / (opts.agents * opts.pods * 3) / Math.max(periods, 1e-9);
  const ceiling = agentsPerCore(opCpuPerProbe, PROBES_PER_AGENT * probesPerInterfacePeriod);
  const bareCeiling = agentsPerCore(bareCpuPerProbe, PROBES_PER_AGENT);
  const coldReq = requests(cold);
  const coldRec = reconciles(cold);
  const s = (ms: number) => fixed(ms / 1000, 2);
  const mib = (bytes: number) => fixed(bytes / 1024 ** 2, 1);
  const podsTotal = opts.agents * opts.pods;
  const rss = sumOf(end.samples, 'process_resident_memory_bytes');
  // GC pauses in the steady window: scavenges (minor), and mark-compact with its incremental steps.
  const pauseS = (kind: string) => steadyDelta((m) => gcSeconds(m, kind));
  const minorPauseS = pauseS('minor');
  const majorPauseS = pauseS('major') + pauseS('incremental');
  const perPeriod = (n: number) => n / Math.max(periods, 1e-9);
  const breakBound = opts.period + opts.threshold + 1;
  const rows: Row[] = [
    {
      metric: 'fleet: processes started, every address bound (s)',
      value: s(fleetStartMs),
      note: `${fleet.processes.length} processes x up to ${opts.agentsPerProcess * opts.pods} addresses, each address its own SDK agent; Pod objects included`,
    },
    {
      metric: 'fleet: RSS of every fleet process (MiB)',
      value: mib(fleetRss),
      note: `${fixed(fleetRss / 1024 / podsTotal, 0)} KiB per pod address`,
    },
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
      metric: "lower bound: bare fetchCard + Prober loop, the operator's first-visit calls (s)",
      value: s(bareMs),
      note: `median of ${opts.bareRounds} rounds (${rounds.map((r) => s(r.ms)).join(', ')}) after a warm-up round, rounds started ${opts.period} s apart (the probe period); ${bareProbes.fetches} card fetches + ${bareProbes.probes} probes + ${bareProbes.capabilityCalls} capability calls (3 per verified interface, docs/conditions.md); ${opts.workers} agents at once, ${opts.probeConcurrency} probes in flight, connections kept alive within a round, none open at its start (a Prober of its own, as at the operator's spawn)`,
    },
    { metric: 'ratio: cold-start convergence / lower bound', value: `${fixed(coldMs / bareMs, 1)}x` },
    {
      metric: 'ratio: convergence after /readyz / lower bound',
      value: `${fixed((tConverged - readyAt) / bareMs, 1)}x`,
      target: '<= 1.5x',
    },
    {
      metric: 'CPU of the first visits: operator /readyz -> converged / a bare first-visit round (s)',
      value: `${fixed(coldCpuAfterReadyS, 2)} / ${s(bareColdCpuMs)} (${fixed((coldCpuAfterReadyS * 1000) / bareColdCpuMs, 1)}x)`,
      note: `the operator's process was busy ${fixed((100 * coldCpuAfterReadyS * 1000) / Math.max(1, tConverged - readyAt), 0)} % of the time from /readyz to convergence: near 100 % its cold start is bound by its CPU, and API round trips overlapped with probes do not shorten it; the bare loop's CPU is the bench process's during a round (client side only), median of ${opts.bareRounds}`,
    },
    {
      metric: 'machine CPU, operator /readyz -> converged (core-seconds)',
      value: splitValue(coldSplit),
      note: `busy / available on ${coldSplit.cores} cores, by process (/proc): ${splitParts(coldSplit)}; the bare first-visit round below used ${fixed(bareSplit.busyS, 1)}: the control plane's share is work the bound does not do`,
    },
    {
      metric: 'machine CPU, a bare first-visit round (core-seconds)',
      value: splitValue(bareSplit),
      note: `busy / available, by process: ${splitParts(bareSplit)}; the round nearest the median`,
    },
    {
      metric: 'connections the fleet accepted: operator spawn -> converged / a bare first-visit round',
      value: `${coldAccepts} / ${bareAccepts}`,
      note: `TCP PassiveOpens of the fleet's network namespaces (/proc/<pid>/net/snmp); ${podsTotal} pod addresses, each with an HTTP and a gRPC port; the agents' HTTP listeners accepted ${coldTraffic.httpConnections} / ${bareTraffic.httpConnections} of them (the rest are gRPC and the benchmark's few reads of the fleet's control endpoint); the bare round is the one nearest the median. An agent closes an idle HTTP connection after its keep-alive, so a longer window can reopen more`,
    },
    {
      metric: 'requests the fleet served: operator spawn -> converged / a bare first-visit round',
      value: `${coldTraffic.http + coldTraffic.grpc} / ${bareTraffic.http + bareTraffic.grpc}`,
      note: `HTTP (cards, JSON-RPC, HTTP+JSON) + gRPC calls every pod address received: ${coldTraffic.http} + ${coldTraffic.grpc} / ${bareTraffic.http} + ${bareTraffic.grpc}; the bare round counted ${bareCalls(rounds[nearestRound]!)} calls of its own (cards + probes + capability calls), the round nearest the median. The operator's window also holds the steady visits of the agents converged first`,
    },
    {
      metric: 'bare loop, a steady-state round: cards + probes, capability calls for 1 agent in 10 (s)',
      value: s(bareSteadyMs),
      note: `median of ${opts.bareRounds} rounds (${steadyRounds.map((r) => s(r.ms)).join(', ')}); convergence after /readyz is ${fixed((tConverged - readyAt) / bareSteadyMs, 1)}x this (the capability calls are ${fixed((100 * bareProbes.capabilityCalls) / (bareProbes.fetches + bareProbes.probes + bareProbes.capabilityCalls), 0)} % of a first visit's calls)`,
    },
    {
      metric: 'operator probes until converged',
      value: String(probes(cold)),
      note: `the bare loop issues ${bareProbes.probes} per round`,
    },
    {
      metric: 'API requests per reconcile, cold start',
      value: fixed(coldReq / coldRec, 2),
      note: `${coldReq} requests / ${coldRec} reconciles until converged: ${requestsByResource(undefined, cold)}`,
    },
    {
      metric: 'API requests per reconcile, steady state',
      value: fixed(steadyDelta(requests) / Math.max(1, steadyReconciles), 2),
      note: `${steadyDelta(requests)} requests / ${steadyReconciles} reconciles`,
    },
    {
      metric: 'API writes per steady-state period',
      value: fixed(steadyWrites / periods, 2),
      target: '0',
      note: `${steadyWrites} writes over ${fixed(periods, 1)} periods of ${opts.period} s (${writesByResource(steady0, steady1)})`,
    },
    {
      metric: 'reconciles per steady-state period',
      value: fixed(steadyReconciles / periods, 1),
      note: `${opts.agents} agents; ${fixed((100 * steadyDelta(unchangedReconciles)) / Math.max(1, steadyReconciles), 0)} % of them unchanged (the inputs of a visit that changed nothing: decide and apply skipped)`,
    },
    {
      metric: 'mean reconcile duration, steady state (ms)',
      value: fixed((steadyDelta(reconcileSeconds) / Math.max(1, steadyReconciles)) * 1000, 1),
    },
    {
      metric: 'operator CPU, steady state (% of one core)',
      value: fixed((steadyCpuS / steadyWindowS) * 100, 1),
      note: `${podsTotal * 3} interfaces + ${podsTotal} cards every ${opts.period} s`,
    },
    {
      metric: 'machine CPU, steady state (core-seconds)',
      value: splitValue(steadySplit),
      note: `busy / available on ${steadySplit.cores} cores over the steady window (${fixed(periods, 1)} periods), by process: ${splitParts(steadySplit)}`,
    },
    {
      metric: 'operator CPU, steady state: user / system (% of one core)',
      value: `${fixed((steadyDelta(cpuUserSeconds) / steadyWindowS) * 100, 1)} / ${fixed((steadyDelta(cpuSystemSeconds) / steadyWindowS) * 100, 1)}`,
      note: "system: the kernel's side of the connections (connect, write, close), which the bare loop's CPU includes too",
    },
    {
      metric: 'operator GC pauses, steady state: minor / major (ms per period)',
      value: `${fixed(perPeriod(minorPauseS * 1000), 1)} / ${fixed(perPeriod(majorPauseS * 1000), 1)}`,
      note: `per period: ${fixed(perPeriod(steadyDelta((m) => gcCount(m, 'minor'))), 1)} scavenges, ${fixed(perPeriod(steadyDelta((m) => gcCount(m, 'major'))), 2)} mark-compacts (major: with their incremental marking steps); ${fixed(((minorPauseS + majorPauseS) / Math.max(steadyCpuS, 1e-9)) * 100, 1)} % of the operator's steady CPU. Main-thread pauses only: V8's concurrent marking and sweeping run on helper threads and count in the process CPU, not here`,
    },
    {
      metric: 'CPU per probe: operator steady state / bare loop (ms)',
      value: `${fixed(opCpuPerProbe, 3)} / ${fixed(bareCpuPerProbe, 3)} (${fixed(opCpuPerProbe / bareCpuPerProbe, 2)}x)`,
      target: '<= 1.15x',
      note: 'process CPU over interface probes, card fetches and capability calls (1 agent in 10 per period) included on both sides; the bare loop from its steady rounds, each over its whole period; the operator also reconciles, the bare loop does not',
    },
    {
      metric: 'CPU per probe: bare loop, visits one by one over the period / in a burst (ms)',
      value: `${fixed(spreadCpuPerProbe, 3)} / ${fixed(bareCpuPerProbe, 3)} (${fixed(spreadCpuPerProbe / bareCpuPerProbe, 2)}x)`,
      note: `the same calls as the bare loop's steady rounds, each agent's visit started ${fixed(SPREAD_SHARE * 100, 0)} % of a period / ${opts.agents} after the last, a wake-up per visit, median of ${opts.bareRounds} rounds each alternating with a burst round (comparison only: the target's bound stays the burst); the operator, whose revisits fall on a grid of a tenth of the period, costs ${fixed(opCpuPerProbe / spreadCpuPerProbe, 2)}x this`,
    },
    {
      metric: 'ceiling: agents (3 pods x 3 bindings) one core sustains at period 10 / 30 / 60 s',
      value: ceiling.map((n) => fixed(n, 0)).join(' / '),
      note: `a period / (operator CPU per probe x ${fixed(PROBES_PER_AGENT * probesPerInterfacePeriod, 1)} probes per agent per period: ${PROBES_PER_AGENT} interfaces x ${fixed(probesPerInterfacePeriod, 2)} probes each, as measured); the bare loop's CPU would allow ${bareCeiling.map((n) => fixed(n, 0)).join(' / ')}`,
    },
    {
      metric: 'cold start: reconcile time / workers (s)',
      value: s((reconcileSeconds(cold) * 1000) / opts.workers),
      note: `${coldRec} reconciles, mean ${fixed((reconcileSeconds(cold) / Math.max(1, coldRec)) * 1000, 0)} ms`,
    },
    {
      metric: 'operator CPU, cold start until converged (s)',
      value: fixed(cpuSeconds(cold), 2),
      note: 'includes loading the operator (the bundled dist/cli/main.js)',
    },
    {
      metric: 'reaction: gRPC broken -> pod out of the EndpointSlice, p50 / p99 / max (s)',
      value: `${s(percentile(reaction.removeMs, 50))} / ${s(percentile(reaction.removeMs, 99))} / ${s(Math.max(...reaction.removeMs))}`,
      target: `p99 <= ${breakBound} s`,
      note: `${reaction.removeMs.length} pods over ${reaction.events - reaction.timeouts} events (${Math.min(opts.eventConcurrency, fleet.agents.length)} agents at once); period ${opts.period} s, failureThreshold ${opts.threshold}; target period + failureThreshold x 1 s + 1 s`,
    },
    {
      metric: 'reaction: gRPC healed -> pod back in the EndpointSlice, p50 / p99 / max (s)',
      value: `${s(percentile(reaction.readdMs, 50))} / ${s(percentile(reaction.readdMs, 99))} / ${s(Math.max(...reaction.readdMs))}`,
      target: `p99 <= ${opts.period + 1} s`,
      note: `${reaction.readdMs.length} pods; target period + 1 s`,
    },
    { metric: 'reaction events that timed out', value: String(reaction.timeouts) },
    {
      metric: 'pod event -> withdrawn from every slice, p50 / p99 / max (s)',
      value: `${s(percentile(withdrawnMs, 50))} / ${s(percentile(withdrawnMs, 99))} / ${s(Math.max(...withdrawnMs))}`,
      target: 'p99 <= 1 s',
      note: `${withdrawal.deletedMs.length} deleted (p50 ${s(percentile(withdrawal.deletedMs, 50))}), ${withdrawal.notReadyMs.length} NotReady (p50 ${s(percentile(withdrawal.notReadyMs, 50))}), ${withdrawal.timeouts} timed out`,
    },
    {
      metric: 'API writes per break/heal event',
      value: fixed((writes(end) - writes(before)) / Math.max(1, reaction.events), 1),
      note: writesByResource(before, end),
    },
    { metric: 'operator RSS at the end (MiB)', value: mib(rss), target: '<= 200 MiB' },
    {
      metric: 'operator heap used / total at the end (MiB)',
      value: `${mib(sumOf(end.samples, 'nodejs_heap_size_used_bytes'))} / ${mib(sumOf(end.samples, 'nodejs_heap_size_total_bytes'))}`,
    },
  ];
  const probeStates = [...sumBy(end.samples, 'a2a_operator_probes_total', 'state').entries()]
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
  log(`operator probes by state over the run: ${probeStates}`);
  return {
    table: markdownTable(rows),
    point: {
      agents: opts.agents,
      coldAfterReadyS: (tConverged - readyAt) / 1000,
      bareS: bareMs / 1000,
      coldCpuS: cpuSeconds(cold),
      steadyCpuPct: (steadyCpuS / steadyWindowS) * 100,
      opCpuPerProbeMs: opCpuPerProbe,
      bareCpuPerProbeMs: bareCpuPerProbe,
      rssMiB: rss / 1024 ** 2,
      coldApiRequests: coldReq,
      probesPerS: steadyProbes / steadyWindowS,
      workersBusyPct: (100 * steadyDelta(reconcileSeconds)) / steadyWindowS / opts.workers,
      machineBusyPct: busyPct(steadySplit),
      steadyWritesPerPeriod: steadyWrites / periods,
      agentsPerCore: ceiling,
    },
  };
}

interface RunState {
  fleet: Fleet;
  operator?: OperatorProcess;
  watches: { stop(): void }[];
  namespace?: string;
}

/** Stops what one size started (operator, watches, fleet) and drops its namespace. */
async function cleanupSize(cluster: Cluster, state: RunState): Promise<void> {
  for (const w of state.watches) w.stop();
  state.watches.length = 0;
  await state.operator?.stop().catch((err: unknown) => log(`stopping the operator: ${String(err)}`));
  state.operator = undefined;
  await state.fleet.destroy().catch((err: unknown) => log(`removing agent pods: ${String(err)}`));
  if (state.namespace) await cluster.kubectl(['delete', 'namespace', state.namespace, '--wait=false']);
  state.namespace = undefined;
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

const PLOT = 'benchmarks-cost.svg';

/**
 * Sections of the results file written by hand, kept across reruns of `npm run bench`:
 * `probe` (bench:fleet and bench:probe figures) and `changes` (what changed in the operator,
 * with before/after figures and profiles).
 */
function keptSection(file: string, name: 'probe' | 'changes'): string {
  try {
    const re = new RegExp(`<!-- bench:${name} -->[\\s\\S]*<!-- /bench:${name} -->`);
    return re.exec(readFileSync(file, 'utf8'))?.[0] ?? '';
  } catch {
    return '';
  }
}

/** What the load average at the start says about the absolute figures. */
function machineNote(loadAtStart: number): string {
  const ratios =
    'the ratios (operator vs bare loop) are measured side by side in one run, under the same load, and are what to read.';
  return loadAtStart < 1
    ? `Nothing else ran at the start (see the load average); the control plane, the fleet, the operator and the benchmark share the machine's ${availableParallelism()} cores, and ${ratios}`
    : `The machine was not quiet at the start (see the load average): absolute times and CPU are inflated by other work and vary between runs; ${ratios}`;
}

function document(
  opts: BenchOptions,
  argv: string[],
  cluster: Cluster,
  results: readonly SizeResult[],
  loadAtStart: number,
  probeSection: string,
  changesSection = '',
): string {
  const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  const largest = results[results.length - 1]!.point;
  const sections = results
    .map((r) => `### ${r.point.agents} agents x ${opts.pods} pods x 3 bindings\n\n${r.table}`)
    .join('\n\n');
  return `# Benchmarks

Written by \`npm run bench\` (\`bench/operator.ts\`) on ${new Date().toISOString().slice(0, 10)}; rerun it to
refresh this file and its plot (\`--no-write\` prints only). Sizes: \`--agents\` or \`--sizes\`,
\`--pods\`, \`--period\`.

Command: \`${command}\`

## Machine

${machineTable(describeMachine(cluster.version, loadAtStart))}

${machineNote(loadAtStart)} The targets are those of issue 15 at 1,000 agents x 3 pods x 3 bindings;
smaller runs are read against the same targets.

## Setup

${opts.sizes.join(', ')} A2AAgents x ${opts.pods} pods x 3 bindings (JSON-RPC and HTTP+JSON on :8080, gRPC on :9090,
protocol 1.0), served by a multiplexed fleet (\`test/agents/fleet-server.ts\`): each fleet process runs in its own
network namespace and serves ${opts.agentsPerProcess} agents' pods, every pod address its own \`@a2a-js/sdk\` agent bound to
that address (its own card naming its agent's Service, its own JSON-RPC, REST and gRPC listeners), one Pod
object per address; every address is dialled. The agents keep an idle HTTP connection ${opts.agentKeepAlive ?? 5} s${opts.agentKeepAlive === undefined ? " (Node's default, as the SDK's servers)" : ' (`--agent-keep-alive`)'}. The control plane is a real kube-apiserver + etcd
(\`test/harness\`); the operator is the bundled \`${imageEntrypoint().argv.join(' ')} run\` (the image's ENTRYPOINT and CMD, read
from the Dockerfile, run by the Node.js of the machine table where the image ships Node 24; the bench runs \`npm run build\`
first)${opts.operatorNodeArgs ? ` with \`${opts.operatorNodeArgs}\` added` : ''} as a child process (\`--log-level=info --workers=${opts.workers}
--probe-concurrency=${opts.probeConcurrency}\`), probe period ${opts.period} s, timeout ${opts.timeout} s,
failureThreshold ${opts.threshold}. Everything (control plane, fleet, operator, the benchmark) shares the machine.

## Cost per size

![cost per size, operator vs bare loop](${PLOT})

${costTable(results.map((r) => r.point))}

## The ceiling of one replica

How many agents (3 pods x 3 bindings, card fetched per pod) one core of operator CPU sustains,
from the operator's measured CPU per probe in steady state at ${largest.agents} agents (this
machine, under the load above; a quiet core does better):

${markdownTable(ceilingRows(largest))}

This is a CPU ceiling. ${throughputNote(opts, largest)}

Past the ceiling, the probes of one period no longer fit in one period of one core: probes queue,
verdicts age, and reaction times grow with the queue. What to do then:

- **shard by namespace**: run several installs of the operator, each watching its own namespaces
  (\`--namespaces\` / the chart's \`watchNamespaces\`), each with its own core; agents in
  different namespaces never share a replica's probe budget;
- **longer periods** where the agent allows it (\`spec.probe.periodSeconds\`): cost is linear in
  1/period, so 30 s carries three times the agents of 10 s;
- **agents that keep idle connections longer than the period**: an agent's server that closes an
  idle HTTP connection sooner (Node's default and the SDK servers' is 5 s) makes every visit open
  new connections to each of its pods, about a third of the operator's steady CPU; agents keeping
  them 30 s cost it 13-22 % less at 300 agents and a 10 s period (\`--agent-keep-alive\`, seventeenth
  pass below). gRPC connections stay open between visits either way;
- give the replica more than one core only helps while the kube client and probes overlap; it is
  one Node.js event loop, so sharding scales further.

## Results per size

${sections}

## The fleet at 1,000 agents, and the prober against minimal clients

${probeSection || '`npm run bench:fleet -- --agents 1000` starts the multiplexed fleet alone and dials every address; `npm run bench:probe` prints the Prober against the SDK client, a minimal undici JSON-RPC request and a minimal grpc-js unary call on the same agents in the same run. Their figures, pasted between `<!-- bench:probe -->` and `<!-- /bench:probe -->`, are kept when `npm run bench` rewrites this file.'}

${changesSection ? `## What changed in the operator, measured\n\n${changesSection}\n\n` : ''}## How each number is measured

- **Fleet**: time from the first \`ip netns\` until every fleet process bound every address and every Pod
  object exists; RSS is each fleet process's own \`process.memoryUsage().rss\`, summed. \`npm run bench:fleet\`
  measures the fleet alone (no control plane), dialling every address.
- **Cold start**: every object (Pods, A2AAgents) exists before the operator is spawned; the clock starts at
  spawn (so it includes loading the operator, informer sync and the first reconcile of each agent) and stops
  when the benchmark's own watch sees the last agent with \`observedGeneration == generation\`,
  \`Reconciling=False\` and no interface \`Pending\`. Routing is "every pod address in both EndpointSlices".
- **Lower bound**: the calls the operator makes on its first visit of every agent (one card per pod, each mapped
  interface probed at that pod, then the three capability calls of each verified interface, docs/conditions.md) issued
  by a loop over the operator's own \`Prober\` (\`fetchCard\`, \`probe\`, \`probeCapability\`), with the operator's
  concurrency shape (\`--workers\` agents at once, each agent's pods in parallel, \`--probe-concurrency\` probes in
  flight), after one warm-up round; each measured first-visit round with a Prober of its own, so it starts with no
  connection open, as the operator's cold start does (it opens every pod's gRPC connection, which a shared Prober
  would have kept open since the warm-up), and the steady rounds with one shared Prober, so connections stay alive
  between them as they do between the operator's visits; rounds start one probe period apart, as the operator's
  visits do, so connections idle between rounds as long as the operator's (the agents close idle HTTP connections
  after Node's default 5 s, on both sides alike); no Kubernetes. Then as many steady rounds: cards and probes (a card whose bytes did not change since the last
  round is not parsed again, as in the operator), and the capability calls for one agent in
  ${CAPABILITY_PERIODS} in turn, as the operator makes them per period once its findings are conclusive. Both
  sides are measured in this run.
- **CPU per probe**: the operator's \`process_cpu_seconds_total\` over its \`a2a_operator_probes_total\` in
  steady state, against the bare loop's own process CPU over its probes in its steady rounds, each round's CPU
  counted to the start of the next (its whole period, as the operator's: what a round leaves behind, garbage
  and idle connections closed at their keep-alive timeout, is its cost too); card fetches and capability
  calls included on both sides.
  Its parts: user and system CPU (\`process_cpu_user_seconds_total\`, \`process_cpu_system_seconds_total\`; system
  is mostly the kernel's side of connect, write and close), and V8's main-thread GC pauses by kind
  (\`nodejs_gc_duration_seconds\`; concurrent marking and sweeping on V8's helper threads are in the process
  CPU but in no pause).
  Each steady round is followed by the same calls with the visits started one by one over
  ${fixed(SPREAD_SHARE * 100, 0)} % of the period (a wake-up per visit), a comparison of what the schedule costs: the operator's revisits fall on a grid of a tenth
  of the period, so the visits due about the same time wake together (\`routineDueAt\`); the target's bound stays
  the burst.
  The ceiling divides a period by CPU per probe x probes per agent per period (9 interfaces times the
  operator's measured probes per interface per period, from the run: at most about 1.1, a visit being due
  0.8-1.0 period after the last; 9 for the bare loop).
- **CPU of the first visits**: the operator's \`process_cpu_seconds_total\` from \`/readyz\` to convergence
  (scraped at both), against the bench process's CPU during a bare first-visit round (median). The operator's
  share of the wall time from \`/readyz\` to convergence says whether its cold start waits (on the API server,
  on probes) or computes: near 100 % only less CPU per first visit shortens it.
- **Machine CPU**: the whole machine's busy time from \`/proc/stat\` over the same window (and over the
  median bare first-visit round), split by process from each pid's \`/proc/<pid>/stat\` (utime + stime; the
  stime in parentheses, the kernel's work for that process: its sockets and the network stack it ran): the
  operator, kube-apiserver, etcd, the fleet processes, the benchmark; "other" is the rest (other processes,
  the kernel's own threads). Near 100 % of the cores, the cold start is bound by the machine, and whatever
  the control plane spends on the operator's API requests is time the bare loop does not pay. The
  same split over the steady window says whether an operator that fell behind the period, with
  workers busy and CPU to spare in its own process, waited for cores the fleet held (the ceiling's note).
- **Connections the fleet accepted**: \`Tcp: PassiveOpens\` of each fleet process's network namespace
  (\`/proc/<pid>/net/snmp\`) from the operator's spawn (not \`/readyz\`: a first visit may start before it) to
  convergence, and over the median bare first-visit round: connections the agents had to accept to serve them.
- **Requests the fleet served**: every HTTP request each pod address received (card included) and every
  gRPC call to a method it serves, summed over the fleet (its control endpoint \`GET /state\`) over the
  windows of the connections. The bare round's count equals the calls it counted of its own (the smoke test checks it); the
  operator's window from its spawn to convergence also holds the steady visits of the agents converged first.
- **API requests per reconcile**: \`a2a_operator_api_requests_total\` (by verb and resource, with the reason)
  over the count of \`a2a_operator_reconcile_duration_seconds\` (watches are long-lived and not counted per event).
  **Writes per steady-state period**: POST/PUT/PATCH/DELETE requests over ${opts.steadyPeriods} probe periods,
  starting a period and 2 s after every agent converged and every pod was routed; the target is zero.
- **What a request costs the control plane** (\`npm run bench:api\`, not part of this run): kube-apiserver
  + etcd CPU (\`/proc/<pid>/stat\`) per request of each kind an agent's first visit sends, on a control plane
  with nothing else running (no watcher, no operator), 400 requests of a kind at a time, 8 in flight,
  median of 3 rounds; the A2AAgent is the shipped CRD with a converged benchmark agent's spec and status
  (\`bench/fixtures/a2aagent-bench.json\`). Their sum with the cold start's mix of requests per agent is a
  floor under what the cold start costs the control plane (the rows *machine CPU*).
- **Reaction latency**: gRPC is stopped on every pod address of one agent (the fleet's control endpoint); each
  pod's latency is the time until the benchmark's watch sees its address leave the agent's gRPC EndpointSlice.
  Then gRPC is restarted, and the latency is until the address is back. ${opts.events} events,
  ${opts.eventConcurrency} agents at once, chosen with seed ${opts.seed}. Percentiles are nearest-rank: with fewer than
  100 samples, p99 is the maximum.
- **Pod event -> withdrawn**: a pod is deleted or marked NotReady (alternately, ${opts.events} events, one
  at a time, pods chosen with seed ${opts.seed + 1}); the latency is until the benchmark's watch sees its
  address in no EndpointSlice of its agent. The pod is restored before the next event.
- **Memory**: \`process_resident_memory_bytes\` and \`nodejs_heap_size_*\` from the operator's \`/metrics\`
  after the last gRPC break/heal event, before the pod events.
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
  if (opts.build) {
    log('npm run build (the operator runs from dist/, as the image does; so does the bare loop)');
    buildDist();
  }
  // The bare loop's stack traces as the operator's: once, before any size (lib/shipped.ts).
  stackTracesAsShipped();
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
    const results: SizeResult[] = [];
    for (const agents of opts.sizes) {
      const r = await runSize({ ...opts, agents }, cluster, state);
      results.push(r);
      process.stdout.write(`\n## ${agents} agents\n\n${r.table}\n`);
      await cleanupSize(cluster, state);
    }
    const points = results.map((r) => r.point);
    process.stdout.write(`\n## Cost per size\n\n${costTable(points)}\n`);
    process.stdout.write(
      `\n## Ceiling of one replica\n\n${markdownTable(ceilingRows(points[points.length - 1]!))}\n`,
    );
    if (opts.write) {
      const out = resolve(REPO_ROOT, opts.out);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(join(dirname(out), PLOT), await costSvg(points));
      writeFileSync(
        out,
        document(
          opts,
          argv,
          cluster,
          results,
          loadAtStart,
          keptSection(out, 'probe'),
          keptSection(out, 'changes'),
        ),
      );
      log(`wrote ${opts.out} and ${join(dirname(opts.out), PLOT)}`);
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
