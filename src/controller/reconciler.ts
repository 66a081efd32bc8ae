/**
 * Reconciles one A2AAgent: gather (caches, Secrets, card fetches and due probes) → decide
 * (pure) → apply (status, routing, readiness gates, Events). Level-based: the key says which
 * agent, never what happened; everything is read afresh.
 *
 * A failure of the apply phase never leaves status behind: it is written (apply-failure.ts)
 * before the error goes to the queue, classified as Flux does (src/kube/errors.ts
 * classifyError): stalling ends in a TerminalError (no backoff; the probes keep their
 * schedule), waiting requeues when the probes are due, transient backs off. A signing key that
 * cannot sign is a spec problem (SigningKeyInvalid), so it holds full routing without stopping
 * withdrawals; a valid one signs only when the unsigned card changes (a2a.dev/signed-from).
 */
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  API_VERSION,
  GROUP,
  KIND,
  PLURAL,
  VERSION,
  type A2AAgentSpec,
  type A2AAgentStatus,
} from '../api/a2aagent.js';
import { Reason } from '../api/conditions.js';
import { applyStatus, patchPodConditions, semanticEqual } from '../kube/apply.js';
import type { KubeClient } from '../kube/client.js';
import { splitKey, type ReconcileResult } from '../kube/controller.js';
import { classifyError, isNotFound, isNotLeader, TerminalError } from '../kube/errors.js';
import { loggableError } from '../kube/controller.js';
import type { EventRecorder } from '../kube/events.js';
import type { Informer } from '../kube/informer.js';
import type { Priority } from '../kube/workqueue.js';
import { matchesSelector } from '../kube/selector.js';
import type { AdvertisedCard } from '../routing/advertised-card.js';
import {
  addressFamily,
  buildCardConfigMap,
  buildEndpointSlices,
  buildService,
  CARD_KEY,
  cardConfigMapName,
  endpointSliceName,
  sliceWithEndpoints,
  type Owner,
} from '../routing/objects.js';
import { SIGNED_FROM_ANNOTATION, signingTag, unsignedDigest } from '../routing/card-signing.js';
import { SigningKeyVerdicts } from './signing-key-check.js';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { applyFailedStatus, applyFailureMessage } from './apply-failure.js';
import { mapInterfaces } from '../observation/interface-map.js';
import { MemoryStore } from './agent-memory.js';
import {
  applyRouting,
  applyShrink,
  inventory,
  pruneOwned,
  serviceConflict,
  type OwnedCaches,
} from './apply-routing.js';
import type { Keep } from '../routing/inventory.js';
import { currentRouting } from './current-routing.js';
import { resolveCredentials } from './credentials.js';
import {
  type CurrentRouting,
  decide,
  decideShrink,
  type GateDecision,
  publishedInterfaces,
  serviceNameOf,
  type Decision,
  type ShrinkDecision,
} from './decide.js';
import { progressStatus, invalidSpecStatus } from './interim-status.js';
import { DeferredWrite } from './deferred-write.js';
import { observePods, rememberedObservations } from './observe-pods.js';
import { CARD_VERIFIED_GATE, observePod } from './pod-state.js';
import {
  falseGateIndexKey,
  gatesOwnedElsewhere,
  holdsFalseGate,
  listsGate,
  orphanGate,
  releasedGates,
  type GateAgent,
} from './gates.js';
import { parsedAgentSpec } from './agent-spec.js';
import type { ProbeBackend } from './probe-backend.js';
import { EarlyClaims } from './name-claims.js';
import {
  interfaceKey,
  podAddresses,
  statusKey,
  type ObservedPod,
  type PodObservation,
  type SpecProblem,
} from '../observation/observed.js';
import { seedFromRouting } from './probe-memory.js';
import { nextCondition } from '../api/condition-helpers.js';
import { taskContinuityCondition, type ContinuityBackend } from './task-continuity.js';
import { inputsPrint, matchesPrint, type VisitInputs } from './quiet-visit.js';
import type { ObserveResult } from './observe-pods.js';

/**
 * Observations checked against the pod cache after probing (probes take time): a pod that left
 * meanwhile becomes a non-candidate, a re-addressed one a candidate with nothing known yet, so
 * this decision never routes an address that is no longer the pod's.
 */
export function stillCandidates(
  observations: PodObservation[],
  now: readonly ObservedPod[],
): PodObservation[] {
  const byUid = new Map(now.map((p) => [p.uid, p]));
  return observations.map((o) => {
    if (!o.pod.candidate) return o;
    const fresh = byUid.get(o.pod.uid);
    if (sameCandidate(o, fresh)) return o;
    // Re-addressed but ready: a candidate not fetched yet (holds full routing, leaves its gate).
    if (fresh?.candidate) return { pod: fresh, verdicts: new Map() };
    return { pod: { ...(fresh ?? o.pod), candidate: false }, verdicts: new Map() };
  });
}

/**
 * The pods a decision routes (candidates all), checked against the pod cache once more just
 * before its slices are built (signing, the InProgress write and pruning come between): a pod
 * gone since, or no longer the same candidate at the same address, is left out, and one whose
 * Ready condition turned False keeps its endpoint not ready, so the apply does not undo what the
 * fast withdrawal path did meanwhile. Nothing is added or made ready.
 */
export function stillRoutable(
  pods: readonly PodObservation[],
  now: readonly ObservedPod[],
): PodObservation[] {
  const byUid = new Map(now.map((p) => [p.uid, p]));
  return pods.flatMap((o) => {
    const fresh = byUid.get(o.pod.uid);
    if (!sameCandidate(o, fresh)) return [];
    return fresh!.ready === false && o.pod.ready !== false
      ? [{ ...o, pod: { ...o.pod, ready: false } }]
      : [o];
  });
}

function sameCandidate(o: PodObservation, fresh: ObservedPod | undefined): boolean {
  return fresh !== undefined && fresh.candidate && fresh.ip === o.pod.ip;
}

export interface AgentObject extends KubernetesObject {
  spec?: unknown;
  status?: A2AAgentStatus;
}

/** Counters the reconciler reports (metrics wiring lives in src/operator). */
export interface ReconcileObserver {
  probed?(n: number): void;
  /** Per agent: how many interface probes this reconcile ran (card fetches not counted), and its probe period (freshness). */
  probeRound?(key: string, probes: number, periodSeconds: number): void;
  statusWritten?(): void;
  /** With the status as written (after an apply failure rewrote it). */
  decided?(key: string, decision: Decision, enforce: boolean): void;
  /** The agent is gone: drop its series (a reconcile that probed through the delete re-set them). */
  removed?(key: string): void;
  /** A visit with the inputs of the last one, which changed nothing: decide and apply were skipped (quiet-visit.ts). */
  unchanged?(key: string): void;
}

/** Signs an advertised card with a private JWK (routing/card-signing.ts). */
export type CardSigner = (card: Record<string, unknown>, jwk: string) => Promise<Record<string, unknown>>;

/** A read-only cache of one kind (one informer, or one per watched namespace). */
export type Cache<T> = Pick<Informer<T & KubernetesObject>, 'get' | 'list'> &
  Partial<Pick<Informer<T & KubernetesObject>, 'select'>> & {
    /** Objects of `namespace` under one value of the cache's index (pods: falseGateIndexValue). */
    byIndex?(namespace: string, value: string): T[];
  };

export interface ReconcilerDeps {
  client: KubeClient;
  agents: Cache<AgentObject>;
  pods: Cache<V1Pod>;
  owned: OwnedCaches;
  backend: ProbeBackend;
  events: EventRecorder;
  log: Logger;
  memory?: MemoryStore;
  now?: () => number;
  observer?: ReconcileObserver;
  signer?: CardSigner;
  /** spec.probe.taskContinuity: Once (task-continuity.ts); without it the condition is never written. */
  continuity?: ContinuityBackend;
  /**
   * The keys (`namespace/name`) of the agents whose selector matches `labels`: the manager's
   * SelectorIndex over the agent cache, kept by the same informer events. Gate ownership then
   * reads only the agents that select a pod; without it every agent of the namespace is read.
   */
  selecting?: (namespace: string, labels: Record<string, string> | undefined) => string[];
  /**
   * A first visit writes InProgress (Reconciling=True) only once it has run this long without
   * a verdict; 0 writes it at once. Default PROGRESS_GRACE_MS.
   */
  progressGraceMs?: number;
  /**
   * Skip decide and the apply phase when a visit's inputs are those of the last visit and that
   * one changed nothing (quiet-visit.ts). Default true; tests turn it off to compare.
   */
  quietVisits?: boolean;
}

/** Floor on requeue delays so a burst of due probes does not spin the queue. */
const MIN_REQUEUE_MS = 200;

/** A reconcile's next visit as a TerminalError's revisit. */
function toRevisit(next: ReconcileResult): { afterMs: number; priority: Priority } {
  return {
    afterMs: next.requeueAfterMs ?? 0,
    priority: next.priority ?? 'high',
  };
}

/** How long a first visit may run before it writes InProgress (see DeferredWrite). */
export const PROGRESS_GRACE_MS = 1000;

function withoutProbeTime(s: A2AAgentStatus | undefined): A2AAgentStatus | undefined {
  if (!s) return s;
  const { lastTransitionProbeTime: _t, ...rest } = s;
  return rest;
}

/**
 * The status this replica last wrote for an agent, kept until its cache shows that write. The
 * cache lags the API server by a watch event: a reconcile that starts right after a status write
 * (a pod event it caused itself queued it) would otherwise decide against the older status, and
 * record the same transition Events again.
 */
interface WrittenStatus {
  /** resourceVersions older than the write: a cached object at one of these is stale. */
  stale: Set<string>;
  resourceVersion?: string;
  status: A2AAgentStatus;
}

export class AgentReconciler {
  readonly memory: MemoryStore;
  /** Signing keys' verdicts, by key digest: one check per key, not per visit. */
  private readonly signingKeys = new SigningKeyVerdicts();
  private readonly now: () => number;
  private readonly written = new Map<string, WrittenStatus>();

  constructor(private readonly deps: ReconcilerDeps) {
    this.memory = deps.memory ?? new MemoryStore();
    this.now = deps.now ?? Date.now;
  }

  reconcile = async (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    const pending: { progress?: DeferredWrite } = {};
    try {
      return await this.visit(key, signal, pending);
    } finally {
      // A visit that threw before its verdict starts no InProgress write after it, and one
      // already in flight ends before the key can be retried (a retry's verdict is not
      // overwritten by it).
      await pending.progress?.settle().catch(() => undefined);
    }
  };

  private async visit(
    key: string,
    signal: AbortSignal,
    pending: { progress?: DeferredWrite },
  ): Promise<ReconcileResult> {
    const { namespace, name } = splitKey(key);
    let agent = this.readYourWrites(key, this.deps.agents.get(namespace, name));
    if (!agent || agent.metadata?.deletionTimestamp) {
      // Deleted (or being deleted, finalizers of others pending): owned objects go with it
      // through their ownerReferences, nothing is re-applied, and the gates it left False on
      // pods no other agent owns are released (level-based: the namespace's pods are read, so
      // this also holds for a leader that never saw the delete event; see gates.ts).
      this.memory.delete(key);
      // The queue runs one reconcile of a key at a time, so this comes after any still probing.
      this.deps.observer?.removed?.(key);
      await this.releaseGates(namespace, signal);
      return {};
    }
    const log = this.deps.log.child({ agent: key });
    const generation = agent.metadata?.generation;
    const owner = ownerOf(agent, name, namespace);
    const parsed = parsedAgentSpec(agent.spec);
    if (!parsed.success) {
      // The CRD schema should make this unreachable; a hand-edited or pre-validation object still gets a clear status.
      const message = `spec is invalid: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`;
      await this.writeStatus(agent, invalidSpecStatus(agent.status, generation, message, this.now()), signal);
      return {};
    }
    const spec = parsed.data;
    if (agent.status?.observedGeneration !== generation) {
      // First visit of this generation: say so while probing, so kstatus and Flux see
      // InProgress (Reconciling=True) rather than a stale or empty status (kstatus fails open).
      // Only if the visit outlasts the grace (progressGraceMs): a quicker one writes its
      // verdict instead, one status write rather than two (until then a new generation reads
      // InProgress anyway, by its observedGeneration; a new agent has no status, docs/gitops.md).
      // Once started, the write runs beside the probes and is awaited before any other status
      // write and before the decision is applied, so it is still this generation's first
      // status; only the early shrink below (endpoints of pods that left, from memory) may
      // write beside it. If it fails, the reconcile fails after probing, before anything is
      // routed.
      // The decision below starts from that status, written or not, so the verdict of the new
      // generation is a transition of its own (lastTransitionTime, and an Event).
      const progress = progressStatus(agent.status, generation, this.now());
      const stored = agent;
      pending.progress = new DeferredWrite(async () => {
        await this.writeStatus(stored, progress, signal);
      }, this.deps.progressGraceMs ?? PROGRESS_GRACE_MS);
      agent = { ...agent, status: progress };
    }
    const serviceName = serviceNameOf(spec, name);
    const resolved = await resolveCredentials(this.deps.client, { namespace, name }, spec, signal);
    const problems: SpecProblem[] = [...resolved.problems];
    // A key that cannot sign is a spec problem like a refused Secret (docs/security.md): full
    // routing is held, nothing is published unsigned in its place, withdrawals still apply.
    const keyVerdict = resolved.signingKey ? await this.signingKeys.verdict(resolved.signingKey) : undefined;
    const keyProblem = keyVerdict?.problem;
    if (keyProblem)
      problems.push({ reason: Reason.SigningKeyInvalid, message: `spec.routing.signingKey: ${keyProblem}` });
    const signingKey = keyProblem ? undefined : resolved.signingKey;
    const pods = this.selectedPods(spec, namespace);
    for (const port of spec.ports) {
      if (typeof port.targetPort !== 'string') continue;
      const missing = pods.filter(
        (p) => p.candidate && p.containerPorts[port.targetPort as string] === undefined,
      );
      if (missing.length > 0) {
        problems.push({
          reason: Reason.PortNotFound,
          message: `spec.ports ${port.name}: targetPort ${JSON.stringify(port.targetPort)} names no containerPort on pod ${missing[0]!.name}`,
        });
      }
    }
    const enforce = spec.routing.mode === 'Enforce';
    // The apply steps (this early shrink, routing, gates) each run even after an earlier one
    // failed (readiness gates report verification, not routing); the first error is the one
    // status reports.
    let applyError: unknown;
    const attempt = async (step: () => Promise<void>): Promise<void> => {
      try {
        await step();
      } catch (err) {
        if (signal.aborted || isNotLeader(err)) throw err;
        applyError ??= err;
      }
    };
    // Removals first, from what memory already knows: a pod that left is withdrawn before any
    // probe of this reconcile runs (those may take timeoutSeconds).
    if (enforce) await attempt(() => this.shrinkNow(key, owner, generation, spec, serviceName, pods, signal));
    const memory = this.memory.for(key, generation, owner.uid);
    const before = enforce ? currentRouting(this.deps.owned, owner, serviceName) : undefined;
    // What routing says is verified, for pods this memory has no record of (a restart, a leader
    // change): made when a visit first meets such a pod, not on every steady visit.
    let seed: ReadonlyMap<string, ReadonlySet<string>> | undefined;
    const seedOf = before
      ? () =>
          (seed ??= seedFromRouting(
            before.slices,
            publishedInterfaces(before.card, { spec, namespace, serviceName }),
            advertisedInStatus(agent.status, before.card),
          ))
      : undefined;
    // The names routing is applied under, read now if the caches miss them (a first visit), so
    // those reads overlap the probes instead of following them (name-claims.ts).
    const early = enforce ? this.earlyClaims(owner, spec, serviceName, pods, signal) : undefined;
    const observed = await observePods({
      key,
      spec,
      namespace,
      serviceName,
      pods,
      memory,
      backend: this.deps.backend,
      credentials: resolved.credentials,
      gaps: resolved.gaps,
      now: this.now,
      signal,
      ...(seedOf ? { seed: seedOf } : {}),
    });
    this.deps.observer?.probed?.(observed.probes);
    // Interface probes only: a card "fetch" may have done no I/O (probe saturation), and the
    // staleness alert is about verdicts of verified interfaces, which only probes refresh.
    this.deps.observer?.probeRound?.(key, observed.probes, spec.probe.periodSeconds);
    const conflict =
      spec.routing.mode === 'Enforce'
        ? await serviceConflict(this.deps.client, this.deps.owned, owner, serviceName, signal, early)
        : undefined;
    // Probes take time: a pod that left meanwhile is no candidate of this decision.
    const observations = stillCandidates(observed.observations, this.selectedPods(spec, namespace));
    const gateOwnedElsewhere = enforce ? this.gatesOwnedElsewhere(name, spec, namespace) : undefined;
    // The steady fast path (quiet-visit.ts). Not on a generation's first visit (its status is
    // InProgress until a verdict), nor with task continuity (its condition has its own schedule).
    const inputs: VisitInputs | undefined =
      this.deps.quietVisits !== false &&
      !pending.progress &&
      !(this.deps.continuity && spec.probe.taskContinuity !== 'Off')
        ? {
            agent: { uid: owner.uid, resourceVersion: agent.metadata?.resourceVersion },
            observations,
            specProblems: problems,
            serviceConflict: conflict,
            gateOwnedElsewhere,
            owned: inventory(this.deps.owned, namespace, name),
            signingKey: keyProblem ? undefined : keyVerdict?.digest,
          }
        : undefined;
    if (inputs && memory.quiet && matchesPrint(inputs, memory.quiet)) {
      // Gates of other agents' pods are released namespace-wide on every visit (level-based).
      try {
        await this.releaseGates(namespace, signal);
      } catch (err) {
        memory.quiet = undefined;
        throw err;
      }
      this.deps.observer?.unchanged?.(key);
      return this.nextVisit(spec, problems, observed);
    }
    memory.quiet = undefined;
    // Printed now, before deciding: kept below if this visit changes nothing.
    const print = inputs && inputsPrint(inputs);
    let writes = 0;
    const decision = decide({
      name,
      namespace,
      generation,
      spec,
      previous: agent.status,
      pods: observations,
      specProblems: problems,
      serviceConflict: conflict,
      ...(gateOwnedElsewhere?.size ? { gateOwnedElsewhere } : {}),
      ...(enforce ? { current: currentRouting(this.deps.owned, owner, serviceName) } : {}),
      now: new Date(this.now()),
    });
    const continuity = this.deps.continuity
      ? await taskContinuityCondition({
          key,
          spec,
          memory,
          previous: agent.status?.conditions,
          digest: decision.status.card?.digest,
          observations,
          mapContext: { spec, namespace, serviceName },
          credentials: resolved.credentials,
          backend: this.deps.continuity,
          specProblems: problems.length > 0,
          signal,
        })
      : undefined;
    if (continuity) {
      const now = new Date(this.now()).toISOString();
      decision.status.conditions = [
        ...(decision.status.conditions ?? []),
        nextCondition(agent.status?.conditions, continuity, generation, now),
      ];
    }

    const signed = async (c: AdvertisedCard | undefined): Promise<SignedCard> => {
      if (!c || !c.changed || !signingKey || !this.deps.signer) return { card: c };
      const tag = signingTag(c.card, signingKey);
      const published = this.deps.owned.configMaps.get(namespace, cardConfigMapName(name));
      const card = reusableSignature(published, tag) ?? (await this.deps.signer(c.card, signingKey));
      return { card: { ...c, card, signatures: 'Unchanged' }, tag };
    };
    // The inventory (routing/inventory.ts): a deleted predecessor's objects go before anything
    // is applied under their names; in Observe mode everything the operator created goes.
    const keep = enforce ? { serviceName, configMapName: cardConfigMapName(name) } : undefined;
    // The verdict is known: InProgress, if its grace ran out meanwhile, lands before anything
    // else is written; otherwise it is not written.
    await pending.progress?.settle();
    if (this.superseded(namespace, name, agent.metadata?.uid)) {
      log.info('the agent was deleted or recreated under its name while probing: verdict dropped');
      return {};
    }
    await attempt(async () => {
      writes += await this.prune(owner, keep, enforce, log, signal);
    });
    // The apply phase: routing first, status after (status never claims an advertisement that
    // is not in place; one exception: a pod that left since the decision is left out of the
    // slices, and if it was a port's last, card and status name that port's interfaces until the
    // visit its pod event queued). A failure here ends in status (apply-failure.ts), then in
    // the queue action its class calls for.
    await attempt(async () => {
      if (decision.routing) {
        const ref = decision.routing;
        const refPod = observed.observations.find((o) => o.card?.ok && o.card.digest === ref.digest);
        const mapped = refPod?.card?.ok
          ? mapInterfaces(refPod.card.card, { spec, namespace, serviceName })
          : [];
        const final = await signed(ref.card);
        if (final.card !== ref.card && decision.status.advertised)
          decision.status.advertised.signatures = 'Resigned';
        const unavailable =
          decision.status.conditions?.find((c) => c.type === 'Advertised')?.message ?? 'nothing verified';
        const interim = ref.interim ? await signed(ref.interim.card) : undefined;
        const applied = await applyRouting(
          this.deps.client,
          this.deps.owned,
          owner,
          serviceName,
          {
            service: buildService(owner, serviceName, spec, mapped, new Set(ref.plan.advertised)),
            slices: buildEndpointSlices(
              owner,
              serviceName,
              spec,
              ref.plan,
              stillRoutable(ref.pods, this.selectedPods(spec, namespace)),
              mapped,
            ),
            configMap: tagged(buildCardConfigMap(owner, final.card, unavailable), final.tag),
            ...(interim
              ? {
                  interimConfigMap: tagged(buildCardConfigMap(owner, interim.card, unavailable), interim.tag),
                }
              : {}),
          },
          signal,
          early,
        );
        writes += applied.writes;
      } else if (decision.shrink) {
        const { card, tag } = await signed(decision.shrink.card);
        if (card !== decision.shrink.card && decision.status.advertised)
          decision.status.advertised.signatures = 'Resigned';
        writes += await this.applyShrinkDecision(
          owner,
          serviceName,
          { ...decision.shrink, card },
          log,
          signal,
          tag,
        );
      }
    });
    // What the spec no longer names (an old serviceName's Service and slices) goes after the
    // new routing is in place.
    if (enforce)
      await attempt(async () => {
        writes += await this.prune(owner, keep, false, log, signal);
      });
    await attempt(async () => {
      for (const g of decision.gates) await this.writeGate(namespace, g, signal);
      // Observe writes no gate; one it wrote False while enforcing must not hold the pod back.
      // Enforce too: a selector change makes no pod event, so a pod the agent no longer
      // selects would keep its False gate forever.
      await this.releaseGates(namespace, signal);
    });
    const failure = applyError === undefined ? undefined : classifyError(applyError);
    if (failure) {
      const message = applyFailureMessage(loggableError(applyError));
      log.warn(
        { err: loggableError(applyError), class: failure.class, reason: failure.reason },
        'apply failed',
      );
      decision.status = applyFailedStatus(
        decision.status,
        agent.status,
        failure,
        message,
        generation,
        this.now(),
      );
      this.deps.observer?.decided?.(key, decision, enforce);
      // Finally-style: the status write is the point of this branch; if it fails too, the
      // apply error (the cause) is what the queue acts on, the status error only logged.
      try {
        await this.writeStatus(agent, decision.status, signal);
      } catch (err) {
        if (signal.aborted || isNotLeader(err)) throw err;
        log.warn({ err: loggableError(err) }, 'status write failed after a failed apply');
      }
      // Stalling (the same write is refused again) and waiting (on someone else: RBAC, a
      // conflicting object): no backoff, but the probes keep their schedule (confirming a
      // failure fast included), so a break found meanwhile is still withdrawn, and a fix that
      // is no change to the A2AAgent (a policy lifted, a verb granted) is seen.
      if (failure.class === 'stalling')
        throw new TerminalError(`${failure.reason}: ${message}`, {
          cause: applyError,
          revisit: toRevisit(this.nextVisit(spec, problems, observed)),
        });
      if (failure.class === 'waiting') return this.nextVisit(spec, problems, observed);
      throw applyError;
    }
    this.deps.observer?.decided?.(key, decision, enforce);
    const statusWritten = await this.writeStatus(agent, decision.status, signal);
    // Changed nothing: the next visit with these inputs decides the same (quiet-visit.ts).
    if (
      print &&
      !statusWritten &&
      writes === 0 &&
      decision.events.length === 0 &&
      decision.gates.length === 0
    )
      memory.quiet = print;
    const regarding = { apiVersion: API_VERSION, kind: KIND, namespace, name, uid: owner.uid };
    for (const e of decision.events) this.deps.events.record(regarding, e.type, e.reason, e.message);
    for (const e of decision.events) log.info({ event: e.reason, type: e.type }, e.message);
    return this.nextVisit(spec, problems, observed);
  }

  /** When to come back: at the period, sooner for what falls due first or confirms a failure. */
  private nextVisit(
    spec: A2AAgentSpec,
    problems: readonly SpecProblem[],
    observed: ObserveResult,
  ): ReconcileResult {
    if (problems.length > 0) {
      // Stalled: nothing to probe until a person acts; look again at the probe period in case
      // the missing object appears (Secrets are not watched: least privilege).
      return { requeueAfterMs: spec.probe.periodSeconds * 1000, priority: 'low' };
    }
    // A revisit that may confirm a failure (and withdraw) or bring a withdrawn pod or interface
    // back is urgent; the rest are routine and, when workers are busy, wait behind them and
    // behind events (kube/workqueue.ts).
    const priority = observed.confirming || observed.restoring ? 'high' : 'low';
    const next = observed.nextDueAt;
    return next === undefined
      ? { requeueAfterMs: spec.probe.periodSeconds * 1000, priority }
      : { requeueAfterMs: Math.max(MIN_REQUEUE_MS, next - this.now()), priority };
  }

  /**
   * The fast removal path (pod events): applies the shrink rule from the caches and what memory
   * already knows, without probing, Secrets or status. It runs beside a reconcile that may be
   * waiting on slow probes, so a pod that left is withdrawn within the watch latency.
   */
  withdraw = async (key: string, signal: AbortSignal): Promise<ReconcileResult> => {
    const { namespace, name } = splitKey(key);
    const agent = this.deps.agents.get(namespace, name);
    const parsed = parsedAgentSpec(agent?.spec);
    if (!agent || agent.metadata?.deletionTimestamp) return {};
    if (!parsed.success || parsed.data.routing.mode !== 'Enforce') return {};
    const spec = parsed.data;
    const owner = ownerOf(agent, name, namespace);
    const serviceName = serviceNameOf(spec, name);
    const generation = agent.metadata?.generation;
    await this.shrinkNow(
      key,
      owner,
      generation,
      spec,
      serviceName,
      this.selectedPods(spec, namespace),
      signal,
    );
    return {};
  };

  /** Deletes what the inventory no longer keeps; returns how many objects went. */
  private async prune(
    owner: Owner,
    keep: Keep | undefined,
    onlyPredecessors: boolean,
    log: Logger,
    signal: AbortSignal,
  ): Promise<number> {
    const { pruned } = await pruneOwned(
      this.deps.client,
      this.deps.owned,
      owner,
      keep,
      onlyPredecessors,
      signal,
    );
    if (pruned.length > 0) log.info({ pruned }, 'pruned objects the spec no longer names');
    return pruned.length;
  }

  /** Whether a pod holds a False gate no agent owns (pod events enqueue a release for it). */
  orphanGate(pod: V1Pod): boolean {
    const ns = pod.metadata?.namespace;
    // Most pod events are of pods with no False gate: answer those without reading the agents.
    return ns !== undefined && holdsFalseGate(pod) && orphanGate(pod, this.gateAgents(ns, [pod]));
  }

  /**
   * The agents (valid specs) that may own the gates of `pods`: with the selector index, those
   * selecting one of them; without it, every agent of the namespace. The gate rules (gates.ts)
   * test each agent's selector against each pod, so the two give the same answers. Every
   * reconcile of a fleet that uses the gate asks: reading the whole namespace each time made
   * that quadratic in the fleet.
   */
  private gateAgents(namespace: string, pods: readonly V1Pod[]): GateAgent[] {
    const { selecting, agents } = this.deps;
    let objects: AgentObject[];
    if (selecting) {
      const names = new Set<string>();
      for (const p of pods) for (const key of selecting(namespace, p.metadata?.labels)) names.add(key);
      objects = [];
      for (const key of names) {
        const a = agents.get(namespace, splitKey(key).name);
        if (a) objects.push(a);
      }
    } else objects = agents.list(namespace);
    const out: GateAgent[] = [];
    for (const a of objects) {
      const parsed = parsedAgentSpec(a.spec);
      if (!parsed.success) continue;
      out.push({
        name: a.metadata?.name ?? '',
        creationTimestamp:
          a.metadata?.creationTimestamp === undefined ? undefined : String(a.metadata.creationTimestamp),
        selector: parsed.data.selector,
        enforce: parsed.data.routing.mode === 'Enforce',
        deleting: Boolean(a.metadata?.deletionTimestamp),
      });
    }
    return out;
  }

  private gatesOwnedElsewhere(name: string, spec: A2AAgentSpec, namespace: string): Map<string, string> {
    const pods = this.podsMatching(spec, namespace).filter(listsGate);
    if (pods.length === 0) return new Map();
    return gatesOwnedElsewhere(name, pods, this.gateAgents(namespace, pods));
  }

  /** Sets True every False gate in the namespace that no agent owns (gates.ts). */
  private async releaseGates(namespace: string, signal: AbortSignal): Promise<void> {
    // Most namespaces have no False gate: skip reading the agents then.
    const { pods } = this.deps;
    const held = pods.byIndex
      ? pods.byIndex(namespace, falseGateIndexKey(namespace))
      : pods.list(namespace).filter(holdsFalseGate);
    if (held.length === 0) return;
    const released = releasedGates(held, this.gateAgents(namespace, held));
    for (const g of released) {
      await this.writeGate(namespace, g, signal);
      this.deps.log.info({ pod: `${namespace}/${g.pod}`, reason: g.reason }, 'readiness gate released');
    }
  }

  private async writeGate(namespace: string, g: GateDecision, signal: AbortSignal): Promise<void> {
    try {
      await patchPodConditions(
        this.deps.client,
        namespace,
        g.pod,
        [
          {
            type: CARD_VERIFIED_GATE,
            status: g.status,
            reason: g.reason,
            message: g.message,
            lastTransitionTime: new Date(this.now()).toISOString(),
          },
        ],
        signal,
      );
    } catch (err) {
      if (!isNotFound(err)) throw err; // the pod went away meanwhile: its next event reconciles again
    }
  }

  /**
   * Reads of who holds the agent's Service, card ConfigMap and first slice of each port (per
   * address family of its pods), for the names the caches miss; other names (a port split by
   * pod port numbers or chunks) are read when applied.
   */
  private earlyClaims(
    owner: Owner,
    spec: A2AAgentSpec,
    serviceName: string,
    pods: readonly ObservedPod[],
    signal: AbortSignal,
  ): EarlyClaims {
    const { owned, client } = this.deps;
    const early = new EarlyClaims(client, owner, signal);
    early.start('Service', owned.services, serviceName);
    early.start('ConfigMap', owned.configMaps, cardConfigMapName(owner.name));
    const families = new Set(
      pods.filter((p) => p.candidate).flatMap((p) => podAddresses(p).map(addressFamily)),
    );
    if (families.size === 0) families.add('IPv4');
    for (const port of spec.ports)
      for (const family of families)
        early.start('EndpointSlice', owned.slices, endpointSliceName(serviceName, port.name, family));
    return early;
  }

  /** The cached pods the agent's selector matches (through the informer's label index when it has one). */
  private podsMatching(spec: A2AAgentSpec, namespace: string): V1Pod[] {
    const { pods } = this.deps;
    return (
      pods.select?.(namespace, spec.selector) ??
      pods.list(namespace).filter((p) => matchesSelector(spec.selector, p.metadata?.labels))
    );
  }

  private selectedPods(spec: A2AAgentSpec, namespace: string): ObservedPod[] {
    return this.podsMatching(spec, namespace)
      .map(observePod)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Shrink from memory alone; endpoints only (the card, which may need signing, follows in the reconcile). */
  private async shrinkNow(
    key: string,
    owner: Owner,
    generation: number | undefined,
    spec: A2AAgentSpec,
    serviceName: string,
    pods: ObservedPod[],
    signal: AbortSignal,
  ): Promise<void> {
    const current = currentRouting(this.deps.owned, owner, serviceName);
    if (current.slices.length === 0) return;
    // Verdicts made under another spec or for another object with this name are no evidence.
    const mem = this.memory.peek(key);
    const observations = rememberedObservations(
      pods,
      mem?.uid === owner.uid && mem.generation === generation ? mem : undefined,
      spec.probe.failureThreshold,
    );
    const shrink = decideShrink(
      spec,
      { spec, namespace: owner.namespace, serviceName },
      observations,
      current,
    );
    if (shrink.removed.length === 0) return;
    await this.applyShrinkDecision(
      owner,
      serviceName,
      { ...shrink, cardChanged: false },
      this.deps.log.child({ agent: key }),
      signal,
    );
  }

  private async applyShrinkDecision(
    owner: Owner,
    serviceName: string,
    shrink: ShrinkDecision,
    log: Logger,
    signal: AbortSignal,
    signedFrom?: string,
  ): Promise<number> {
    const { writes } = await applyShrink(
      this.deps.client,
      this.deps.owned,
      owner,
      {
        slices: shrink.slices.map((s) => sliceWithEndpoints(owner, serviceName, s, s.endpoints)),
        ...(shrink.cardChanged
          ? {
              configMap: tagged(
                buildCardConfigMap(
                  owner,
                  shrink.card,
                  'no advertised interface has an endpoint left (full routing held)',
                ),
                signedFrom,
              ),
            }
          : {}),
      },
      signal,
    );
    if (writes > 0) {
      for (const r of shrink.removed)
        log.info({ slice: r.slice, address: r.address, pod: r.pod }, `withdrawn: ${r.why}`);
    }
    return writes;
  }

  /** The cached agent, with the status this replica wrote instead when the cache has not caught up. */
  private readYourWrites(key: string, cached: AgentObject | undefined): AgentObject | undefined {
    const w = this.written.get(key);
    if (!w) return cached;
    const rv = cached?.metadata?.resourceVersion;
    if (cached && rv !== undefined && w.stale.has(rv)) {
      return {
        ...cached,
        metadata: { ...cached.metadata, resourceVersion: w.resourceVersion },
        status: w.status,
      };
    }
    this.written.delete(key);
    return cached;
  }

  /**
   * Whether the agent a visit started from (`uid`) is no longer the one the cache holds under its
   * name: deleted, being deleted, or deleted and recreated while the probes ran. Its verdict is
   * then nobody's: written, it would put the predecessor's status on the new object (which
   * kstatus could read as Current when the generations match) and routing owned by a UID that
   * is going. The informer's events have queued the key again; the next visit decides for what
   * is there (the deletion path, for one being deleted).
   */
  private superseded(namespace: string, name: string, uid: string | undefined): boolean {
    const now = this.deps.agents.get(namespace, name);
    return now?.metadata?.uid !== uid || Boolean(now?.metadata?.deletionTimestamp);
  }

  /** Writes status unless it is what the agent shows, or the agent was superseded; returns whether it wrote. */
  private async writeStatus(
    agent: AgentObject,
    status: A2AAgentStatus,
    signal: AbortSignal,
  ): Promise<boolean> {
    if (semanticEqual(withoutProbeTime(agent.status), withoutProbeTime(status))) return false;
    if (this.superseded(agent.metadata!.namespace!, agent.metadata!.name!, agent.metadata?.uid)) return false;
    const key = `${agent.metadata!.namespace!}/${agent.metadata!.name!}`;
    const prev = this.written.get(key);
    const stale = new Set(prev?.stale);
    for (const rv of [agent.metadata?.resourceVersion, prev?.resourceVersion])
      if (rv !== undefined) stale.add(rv);
    const res = await applyStatus<AgentObject>(
      this.deps.client,
      {
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        kind: KIND,
        namespace: agent.metadata!.namespace!,
        name: agent.metadata!.name!,
      },
      status,
      { signal },
    );
    const resourceVersion = res?.metadata?.resourceVersion;
    if (resourceVersion !== undefined) stale.delete(resourceVersion);
    this.written.set(key, { stale, resourceVersion, status: res?.status ?? status });
    this.deps.observer?.statusWritten?.();
    return true;
  }
}

function ownerOf(agent: AgentObject, name: string, namespace: string): Owner {
  const created = agent.metadata?.creationTimestamp;
  return {
    name,
    namespace,
    uid: agent.metadata?.uid ?? '',
    ...(created === undefined ? {} : { created: new Date(created as unknown as string).toISOString() }),
  };
}

interface SignedCard {
  card: AdvertisedCard | undefined;
  /** signingTag of what was signed, when the operator signed it. */
  tag?: string;
}

/** The card ConfigMap, annotated with what its signature was made from (card-signing.ts). */
function tagged(cm: V1ConfigMap, tag: string | undefined): V1ConfigMap {
  if (!tag) return cm;
  return {
    ...cm,
    metadata: { ...cm.metadata, annotations: { ...cm.metadata?.annotations, [SIGNED_FROM_ANNOTATION]: tag } },
  };
}

/**
 * The published signed card when it was signed from the same unsigned card with the same key:
 * an EC signature is randomised, so signing again would rewrite the ConfigMap on every period
 * with nothing changed. The payload is checked, not only the annotation (another writer may
 * have edited the data).
 */
export function reusableSignature(
  published: V1ConfigMap | undefined,
  tag: string,
): Record<string, unknown> | undefined {
  if (published?.metadata?.annotations?.[SIGNED_FROM_ANNOTATION] !== tag) return undefined;
  const text = published.data?.[CARD_KEY];
  if (!text) return undefined;
  try {
    const card = JSON.parse(text) as Record<string, unknown>;
    const sigs = card.signatures;
    if (!Array.isArray(sigs) || sigs.length === 0) return undefined;
    return unsignedDigest(card) === tag.split('.')[0] ? card : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The card keys of the interfaces status calls advertised, or undefined when status lists none.
 * Status names interfaces in their shown form (statusKey); the seed wants card keys.
 */
function advertisedInStatus(
  status: A2AAgentStatus | undefined,
  card: CurrentRouting['card'],
): ReadonlySet<string> | undefined {
  if (!status?.interfaces) return undefined;
  const shown = new Set(status.interfaces.filter((i) => i.advertised).map((i) => interfaceKey(i)));
  return new Set((card?.interfaces ?? []).filter((i) => shown.has(statusKey(i))).map(interfaceKey));
}
