/**
 * Wires the operator together: API client, caches, the A2AAgent controller, leader election,
 * the health/metrics and card servers. Every replica keeps its caches warm and serves cards and
 * health; only the leader reconciles. `run()` resolves with why the operator stopped.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import type { V1ConfigMap, V1EndpointSlice, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { GROUP, PLURAL, VERSION } from '../api/a2aagent.js';
import { parsedAgentSpec, withCachedSpec } from '../controller/agent-spec.js';
import { AgentReconciler, type AgentObject, type CardSigner } from '../controller/reconciler.js';
import { slimPod } from '../controller/slim-pod.js';
import { falseGateIndexValue } from '../controller/gates.js';
import { KubeClient } from '../kube/client.js';
import { loadKubeConfig } from '../kube/config.js';
import { Controller, keyOf } from '../kube/controller.js';
import { EventRecorder } from '../kube/events.js';
import { stripManagedFields } from '../kube/informer.js';
import { LeaderElector } from '../kube/leader-election.js';
import { ApiLeaseStore } from '../kube/lease-store.js';
import { SelectorIndex } from '../kube/selector-index.js';
import { Prober } from '../probe/index.js';
import { createCardServer, type CardIndexMode } from '../routing/card-server.js';
import { ownerIndexValue } from '../routing/inventory.js';
import {
  AGENT_LABEL,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  SLICE_MANAGED_BY,
  SLICE_MANAGED_BY_LABEL,
} from '../routing/objects.js';
import { displayText } from '../text/display-text.js';
import { createHealthServer, parseListenAddress } from './health-server.js';
import { InformerSet, type InformerSetOptions } from './informer-set.js';
import { LiveProbeBackend } from './live-probe-backend.js';
import { LiveContinuityBackend } from './live-continuity-backend.js';
import { OperatorMetrics } from './metrics.js';

export interface ManagerOptions {
  kubeconfig?: string;
  /** Namespaces to watch; empty for all. */
  namespaces: string[];
  workers: number;
  metricsAddress: string;
  cardsAddress: string;
  /** Agent index on the card endpoint (see card-server.ts); default per namespace. */
  cardsIndex?: CardIndexMode;
  leaderElection: boolean;
  leaseNamespace: string;
  leaseName: string;
  identity?: string;
  probeConcurrency: number;
  log: Logger;
  signer?: CardSigner;
}

/**
 * An error as a log line shows it: its message may quote a card or an answer (an API server
 * rejecting a write echoes the value), so control characters are escaped and length bounded.
 */
function errorText(err: unknown): string {
  return displayText(err instanceof Error ? err.message : String(err), 2048);
}

export type StopReason = 'signal' | 'lost-lease';

/** Not a valid object name (DNS subdomain), so it never names an A2AAgent. */
const GATE_RELEASE_KEY = ':release-gates';

export class Manager {
  readonly metrics = new OperatorMetrics();
  readonly client: KubeClient;
  private readonly leaseClient: KubeClient;
  private readonly agents: InformerSet<AgentObject>;
  private readonly pods: InformerSet<V1Pod>;
  private readonly services: InformerSet<V1Service>;
  private readonly slices: InformerSet<V1EndpointSlice>;
  private readonly configMaps: InformerSet<V1ConfigMap>;
  private readonly prober: Prober;
  readonly controller: Controller;
  readonly reconciler: AgentReconciler;
  private readonly withdrawals: Controller;
  private readonly events: EventRecorder;
  /** Agent key → its pod selector, by namespace and label (see selector-index.ts). */
  private readonly selectors = new SelectorIndex();
  private servers: Server[] = [];
  private elector?: LeaderElector;
  private readonly identity: string;

  constructor(private readonly opts: ManagerOptions) {
    const log = opts.log;
    const kc = loadKubeConfig({ path: opts.kubeconfig });
    // Writes go out only while this replica holds the Lease (or runs without election); the
    // Lease itself is written through a client of its own, which the guard must not block.
    this.client = new KubeClient(kc, {
      observer: this.metrics.requestObserver(log),
      mayWrite: () => !opts.leaderElection || (this.elector?.holdsLease() ?? false),
    });
    this.leaseClient = new KubeClient(kc, { observer: this.metrics.requestObserver(log) });
    this.identity = opts.identity ?? `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 7)}`;
    const set = <T extends AgentObject | V1Pod | V1Service | V1EndpointSlice | V1ConfigMap>(
      prefix: string,
      plural: string,
      labelSelector?: string,
      extra: Pick<InformerSetOptions<T>, 'transform' | 'index'> = {},
    ) =>
      new InformerSet<T>({
        ...extra,
        client: this.client,
        prefix,
        plural,
        namespaces: opts.namespaces,
        labelSelector,
        observer: {
          error: (err) =>
            log.warn({ err: errorText(err), resource: plural }, 'watch error; restarting with backoff'),
        },
      });
    // A status write leaves the spec alone: the cache keeps its object, and the parse memoized on it.
    this.agents = set<AgentObject>(`/apis/${GROUP}/${VERSION}`, PLURAL, undefined, {
      transform: (o) =>
        withCachedSpec(
          stripManagedFields(o),
          this.agents.get(o.metadata?.namespace ?? '', o.metadata?.name ?? ''),
        ),
    });
    // Every pod of the watched namespaces is cached: keep only the fields the operator reads.
    // Indexed by a False readiness gate: releasing gates reads those pods, not the namespace.
    this.pods = set<V1Pod>('/api/v1', 'pods', undefined, { transform: slimPod, index: falseGateIndexValue });
    // Owned objects are indexed by their agent, so a reconcile reads its own, not every agent's.
    const byOwner = { index: ownerIndexValue };
    this.services = set<V1Service>('/api/v1', 'services', `${MANAGED_BY_LABEL}=${MANAGED_BY}`, byOwner);
    this.slices = set<V1EndpointSlice>(
      '/apis/discovery.k8s.io/v1',
      'endpointslices',
      `${SLICE_MANAGED_BY_LABEL}=${SLICE_MANAGED_BY}`,
      byOwner,
    );
    this.configMaps = set<V1ConfigMap>('/api/v1', 'configmaps', `${MANAGED_BY_LABEL}=${MANAGED_BY}`, byOwner);
    this.prober = new Prober({ concurrency: opts.probeConcurrency });
    this.events = new EventRecorder({
      client: this.client,
      reportingInstance: this.identity.slice(0, 128),
      onError: (err) => log.warn({ err: errorText(err) }, 'could not record event'),
    });
    this.reconciler = new AgentReconciler({
      client: this.client,
      agents: this.agents,
      pods: this.pods,
      owned: { services: this.services, slices: this.slices, configMaps: this.configMaps },
      backend: new LiveProbeBackend(this.prober, (b, s, ms) => this.metrics.probeDone(b, s, ms)),
      continuity: new LiveContinuityBackend(this.prober),
      events: this.events,
      log,
      signer: opts.signer,
      selecting: (namespace, labels) => this.selectors.matching(namespace, labels),
      observer: {
        decided: (key, d, enforce) => this.metrics.agentDecided(key, d, enforce),
        probeRound: (key, n, period) => this.metrics.probeRound(key, n, period),
        removed: (key) => this.metrics.agentRemoved(key),
        unchanged: () => this.metrics.reconcilesUnchanged.inc(),
      },
    });
    this.controller = new Controller({
      name: 'a2aagent',
      reconcile: this.reconciler.reconcile,
      workers: opts.workers,
      observer: this.metrics.controllerObserver((key, err, terminal) =>
        log.error({ agent: key, terminal, err: errorText(err) }, 'reconcile failed'),
      ),
    });
    const enqueue = (obj: AgentObject) => this.controller.enqueue(keyOf(obj));
    // Pod events find their agents through this index, not by parsing every agent's spec.
    const index = (obj: AgentObject) => {
      const parsed = parsedAgentSpec(obj.spec);
      if (parsed.success) this.selectors.set(keyOf(obj), obj.metadata?.namespace ?? '', parsed.data.selector);
      else this.selectors.delete(keyOf(obj));
    };
    this.agents.addHandlers({
      onAdd: (o) => (index(o), enqueue(o)),
      onUpdate: (_o, n) => (index(n), enqueue(n)),
      onDelete: (o) => {
        this.selectors.delete(keyOf(o));
        this.metrics.agentRemoved(keyOf(o));
        enqueue(o);
      },
    });
    // Pod events also go to the removal path, which never waits behind a reconcile's probes.
    this.withdrawals = new Controller({ name: 'a2aagent-withdraw', reconcile: this.reconciler.withdraw });
    const podChanged = (p: V1Pod) => {
      const ns = p.metadata?.namespace;
      for (const key of ns === undefined ? [] : this.selectors.matching(ns, p.metadata?.labels)) {
        this.controller.enqueue(key);
        this.withdrawals.enqueue(key);
      }
      // A False gate no agent owns (its agent was deleted while no replica led, say): a key that
      // names no agent runs the deletion path, which releases the namespace's orphan gates.
      if (this.reconciler.orphanGate(p))
        this.controller.enqueue(`${p.metadata!.namespace!}/${GATE_RELEASE_KEY}`);
    };
    this.pods.addHandlers({
      onAdd: podChanged,
      onUpdate: (o, n) => (podChanged(o), podChanged(n)),
      onDelete: podChanged,
    });
    // A competing writer changing what we own: reconcile the owner, which restores it.
    const ownerChanged = (o: {
      metadata?: {
        namespace?: string;
        labels?: Record<string, string>;
        ownerReferences?: { kind: string; name: string }[];
      };
    }) => {
      const ref = o.metadata?.ownerReferences?.find((r) => r.kind === 'A2AAgent');
      const name = ref?.name ?? o.metadata?.labels?.[AGENT_LABEL];
      if (name && o.metadata?.namespace) this.controller.enqueue(`${o.metadata.namespace}/${name}`);
    };
    for (const s of [this.services, this.slices, this.configMaps] as InformerSet<V1Service>[]) {
      s.addHandlers({ onAdd: ownerChanged, onUpdate: (_o, n) => ownerChanged(n), onDelete: ownerChanged });
    }
  }

  private synced(): boolean {
    return [this.agents, this.pods, this.services, this.slices, this.configMaps].every((s) => s.hasSynced());
  }

  private async listen(server: Server, address: string, what: string): Promise<void> {
    const { host, port } = parseListenAddress(address);
    server.listen(port, host);
    await once(server, 'listening');
    const a = server.address();
    this.opts.log.info(
      { address: typeof a === 'object' && a ? `${a.address}:${a.port}` : address },
      `${what} listening`,
    );
  }

  /** Runs until `signal` aborts (graceful stop) or the lease is lost. */
  async run(signal: AbortSignal): Promise<StopReason> {
    const log = this.opts.log;
    const health = createHealthServer({
      registry: this.metrics.registry,
      ready: () =>
        this.synced() ? { ok: true, detail: 'caches synced' } : { ok: false, detail: 'caches not synced' },
    });
    const cards = createCardServer(
      { agents: this.agents, configMaps: this.configMaps, ready: () => this.synced() },
      {
        index: this.opts.cardsIndex ?? 'namespace',
        onError: (err) => log.error({ err: errorText(err) }, 'card endpoint failed to answer'),
      },
    );
    this.servers = [health, cards];
    await this.listen(health, this.opts.metricsAddress, 'health and metrics server');
    await this.listen(cards, this.opts.cardsAddress, 'card server');
    for (const s of [this.agents, this.pods, this.services, this.slices, this.configMaps]) s.start();
    const synced = Promise.all(
      [this.agents, this.pods, this.services, this.slices, this.configMaps].map((s) => s.waitForSync()),
    );
    // A SIGTERM while the caches cannot sync (RBAC denied, API down) must still stop the process.
    await Promise.race([synced, aborted(signal)]);
    if (signal.aborted) {
      await this.shutdown();
      return 'signal';
    }
    log.info({ namespaces: this.opts.namespaces.length ? this.opts.namespaces : 'all' }, 'caches synced');

    let reason: StopReason = 'signal';
    if (!this.opts.leaderElection) {
      this.startControllers();
      await aborted(signal);
    } else {
      const lost = new AbortController();
      this.elector = new LeaderElector({
        lock: new ApiLeaseStore(this.leaseClient, this.opts.leaseNamespace, this.opts.leaseName),
        identity: this.identity,
        onStartedLeading: () => {
          log.info({ identity: this.identity }, 'became leader; reconciling');
          this.startControllers();
        },
        onStoppedLeading: () => {
          if (!signal.aborted) {
            reason = 'lost-lease';
            log.error(
              { identity: this.identity },
              'lost the lease; exiting so no two replicas reconcile at once',
            );
            // In-flight reconciles stop now (their writes are refused already: mayWrite).
            void this.stopControllers(0);
          }
          lost.abort();
        },
        onNewLeader: (id) => log.info({ leader: id }, 'leader observed'),
        onError: (err) => log.warn({ err: errorText(err) }, 'leader election request failed'),
      });
      // The elector gets its own signal: on SIGTERM the lease is released only after in-flight
      // reconciles finished, so the standby never overlaps with them.
      const stopElection = new AbortController();
      const electing = this.elector.run(stopElection.signal);
      const stopped = aborted(signal);
      await Promise.race([stopped, once(lost.signal, 'abort')]);
      if (reason === 'signal') {
        await this.stopControllers(20_000);
        stopElection.abort();
      }
      await electing;
    }
    await this.shutdown();
    return reason;
  }

  /** The reconcile queue and the fast withdrawal queue run together, as leader (or alone). */
  private startControllers(): void {
    this.metrics.leader.set(1);
    this.controller.start();
    this.withdrawals.start();
  }

  private async stopControllers(abortAfterMs: number): Promise<void> {
    this.metrics.leader.set(0);
    await Promise.all([this.controller.stop({ abortAfterMs }), this.withdrawals.stop({ abortAfterMs })]);
  }

  private async shutdown(): Promise<void> {
    await this.stopControllers(20_000);
    await this.events.flush();
    await Promise.all(
      [this.agents, this.pods, this.services, this.slices, this.configMaps].map((s) => s.stop()),
    );
    await this.prober.close();
    for (const s of this.servers) s.close();
    await Promise.all(this.servers.map((s) => (s.listening ? once(s, 'close') : undefined)));
  }
}

/** Resolves when the signal aborts (at once if it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}
