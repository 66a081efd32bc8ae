/**
 * Prometheus metrics (prom-client: the maintained client, with the default process metrics).
 * Labels are bounded: binding, state, outcome; per-agent series carry namespace and agent (name
 * on the older a2a_operator_agent_interfaces), per-interface series add binding and the status
 * URL (at most 64 per agent). Never a pod IP, pod name or task id: docs/metrics.md.
 */
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ControllerObserver, ReconcileOutcome } from '../kube/controller.js';
import type { RequestInfo, RequestObserver } from '../kube/client.js';
import type { Decision } from '../controller/decide.js';
import { ConditionType, Reason } from '../api/conditions.js';

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconcileDuration = new Histogram({
    name: 'a2a_operator_reconcile_duration_seconds',
    help: 'Duration of A2AAgent reconciles, by outcome.',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly reconcileErrors = new Counter({
    name: 'a2a_operator_reconcile_errors_total',
    help: 'Reconciles that failed, by whether the error was terminal.',
    labelNames: ['terminal'],
    registers: [this.registry],
  });
  readonly reconcilesUnchanged = new Counter({
    name: 'a2a_operator_reconciles_unchanged_total',
    help: 'Reconciles whose inputs were those of the last one, which changed nothing: decide and the apply phase were skipped.',
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'a2a_operator_queue_depth',
    help: 'Keys waiting in the work queue.',
    registers: [this.registry],
  });
  readonly queueLatency = new Histogram({
    name: 'a2a_operator_queue_latency_seconds',
    help: 'Time a key waited in the queue after it became ready, by queue priority (high: events, retries, confirming a failure, revisiting a withdrawn pod or interface; low: routine revisits).',
    labelNames: ['priority'],
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [this.registry],
  });
  readonly probes = new Counter({
    name: 'a2a_operator_probes_total',
    help: 'Interface probes, by binding and resulting state.',
    labelNames: ['binding', 'state'],
    registers: [this.registry],
  });
  readonly probeLatency = new Histogram({
    name: 'a2a_operator_probe_duration_seconds',
    help: 'Interface probe duration, by binding and resulting state.',
    labelNames: ['binding', 'state'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3, 10],
    registers: [this.registry],
  });
  readonly interfaces = new Gauge({
    name: 'a2a_operator_agent_interfaces',
    help: 'Declared and verified interfaces per agent.',
    labelNames: ['namespace', 'name', 'kind'],
    registers: [this.registry],
  });
  readonly agentReady = new Gauge({
    name: 'a2a_operator_agent_ready',
    help: 'Whether the agent is Ready (1) or not (0), as the last reconcile decided.',
    labelNames: ['namespace', 'agent'],
    registers: [this.registry],
  });
  readonly cardDiverged = new Gauge({
    name: 'a2a_operator_agent_card_diverged',
    help: 'Whether ready pods of the agent serve different cards (PodsConsistent=False, CardDiverged).',
    labelNames: ['namespace', 'agent'],
    registers: [this.registry],
  });
  readonly interfaceAdvertised = new Gauge({
    name: 'a2a_operator_interface_advertised',
    help: 'Whether the advertised card lists the declared interface (1) or not (0); Enforce mode only.',
    labelNames: ['namespace', 'agent', 'binding', 'url'],
    registers: [this.registry],
  });
  readonly interfaceState = new Gauge({
    name: 'a2a_operator_interface_state',
    help: 'The probe verdict of a declared interface: one series per interface, value 1, label state.',
    labelNames: ['namespace', 'agent', 'binding', 'url', 'state'],
    registers: [this.registry],
  });
  readonly lastProbe = new Gauge({
    name: 'a2a_operator_last_probe_timestamp_seconds',
    help: 'Unix time of the last reconcile that probed any of the agent interfaces (card fetches alone do not count).',
    labelNames: ['namespace', 'agent'],
    registers: [this.registry],
  });
  readonly probePeriod = new Gauge({
    name: 'a2a_operator_agent_probe_period_seconds',
    help: 'spec.probe.periodSeconds of the agent: the freshness alert allows three of them.',
    labelNames: ['namespace', 'agent'],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'a2a_operator_leader',
    help: 'Whether this replica runs the controllers (holds the lease, or runs without election).',
    registers: [this.registry],
  });
  readonly apiRequests = new Counter({
    name: 'a2a_operator_api_requests_total',
    help: 'Kubernetes API requests, by method, resource and status code.',
    labelNames: ['method', 'resource', 'code'],
    registers: [this.registry],
  });

  /**
   * Per agent, what agentDecided last set: as text (the same decision sets nothing again) and the
   * label sets of the per-interface series (to remove the ones that went away).
   */
  private readonly interfaceLabels = new Map<
    string,
    { shown: string; advertised: Labels[]; state: Labels[] }
  >();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Zero series from the start, so rate() over them is 0 rather than empty before a first error.
    for (const terminal of ['true', 'false']) this.reconcileErrors.inc({ terminal }, 0);
    for (const priority of ['high', 'low']) this.queueLatency.zero({ priority });
    this.leader.set(0);
  }

  controllerObserver(onError: (key: string, err: unknown, terminal: boolean) => void): ControllerObserver {
    return {
      reconcileDone: (outcome: ReconcileOutcome, seconds: number) =>
        this.reconcileDuration.observe({ outcome }, seconds),
      reconcileError: (key, err, terminal) => {
        this.reconcileErrors.inc({ terminal: String(terminal) });
        onError(key, err, terminal);
      },
      queueDepth: (n) => this.queueDepth.set(n),
      queueLatency: (s, priority) => this.queueLatency.observe({ priority }, s),
    };
  }

  /** Counts every API request; with `log`, also logs each write at debug level (what was written, when). */
  requestObserver(log?: Logger): RequestObserver {
    return {
      request: (info: RequestInfo) => {
        this.apiRequests.inc({ method: info.method, resource: info.resource, code: String(info.status) });
        if (info.method !== 'GET')
          log?.debug(
            { method: info.method, path: info.path, code: info.status, seconds: info.seconds },
            'api write',
          );
      },
    };
  }

  probeDone(binding: string, state: string, durationMs: number): void {
    this.probes.inc({ binding, state });
    this.probeLatency.observe({ binding, state }, durationMs / 1000);
  }

  /** A reconcile of the agent ran `probes` interface probes (card fetches are not counted). */
  probeRound(key: string, probes: number, periodSeconds: number, nowMs = Date.now()): void {
    const [namespace, agent] = key.split('/');
    this.probePeriod.set({ namespace, agent }, periodSeconds);
    if (probes > 0) this.lastProbe.set({ namespace, agent }, nowMs / 1000);
  }

  agentDecided(key: string, d: Decision, enforce = true): void {
    const cond = (type: string) => d.status.conditions?.find((c) => c.type === type);
    const ready = cond(ConditionType.Ready)?.status === 'True' ? 1 : 0;
    const pods = cond(ConditionType.PodsConsistent);
    const diverged = pods?.status === 'False' && pods.reason === Reason.CardDiverged ? 1 : 0;
    // Every value these series take from the decision: a steady reconcile decides the same and
    // sets nothing (setting a labelled series hashes its labels: a fifth of a steady
    // reconcile's own CPU at 300 agents).
    const shown = `${enforce} ${ready} ${diverged}\n${(d.status.interfaces ?? [])
      .map((i) => `${i.protocolBinding} ${i.url} ${i.advertised} ${i.state}`)
      .join('\n')}`;
    const before = this.interfaceLabels.get(key);
    if (before?.shown === shown) return;
    const [namespace = '', name = ''] = key.split('/');
    const agent = name;
    const declared = d.status.interfaces?.length ?? 0;
    const verified = d.status.interfaces?.filter((i) => i.state === 'Verified').length ?? 0;
    this.interfaces.set({ namespace, name, kind: 'declared' }, declared);
    this.interfaces.set({ namespace, name, kind: 'verified' }, verified);
    this.agentReady.set({ namespace, agent }, ready);
    this.cardDiverged.set({ namespace, agent }, diverged);
    const advertised: Labels[] = [];
    const state: Labels[] = [];
    for (const i of d.status.interfaces ?? []) {
      const base = { namespace, agent, binding: i.protocolBinding, url: i.url };
      if (enforce) {
        this.interfaceAdvertised.set(base, i.advertised ? 1 : 0);
        advertised.push(base);
      }
      const withState = { ...base, state: i.state };
      this.interfaceState.set(withState, 1);
      state.push(withState);
    }
    this.interfaceLabels.set(key, { shown, advertised, state });
    if (before) {
      for (const l of without(before.advertised, advertised)) this.interfaceAdvertised.remove(l);
      for (const l of without(before.state, state)) this.interfaceState.remove(l);
    }
  }

  agentRemoved(key: string): void {
    const [namespace, name] = key.split('/');
    this.interfaces.remove({ namespace, name, kind: 'declared' });
    this.interfaces.remove({ namespace, name, kind: 'verified' });
    const agent = { namespace, agent: name };
    for (const g of [this.agentReady, this.cardDiverged, this.lastProbe, this.probePeriod]) g.remove(agent);
    const before = this.interfaceLabels.get(key);
    this.interfaceLabels.delete(key);
    for (const l of before?.advertised ?? []) this.interfaceAdvertised.remove(l);
    for (const l of before?.state ?? []) this.interfaceState.remove(l);
  }
}

type Labels = Record<string, string>;

/** The label sets of `old` that `now` does not hold. */
function without(old: Labels[], now: Labels[]): Labels[] {
  const keep = new Set(now.map((l) => JSON.stringify(l)));
  return old.filter((l) => !keep.has(JSON.stringify(l)));
}
