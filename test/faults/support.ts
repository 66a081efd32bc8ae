/**
 * Shared pieces of the fault suite (test/faults): the profile (CI or A2A_FAULTS_FULL=1), a
 * seeded random source, a private control plane for faults that restart the API server or
 * compact etcd, metric readers, an external watcher of the routing invariant, and a recorder
 * of every status version an agent goes through.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { waitFor, type AgentView } from '../harness/wait.js';
import type { AgentPod } from '../harness/agent-pod.js';
import { listOwned, type Transitions } from '../harness/routing-observer.js';
import { repeat } from '../harness/repeat.js';

/** The long profile: more kills, longer churn, the slow card streaming for minutes. */
export const FULL = process.env.A2A_FAULTS_FULL === '1';

export function log(tag: string, line: string): void {
  process.stderr.write(`[${tag}] ${line}\n`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export { seeded } from '../harness/seeded.js';

export function seedFromEnv(tag: string, fallback: number): number {
  const seed = Number(process.env.A2A_FAULTS_SEED ?? fallback);
  log(tag, `seed ${seed} (A2A_FAULTS_SEED=${seed} replays it)`);
  return seed;
}

/**
 * A control plane owned by this test process (the shared one cannot be restarted or compacted
 * under the other tests): useCluster() starts one when no shared cluster is handed down.
 * Undefined under USE_EXISTING_CLUSTER, where nothing here owns the API server.
 */
export async function privateCluster(): Promise<Cluster | undefined> {
  if (process.env.USE_EXISTING_CLUSTER === 'true') return undefined;
  delete process.env.A2A_TEST_CLUSTER;
  delete process.env.A2A_TEST_KUBECONFIG;
  const cluster = await useCluster();
  return cluster.controlPlane ? cluster : undefined;
}

/** The current etcd revision, through the v3 JSON gateway. */
export async function etcdRevision(endpoint: string): Promise<string> {
  const range = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: 'AA==' }),
  });
  return ((await range.json()) as { header: { revision: string } }).header.revision;
}

/** Compacts etcd to its current revision: every older resourceVersion is gone. */
export async function compactEtcd(endpoint: string): Promise<string> {
  const revision = await etcdRevision(endpoint);
  const res = await fetch(`${endpoint}/v3/kv/compaction`, {
    method: 'POST',
    body: JSON.stringify({ revision, physical: true }),
  });
  assert.equal(res.status, 200, `compaction failed: ${await res.text()}`);
  return revision;
}

/** Whether the kube-apiserver serving on this port is still a live process (read from /proc). */
export function apiserverRunning(port: string): boolean {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('kube-apiserver') && cmd.includes(`--secure-port=${port}\0`)) return true;
    } catch {
      // exited meanwhile
    }
  }
  return false;
}

/**
 * Restarts the private control plane's API server, down for `downMs`, and resolves once its
 * process has exited: during its graceful shutdown it refuses new connections while open watches
 * still deliver events, so "down" is only certain then. `back` resolves when it serves again.
 */
export async function stopApiserverFor(cluster: Cluster, downMs: number): Promise<{ back: Promise<void> }> {
  const back = cluster.controlPlane!.restartApiserver(downMs);
  const port = new URL(cluster.server).port;
  await waitFor(
    'the API server process to exit',
    () => Promise.resolve(!apiserverRunning(port)),
    30_000,
    100,
  );
  return { back };
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** Reads a custom resource straight from etcd (CRs are stored as JSON). */
export async function etcdGetJson(
  endpoint: string,
  key: string,
): Promise<Record<string, unknown> | undefined> {
  const res = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: b64(key) }),
  });
  const body = (await res.json()) as { kvs?: { value: string }[] };
  const v = body.kvs?.[0]?.value;
  return v ? (JSON.parse(Buffer.from(v, 'base64').toString('utf8')) as Record<string, unknown>) : undefined;
}

/** Writes a custom resource straight into etcd, as another API server of the cluster would. */
export async function etcdPutJson(endpoint: string, key: string, value: unknown): Promise<void> {
  const res = await fetch(`${endpoint}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({ key: b64(key), value: b64(JSON.stringify(value)) }),
  });
  assert.equal(res.status, 200, `etcd put failed: ${await res.text()}`);
}

/** Sum of a Prometheus metric's samples whose labels include `labels`. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{([^}]*)\})? ([^ ]+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!] as const),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[4]);
  }
  return sum;
}

/** Reconciles run (all outcomes) from the operator's metrics text. */
export function reconcileCount(metrics: string): number {
  return metricSum(metrics, 'a2a_operator_reconcile_duration_seconds_count');
}

/** API writes (anything but GET/LIST/WATCH) from the operator's metrics text, optionally for one resource. */
export function apiWrites(metrics: string, resource?: string): number {
  let n = 0;
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY'])
    n += metricSum(metrics, 'a2a_operator_api_requests_total', resource ? { method, resource } : { method });
  return n;
}

export interface RoutingObservation {
  at: number;
  /** Pod IPs per slice name. */
  slices: Map<string, string[]>;
  /** Bindings of the advertised card (ConfigMap), undefined when there is none. */
  cardBindings?: string[];
}

/** Reads the managed EndpointSlices and advertised-card ConfigMaps of a namespace, from outside. */
export async function observeRouting(
  cluster: Cluster,
  ns: string,
  agent: string,
): Promise<RoutingObservation> {
  const at = Date.now();
  const items = await listOwned(cluster, ns);
  const slices = new Map<string, string[]>();
  for (const i of items) {
    if (i.kind !== 'EndpointSlice' || !i.metadata.name.startsWith(`${agent}-`)) continue;
    slices.set(
      i.metadata.name,
      (i.endpoints ?? [])
        .filter((e) => e.conditions?.ready !== false)
        .map((e) => e.addresses[0]!)
        .sort(),
    );
  }
  const cm = items.find((i) => i.kind === 'ConfigMap' && i.metadata.name === `${agent}-agent-card`);
  const raw = cm?.data?.['agent-card.json'];
  const cardBindings = raw
    ? (JSON.parse(raw) as { supportedInterfaces: { protocolBinding: string }[] }).supportedInterfaces.map(
        (i) => i.protocolBinding,
      )
    : undefined;
  return { at, slices, cardBindings };
}

/** Per pod IP, [time, up] transitions of one binding (recorded on the safe side by the churner). */
export { Transitions as BindingHistory } from '../harness/routing-observer.js';

/**
 * Breaks or heals the gRPC binding of a random pod, one at a time, `pause()` ms apart, until
 * stopped; every flip goes into `grpc`. A break counts from before the request and a heal from
 * after it, so the history never says a pod served while it might not have. `stop` resolves to
 * the number of flips once the last one has ended.
 */
export function churnGrpc(
  pods: readonly AgentPod[],
  grpc: Transitions,
  random: () => number,
  pause: () => number,
): { stop(): Promise<number> } {
  let flips = 0;
  const loop = repeat(async (running) => {
    await sleep(pause());
    if (!running()) return;
    const p = pods[Math.floor(random() * pods.length)]!;
    const up = !grpc.isUp(p.ip);
    if (!up) grpc.set(p.ip, false);
    await p.control('/grpc', { running: up });
    if (up) grpc.set(p.ip, true);
    flips++;
  });
  return {
    async stop() {
      await loop.stop();
      return flips;
    },
  };
}

/** Heals every pod whose gRPC binding `grpc` records as broken. */
export async function healGrpc(pods: readonly AgentPod[], grpc: Transitions): Promise<void> {
  for (const p of pods) {
    if (!grpc.isUp(p.ip)) {
      await p.control('/grpc', { running: true });
      grpc.set(p.ip, true);
    }
  }
}

/**
 * When the operator was able to act: [start, end) intervals from "ready" to "killed". Its
 * detection bound counts only this time (when it is down, routing stays as it was: fail static).
 */
export class Uptime {
  private readonly intervals: [number, number | undefined][] = [];

  up(at = Date.now()): void {
    this.intervals.push([at, undefined]);
  }

  down(at = Date.now()): void {
    const last = this.intervals.at(-1);
    if (last && last[1] === undefined) last[1] = at;
  }

  /** The latest instant s such that [s, t] holds `ms` of uptime (the first start if there is not that much). */
  windowStart(t: number, ms: number): number {
    let need = ms;
    for (let i = this.intervals.length - 1; i >= 0; i--) {
      const [a, bRaw] = this.intervals[i]!;
      if (a >= t) continue;
      const b = Math.min(bRaw ?? t, t);
      if (b - a >= need) return b - need;
      need -= b - a;
    }
    return this.intervals[0]?.[0] ?? t;
  }
}

/** Every version of one A2AAgent's status, as an outside watch sees them (restarts itself). */
export class StatusRecorder {
  readonly versions: { at: number; rv: string; status: AgentView['status'] }[] = [];
  private req?: { abort(): void };
  private stopped = false;
  private rv?: string;

  constructor(
    private readonly cluster: Cluster,
    private readonly ns: string,
    private readonly name: string,
  ) {}

  async start(): Promise<void> {
    const watch = new k8s.Watch(this.cluster.kc);
    const path = `/apis/a2a.dev/v1alpha1/namespaces/${this.ns}/a2aagents`;
    const go = async (): Promise<void> => {
      if (this.stopped) return;
      const query: Record<string, string> = { fieldSelector: `metadata.name=${this.name}` };
      if (this.rv) query.resourceVersion = this.rv;
      this.req = await watch.watch(
        path,
        query,
        (type, obj: AgentView & { metadata: { resourceVersion: string } }) => {
          if (type === 'ERROR') {
            this.rv = undefined; // 410: start from now (not expected in tests that use this)
            return;
          }
          this.rv = obj.metadata.resourceVersion;
          const prev = this.versions.at(-1);
          if (prev?.rv === this.rv) return;
          this.versions.push({ at: Date.now(), rv: this.rv, status: obj.status });
        },
        () => {
          if (!this.stopped) setTimeout(() => void go().catch(() => setTimeout(() => void go(), 500)), 100);
        },
      );
    };
    await go();
  }

  stop(): void {
    this.stopped = true;
    this.req?.abort();
  }
}

export interface RecordedEvent {
  reason: string;
  note: string;
  type: string;
  count: number;
  reportingInstance: string;
  eventTime: string;
}

/** The operator's Events about one agent (events.k8s.io), each with its series count. */
export async function agentEvents(cluster: Cluster, ns: string, name: string): Promise<RecordedEvent[]> {
  const r = await cluster.kubectl(['get', 'events.events.k8s.io', '-n', ns, '-o', 'json']);
  if (r.code !== 0) throw new Error(r.stderr);
  const items = (
    JSON.parse(r.stdout) as {
      items: {
        reason: string;
        note: string;
        type: string;
        reportingController: string;
        reportingInstance: string;
        eventTime: string;
        regarding: { kind: string; name: string };
        series?: { count: number };
      }[];
    }
  ).items;
  return items
    .filter(
      (e) =>
        e.regarding.kind === 'A2AAgent' &&
        e.regarding.name === name &&
        e.reportingController === 'a2a.dev/operator',
    )
    .map((e) => ({
      reason: e.reason,
      note: e.note,
      type: e.type,
      count: e.series?.count ?? 1,
      reportingInstance: e.reportingInstance,
      eventTime: e.eventTime,
    }));
}

/** Reads process_resident_memory_bytes from the operator's /metrics. */
export async function rssBytes(metricsUrl: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  return metricSum(text, 'process_resident_memory_bytes');
}
