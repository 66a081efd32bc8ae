/**
 * Prometheus metrics (prom-client: the maintained client, with the default process metrics).
 * Labels are bounded: binding, state, outcome; per-agent series carry namespace and name.
 */
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ControllerObserver, ReconcileOutcome } from '../kube/controller.js';
import type { RequestInfo, RequestObserver } from '../kube/client.js';
import type { Decision } from '../controller/decide.js';

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
  readonly queueDepth = new Gauge({
    name: 'a2a_operator_queue_depth',
    help: 'Keys waiting in the work queue.',
    registers: [this.registry],
  });
  readonly queueLatency = new Histogram({
    name: 'a2a_operator_queue_latency_seconds',
    help: 'Time a key waited in the queue after it became ready.',
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
    help: 'Interface probe duration, by binding.',
    labelNames: ['binding'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3, 10],
    registers: [this.registry],
  });
  readonly interfaces = new Gauge({
    name: 'a2a_operator_agent_interfaces',
    help: 'Declared and verified interfaces per agent.',
    labelNames: ['namespace', 'name', 'kind'],
    registers: [this.registry],
  });
  readonly apiRequests = new Counter({
    name: 'a2a_operator_api_requests_total',
    help: 'Kubernetes API requests, by method, resource and status code.',
    labelNames: ['method', 'resource', 'code'],
    registers: [this.registry],
  });

  /**
   * Freshness without status writes (status is written only on a change, issue 18): when the
   * operator last probed each agent. `time() - a2a_operator_last_probe_timestamp_seconds` is the
   * age of its verdicts.
   */
  readonly lastProbe = new Gauge({
    name: 'a2a_operator_last_probe_timestamp_seconds',
    help: 'Unix time of the last reconcile that probed the agent (card fetches or interface probes).',
    labelNames: ['namespace', 'agent'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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
      queueLatency: (s) => this.queueLatency.observe(s),
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
    this.probeLatency.observe({ binding }, durationMs / 1000);
  }

  agentDecided(key: string, d: Decision): void {
    const [namespace, name] = key.split('/');
    const declared = d.status.interfaces?.length ?? 0;
    const verified = d.status.interfaces?.filter((i) => i.state === 'Verified').length ?? 0;
    this.interfaces.set({ namespace, name, kind: 'declared' }, declared);
    this.interfaces.set({ namespace, name, kind: 'verified' }, verified);
  }

  agentProbed(key: string, atMs: number): void {
    const [namespace, agent] = key.split('/');
    this.lastProbe.set({ namespace, agent }, atMs / 1000);
  }

  agentRemoved(key: string): void {
    const [namespace, name] = key.split('/');
    this.lastProbe.remove({ namespace, agent: name });
    this.interfaces.remove({ namespace, name, kind: 'declared' });
    this.interfaces.remove({ namespace, name, kind: 'verified' });
  }
}
