/**
 * The I/O half of a reconcile's gather step: fetch each candidate pod's card when due, probe
 * each of its interfaces when due, and fold the answers into the agent's memory. Returns the
 * observations decide() works from and when the next probe falls due.
 *
 * Only pod addresses are dialled, at ports from spec.ports; a card URL only chooses which
 * port, path, Host header and tenant to use (docs/security.md, "Where the operator dials").
 */
import type { A2AAgentSpec } from '../api/a2aagent.js';
import { CapabilityState, CardReason, InterfaceReason, InterfaceState } from '../api/conditions.js';
import { displayUrl } from '../text/display-url.js';
import {
  capabilityClaims,
  cardDigest,
  parseCard,
  staticChecks,
  CardParseError,
  type CardInterface,
} from '../card/index.js';
import { podMemory, prunePods, type AgentMemory, type CardMemory, type PodMemory } from './agent-memory.js';
import type { CredentialGaps } from './credentials.js';
import { mapInterfaces, operatorCheckOptions, type MapContext } from '../observation/interface-map.js';
import { probeEveryAddress } from './address-verdict.js';
import {
  type CapabilityFinding,
  type InterfaceVerdict,
  type ObservedPod,
  podAddresses,
  type PodCard,
  type PodObservation,
} from '../observation/observed.js';
import { podPort, serviceHostNames } from '../observation/port-mapping.js';
import type { ProbeBackend, ProbeCredentials } from './probe-backend.js';
import {
  capabilitiesDue,
  capabilitiesDueAt,
  isDue,
  routineDueAt,
  recordProbe,
  seededRecord,
  seedKey,
  staticVerdict,
} from './probe-memory.js';

/**
 * How long one reconcile keeps starting probes. An agent with many slow interfaces (each up to
 * timeoutSeconds, its own few at a time) would otherwise outlast the controller's reconcile
 * timeout and never write status; what is left is probed by the next reconcile, right after.
 *
 * How the time bounds compose, so a reconcile always ends with its writes done:
 * - no card fetch or probe starts after this budget (30 s; it answers `deferred`/Pending);
 * - everything a started probe does (attempt, one retry, gRPC diagnosis dial) is cut at
 *   budget + timeoutSeconds + 1 s (src/probe/prober.ts), a card fetch at its own timeout;
 * - `probe.timeoutSeconds` is capped at 20 by the CRD (MAX_PROBE_TIMEOUT_SECONDS), so probing
 *   ends by 51 s and the writes (status, Service, slices, card, gates) have the rest of the
 *   controller's 60 s reconcile timeout (src/kube/controller.ts);
 * - past that timeout the reconcile's signal aborts: probes not yet dialled are not, in-flight
 *   ones are cut, and both answer Pending, which is no verdict and never counts as a failure.
 */
export const PROBE_BUDGET_MS = 30_000;

export interface ObserveInput {
  /** `namespace/name` of the agent: probes and card fetches are bounded per agent. */
  key?: string;
  spec: A2AAgentSpec;
  namespace: string;
  serviceName: string;
  pods: ObservedPod[];
  memory: AgentMemory;
  backend: ProbeBackend;
  credentials: ProbeCredentials;
  now: () => number;
  signal?: AbortSignal;
  random?: () => number;
  /** Default PROBE_BUDGET_MS. */
  probeBudgetMs?: number;
  /**
   * `uid@ip` → interface keys routed and advertised now (probe-memory.ts seedFromRouting), asked
   * for only when a pod's interface has no record (the reconciler makes it then, once).
   */
  seed?: () => ReadonlyMap<string, ReadonlySet<string>>;
  /** Credentials the spec names that could not be had: answers their absence explains are no verdict. */
  gaps?: CredentialGaps;
}

/**
 * The credential whose absence explains a refusal, if the spec names one the operator could not
 * have: the token for an auth refusal, the CA bundle for a TLS failure.
 */
function gapExplaining(
  refused: 'auth' | 'tls' | undefined,
  gaps: CredentialGaps | undefined,
): string | undefined {
  if (refused === 'auth' && gaps?.bearerToken) return 'spec.auth.bearerToken';
  if (refused === 'tls' && gaps?.caBundle) return 'spec.tls.caBundle';
  return undefined;
}

/** What a probe's failed state says was refused, in the terms of `gapExplaining`. */
function refusalOf(state: InterfaceState): 'auth' | 'tls' | undefined {
  return state === InterfaceState.AuthRequired
    ? 'auth'
    : state === InterfaceState.TLSError
      ? 'tls'
      : undefined;
}

export interface ObserveResult {
  observations: PodObservation[];
  /** Epoch ms of the earliest due card fetch or probe; undefined when nothing is scheduled. */
  nextDueAt?: number;
  /**
   * Whether a failure awaits confirmation (a card fetch or probe failed fewer than
   * failureThreshold times in a row): the next visit decides a withdrawal, so it is urgent
   * rather than routine.
   */
  confirming: boolean;
  /**
   * Whether a failure is confirmed (a pod or interface is out of routing until a card fetch or
   * probe passes again): the next visit is the one that can bring it back, so it is urgent too.
   * A heal waits for that probe, at most a period; it should not also wait behind every routine
   * revisit of the healthy fleet.
   */
  restoring: boolean;
  probes: number;
  fetches: number;
}

function cardHost(input: ObserveInput): string {
  return input.spec.hosts?.[0] ?? serviceHostNames(input.serviceName, input.namespace)[2]!;
}

function currentCard(mem: CardMemory | undefined, threshold: number): PodCard | undefined {
  if (!mem) return undefined;
  if (mem.lastError && (mem.failures >= threshold || !mem.good)) {
    return { ok: false, ...mem.lastError, confirmed: mem.failures >= threshold };
  }
  return mem.good;
}

async function refreshCard(
  input: ObserveInput,
  pod: ObservedPod,
  mem: PodMemory,
  notAfter: number,
): Promise<boolean | 'deferred'> {
  const { spec } = input;
  const now = input.now();
  if (mem.card && !isDue(mem.card.dueAt, now, spec.probe.periodSeconds * 1000, mem.card.failures === 0))
    return false;
  const cardPort = spec.ports.find((p) => p.name === spec.card.port);
  const port = cardPort && podPort(cardPort, pod);
  const periodMs = spec.probe.periodSeconds * 1000;
  const threshold = spec.probe.failureThreshold;
  const card: CardMemory = mem.card ?? { failures: 0, dueAt: 0 };
  mem.card = card;
  const fail = (reason: string, message: string): void => {
    card.failures++;
    card.lastError = { reason, message };
    card.dueAt =
      card.failures >= threshold
        ? routineDueAt(input.now(), periodMs, input.random ?? Math.random)
        : input.now() + 1000 * 2 ** Math.min(card.failures - 1, 4);
  };
  if (port === undefined) {
    fail(
      CardReason.CardFetchFailed,
      `card port ${spec.card.port}: targetPort names no containerPort on pod ${pod.name}`,
    );
    return true;
  }
  const res = await input.backend.fetchCard({
    agent: input.key,
    address: pod.ip!,
    port,
    scheme: spec.card.scheme === 'HTTPS' ? 'https' : 'http',
    path: spec.card.path,
    hostHeader: cardHost(input),
    timeoutMs: spec.probe.timeoutSeconds * 1000,
    etag: card.good ? card.etag : undefined,
    // Same bytes, same card: the spec its static checks read is fixed for this memory's generation.
    heldBodyDigest: card.good ? card.bodyDigest : undefined,
    notAfter,
    signal: input.signal,
    ...input.credentials,
  });
  // Not fetched (out of time, or aborted): no fact about the card; what is known stays.
  if (res.kind === 'deferred') return 'deferred';
  if (res.kind === 'error') {
    // Refused for want of a credential the operator could not read: no fact about the pod.
    if (gapExplaining(res.refused, input.gaps)) return true;
    fail(res.reason, `pod ${pod.name}: ${res.message}`);
    return true;
  }
  card.dueAt = routineDueAt(input.now(), periodMs, input.random ?? Math.random);
  if (res.kind === 'notModified' && card.good) {
    // Same bytes under a new ETag (a server that tags by file time, after a restart): keep the
    // new tag, or every later fetch revalidates with the old one and gets the whole body.
    if (res.etag) card.etag = res.etag;
    card.failures = 0;
    card.lastError = undefined;
    return true;
  }
  if (res.kind !== 'ok') return true;
  const parsed = parseCard(res.body);
  if (parsed instanceof CardParseError) {
    // A card that parses wrong is a fact about the card, not a transient fault: no threshold.
    card.failures = threshold;
    card.lastError = { reason: CardReason.CardInvalid, message: `pod ${pod.name}: ${parsed.message}` };
    card.good = undefined;
    card.etag = undefined;
    card.bodyDigest = undefined;
    mem.probes.clear();
    return true;
  }
  const digest = cardDigest(parsed.raw);
  if (card.good?.digest !== digest) mem.probes.clear(); // a new card is probed afresh
  card.good = {
    ok: true,
    card: parsed,
    digest,
    findings: staticChecks(
      parsed,
      operatorCheckOptions({ spec, namespace: input.namespace, serviceName: input.serviceName }),
    ),
  };
  card.etag = res.etag;
  card.bodyDigest = res.bodyDigest;
  card.failures = 0;
  card.lastError = undefined;
  return true;
}

export async function observePods(visit: ObserveInput): Promise<ObserveResult> {
  // One jitter draw per visit: everything this visit fetches or probes comes due together, so
  // the next visit is one reconcile. A draw per item spread an agent's items over a fifth of a
  // period, and pulling the later ones forward (isDue) probed every item about every 0.8
  // periods: a quarter more probes than the period asks for.
  const draw = (visit.random ?? Math.random)();
  const input: ObserveInput = { ...visit, random: () => draw };
  const { spec } = input;
  const ctx: MapContext = { spec, namespace: input.namespace, serviceName: input.serviceName };
  const threshold = spec.probe.failureThreshold;
  const timing = {
    periodMs: spec.probe.periodSeconds * 1000,
    failureThreshold: threshold,
    random: input.random,
  };
  prunePods(input.memory, new Set(input.pods.filter((p) => p.candidate).map((p) => p.uid)));
  let fetches = 0;
  let probes = 0;
  let deferred = false;
  const notAfter = input.now() + (input.probeBudgetMs ?? PROBE_BUDGET_MS);
  const observations = await Promise.all(
    input.pods.map(async (pod): Promise<PodObservation> => {
      if (!pod.candidate || !pod.ip) return { pod, verdicts: new Map() };
      const mem = podMemory(input.memory, pod.uid, podAddresses(pod).join(','));
      const fetched = await refreshCard(input, pod, mem, notAfter);
      if (fetched === 'deferred') deferred = true;
      else if (fetched) fetches++;
      const card = currentCard(mem.card, threshold);
      const verdicts = new Map<string, InterfaceVerdict>();
      if (!card?.ok) return { pod, card, verdicts };
      const mapped = mapInterfaces(card.card, ctx);
      await Promise.all(
        mapped.map(async (m) => {
          if (!m.mapped) {
            verdicts.set(m.key, staticVerdict(m.state, m.reason, m.message));
            return;
          }
          const port = podPort(m.port, pod);
          if (port === undefined) {
            verdicts.set(
              m.key,
              staticVerdict(
                InterfaceState.Unmapped,
                'Unmapped',
                `${m.iface.protocolBinding} ${m.iface.url}: port ${m.port.name} targetPort ${String(m.port.targetPort)} names no containerPort on this pod; never dialled`,
              ),
            );
            return;
          }
          const known = mem.probes.get(m.key);
          // No record yet but routed and advertised now (a restart, a leader change): it was verified.
          const prev =
            known ??
            (input.seed?.().get(seedKey(pod.uid, pod.ip!))?.has(m.key)
              ? seededRecord(input.now())
              : undefined);
          const steady = prev !== undefined && (prev.verdict.failures === 0 || prev.verdict.confirmed);
          if (!prev || isDue(prev.dueAt, input.now(), timing.periodMs, steady)) {
            // Every address the pod has (dual-stack): Verified only if each serves it.
            const answer = await probeEveryAddress(podAddresses(pod), (address) =>
              input.backend.probe({
                agent: input.key,
                address,
                port,
                iface: m.iface,
                timeoutMs: spec.probe.timeoutSeconds * 1000,
                notAfter,
                signal: input.signal,
                ...input.credentials,
              }),
            );
            if (answer.state === InterfaceState.Pending) {
              // Not dialled, or cut by the reconcile's abort: no verdict. Keep what is known; probe it next.
              deferred = true;
              verdicts.set(
                m.key,
                known?.verdict ?? staticVerdict(answer.state, answer.reason, answer.message),
              );
              return;
            }
            probes++;
            const gap = gapExplaining(refusalOf(answer.state), input.gaps);
            if (gap) {
              // The missing credential explains the answer (credentials.ts): no verdict, no
              // failure counted; what was known stays.
              verdicts.set(
                m.key,
                prev?.verdict ??
                  staticVerdict(
                    InterfaceState.Pending,
                    InterfaceReason.Pending,
                    `${m.iface.protocolBinding} ${displayUrl(m.iface.url)}: ${answer.state} without ${gap}, which the operator could not read (see Stalled); not judged`,
                  ),
              );
              return;
            }
            mem.probes.set(m.key, recordProbe(prev, answer, input.now(), timing));
          }
          verdicts.set(m.key, mem.probes.get(m.key)!.verdict);
          if (mem.probes.get(m.key)!.verdict.state === InterfaceState.Verified)
            await observeCapabilities(input, mem, m.key, m.iface, port, pod, card, notAfter);
          else mem.capabilities?.delete(m.key);
        }),
      );
      // Records of interfaces this card no longer declares are dropped.
      const live = new Set(mapped.map((m) => m.key));
      // In card order, not the order the probes answered in: equal observations compare equal
      // (quiet-visit.ts).
      const answered = new Map(verdicts);
      verdicts.clear();
      for (const m of mapped) {
        const v = answered.get(m.key);
        if (v) verdicts.set(m.key, v);
      }
      for (const k of mem.probes.keys()) if (!live.has(k)) mem.probes.delete(k);
      for (const k of mem.capabilities?.keys() ?? []) if (!live.has(k)) mem.capabilities!.delete(k);
      const capabilities = new Map([...(mem.capabilities ?? [])].map(([k, r]) => [k, r.findings]));
      return { pod, card, verdicts, ...(capabilities.size > 0 ? { capabilities } : {}) };
    }),
  );
  let nextDueAt: number | undefined;
  let confirming = false;
  let restoring = false;
  for (const p of input.memory.pods.values()) {
    const times = [p.card?.dueAt, ...[...p.probes.values()].map((r) => r.dueAt)];
    for (const t of times) if (t !== undefined && (nextDueAt === undefined || t < nextDueAt)) nextDueAt = t;
    if (p.card && p.card.failures > 0) {
      if (p.card.failures < threshold) confirming = true;
      else restoring = true;
    }
    for (const r of p.probes.values()) {
      if (r.verdict.failures === 0) continue;
      if (r.verdict.confirmed) restoring = true;
      else confirming = true;
    }
  }
  if (deferred) nextDueAt = Math.min(nextDueAt ?? Infinity, input.now());
  return { observations, nextDueAt, confirming, restoring, probes, fetches };
}

/**
 * Capability truth for one interface verified on this pod (docs/conditions.md, "Capability truth"): the three calls at the
 * pod's first address, when the interface is verified anew or its card changed, then every
 * CAPABILITY_PERIODS (jittered) periods while the findings are conclusive (every period while
 * not). Findings not due are kept; a backend without capability probes, or a run out of time,
 * leaves what memory holds.
 */
async function observeCapabilities(
  input: ObserveInput,
  mem: PodMemory,
  key: string,
  iface: CardInterface,
  port: number,
  pod: ObservedPod,
  card: Extract<PodCard, { ok: true }>,
  notAfter: number,
): Promise<void> {
  const probe = input.backend.probeCapabilities?.bind(input.backend);
  if (!probe) return;
  const record = mem.capabilities?.get(key);
  if (!capabilitiesDue(record, input.now(), card.digest)) return;
  const findings = await probe({
    agent: input.key,
    address: podAddresses(pod)[0]!,
    port,
    iface,
    timeoutMs: input.spec.probe.timeoutSeconds * 1000,
    notAfter,
    signal: input.signal,
    ...input.credentials,
    claims: capabilityClaims(card.card.raw),
  });
  // Not probed this time (out of time, aborted): keep what is known, try next reconcile.
  if (findings.every((f) => f.state === CapabilityState.NotProbed) && record) return;
  mem.capabilities ??= new Map();
  mem.capabilities.set(key, {
    findings: findings.map((f) => siblingFinding(input.memory, mem, key, f) ?? f),
    dueAt: capabilitiesDueAt(
      findings,
      input.now(),
      input.spec.probe.periodSeconds * 1000,
      input.random ?? Math.random,
    ),
    digest: card.digest,
  });
}

/**
 * An equal finding another pod of the agent already holds for this interface, so the agent keeps
 * one copy: its pods usually answer alike, and each finding's message (about 200 bytes, the
 * largest text kept per pod) lives until the next capability probe. Findings are never mutated.
 */
function siblingFinding(
  memory: AgentMemory,
  self: PodMemory,
  key: string,
  f: CapabilityFinding,
): CapabilityFinding | undefined {
  for (const other of memory.pods.values()) {
    if (other === self) continue;
    const g = other.capabilities?.get(key)?.findings.find((x) => x.capability === f.capability);
    if (g && g.state === f.state && g.declared === f.declared && g.message === f.message) return g;
  }
  return undefined;
}

/**
 * The observations memory already holds, without any I/O: for a shrink that must not wait for
 * probes (a pod event while another pod's probe is slow). Pods re-addressed since are left
 * without card or verdicts (no evidence about the new address either way).
 */
export function rememberedObservations(
  pods: readonly ObservedPod[],
  memory: AgentMemory | undefined,
  failureThreshold: number,
): PodObservation[] {
  return pods.map((pod) => {
    const mem = pod.candidate && pod.ip ? memory?.pods.get(pod.uid) : undefined;
    // Memory is keyed by every address the pod had (observePods), so a dual-stack pod matches.
    if (!mem || mem.ip !== podAddresses(pod).join(',')) return { pod, verdicts: new Map() };
    const card = currentCard(mem.card, failureThreshold);
    return {
      pod,
      ...(card ? { card } : {}),
      verdicts: new Map([...mem.probes].map(([k, r]) => [k, r.verdict])),
    };
  });
}
