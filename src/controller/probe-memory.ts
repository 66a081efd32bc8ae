/**
 * Failure-threshold hysteresis and probe scheduling, as pure functions over a record kept per
 * (pod, interface) between reconciles (README, "What it writes"):
 *
 * - a verified interface is reprobed every period (jittered, never later);
 * - after a failure it is reprobed fast (1s, 2s, 4s… capped below the period) until
 *   `failureThreshold` consecutive failures confirm it, or a success clears it. Until then the
 *   verdict stays Verified, so one flapping probe withdraws nothing;
 * - an interface that never verified is reported failing at once (it was never advertised),
 *   and confirmed after `failureThreshold` failures in a row;
 * - "was verified" survives restarts and leader changes: with no record, a pod that the slices
 *   route an advertised interface to now starts from a seeded Verified record (due at once), so
 *   its first failure is a first failure, reprobed fast, not a withdrawal.
 */
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { CapabilityState, InterfaceState } from '../api/conditions.js';
import { slicePortName, type PublishedInterface } from '../routing/shrink.js';
import type { InterfaceVerdict } from '../observation/observed.js';

export interface ProbeOutcome {
  state: InterfaceState;
  reason: string;
  message: string;
}

export interface ProbeRecord {
  verdict: InterfaceVerdict;
  /** Epoch ms of the probe that produced this record. */
  probedAt: number;
  /** Epoch ms when the next probe is due. */
  dueAt: number;
}

export interface ProbeTiming {
  periodMs: number;
  failureThreshold: number;
  /** First fast reprobe delay; doubles per failure. */
  fastMs?: number;
  /** Returns a number in [0, 1): injected for tests. */
  random?: () => number;
}

const FAST_MS = 1000;

/**
 * Period jittered down by up to 20% so many agents do not recheck in lockstep, and never later
 * than the period given: the capability recheck's timing (routine revisits use routineDueAt).
 */
export function jitteredPeriod(periodMs: number, random: () => number): number {
  return Math.round(periodMs * (0.8 + 0.2 * random()));
}

/**
 * When a routine revisit is due: a jittered draw (0.8-0.9 of the period after now) rounded up to
 * a grid of a tenth of the period that every agent of that period shares, so that visits due
 * about the same time wake the operator together: a wake-up per visit cost 1.2-1.7x the CPU per
 * probe of the same calls in a burst (docs/benchmarks.md, twenty-eighth pass). Still 0.8 to 1
 * period after now, 0.9 on average: the same probe rate, never later than one period.
 */
export function routineDueAt(now: number, periodMs: number, random: () => number): number {
  const grid = periodMs / 10;
  return Math.ceil((now + periodMs * (0.8 + 0.1 * random())) / grid) * grid;
}

function fastDelay(failures: number, t: ProbeTiming): number {
  const base = t.fastMs ?? FAST_MS;
  return Math.min(base * 2 ** Math.max(0, failures - 1), Math.max(base, t.periodMs / 2));
}

/** The record after one more probe. */
export function recordProbe(
  prev: ProbeRecord | undefined,
  outcome: ProbeOutcome,
  now: number,
  timing: ProbeTiming,
): ProbeRecord {
  const random = timing.random ?? Math.random;
  // Only the verdict's own fields: an answer's durationMs (metrics) differs every probe, and a
  // verdict that changes with nothing changed would defeat the steady fast path (quiet-visit.ts).
  outcome = { state: outcome.state, reason: outcome.reason, message: outcome.message };
  if (outcome.state === InterfaceState.Pending) {
    // Not probed (out of time, or the reconcile aborted): no verdict, so no failure counted;
    // what was known stays, and the probe is due again at once.
    if (prev) return { ...prev, dueAt: Math.min(prev.dueAt, now) };
    return { verdict: { ...outcome, failures: 0, confirmed: false }, probedAt: now, dueAt: now };
  }
  if (outcome.state === InterfaceState.Verified) {
    return {
      verdict: sameVerified(prev?.verdict, outcome)
        ? prev!.verdict
        : { ...outcome, failures: 0, confirmed: false },
      probedAt: now,
      dueAt: routineDueAt(now, timing.periodMs, random),
    };
  }
  const failures = (prev?.verdict.failures ?? 0) + 1;
  const confirmed = failures >= timing.failureThreshold;
  const wasVerified = prev?.verdict.state === InterfaceState.Verified;
  if (wasVerified && !confirmed) {
    // Keep the verified verdict until the failure is confirmed: a single flap withdraws nothing.
    return {
      verdict: {
        ...prev.verdict,
        failures,
        confirmed: false,
        pendingFailure: { state: outcome.state, message: outcome.message },
      },
      probedAt: now,
      dueAt: now + fastDelay(failures, timing),
    };
  }
  return {
    verdict: { ...outcome, failures, confirmed },
    probedAt: now,
    dueAt: confirmed ? routineDueAt(now, timing.periodMs, random) : now + fastDelay(failures, timing),
  };
}

/**
 * Whether a verified interface verified again with the same words: its verdict object is kept.
 * Records live a period, so a fresh verdict per probe is promoted to the old generation and
 * collected there (a heap sampling at 1,000 agents: 4 % of the bytes that survived the young
 * generation came from here; docs/benchmarks.md, twenty-fifth pass).
 */
function sameVerified(prev: InterfaceVerdict | undefined, outcome: ProbeOutcome): boolean {
  return (
    prev !== undefined &&
    prev.state === InterfaceState.Verified &&
    prev.failures === 0 &&
    !prev.confirmed &&
    prev.pendingFailure === undefined &&
    prev.reason === outcome.reason &&
    prev.message === outcome.message
  );
}

/** A verdict that needs no probe: the card itself rules the interface out (Unmapped, Ineligible). */
export function staticVerdict(state: InterfaceState, reason: string, message: string): InterfaceVerdict {
  return { state, reason, message, failures: 0, confirmed: true };
}

/**
 * Whether a scheduled probe (or card fetch) runs in this reconcile. Steady items due within a
 * quarter period are pulled forward, so an agent's probes are batched into about one reconcile
 * per period instead of one per item (each has its own jittered due time); items confirming a
 * failure run exactly on their fast schedule.
 */
export function isDue(dueAt: number, now: number, periodMs: number, steady: boolean): boolean {
  return now >= dueAt - (steady ? periodMs / 4 : 0);
}

/**
 * Capability calls (docs/conditions.md, "Capability truth") are three per verified interface: at the probe period they were
 * three times the probe traffic, and most of the operator's CPU (docs/benchmarks.md). A claim
 * rarely changes without the card changing, so conclusive findings are rechecked every this
 * many periods; a new card (digest), an interface verified again, or findings that proved
 * nothing (NotProbed, Inconclusive) are checked at once or at the next period.
 */
export const CAPABILITY_PERIODS = 10;

/** The capability findings kept for one verified interface, and when they are due again. */
export interface CapabilityRecord<F extends { state: string } = { state: string }> {
  findings: F[];
  /** Epoch ms when the three calls are due again. */
  dueAt: number;
  /** Digest of the card the findings were made against: a new card is checked at once. */
  digest?: string;
}

/** Whether an interface's capability calls run in this reconcile. */
export function capabilitiesDue(
  record: CapabilityRecord | undefined,
  now: number,
  digest: string | undefined,
): boolean {
  return !record || record.digest !== digest || now >= record.dueAt;
}

/**
 * When findings just made are due again: CAPABILITY_PERIODS periods when every finding is
 * conclusive, one period when any proved nothing (out of time, a timeout, a 500).
 */
export function capabilitiesDueAt(
  findings: readonly { state: string }[],
  now: number,
  periodMs: number,
  random: () => number,
): number {
  const conclusive = findings.every(
    (f) => f.state !== CapabilityState.NotProbed && f.state !== CapabilityState.Inconclusive,
  );
  return now + jitteredPeriod(periodMs * (conclusive ? CAPABILITY_PERIODS : 1), random);
}

/** Key of the seed map: a pod at one address (a re-addressed pod is a new endpoint). */
export function seedKey(uid: string, ip: string): string {
  return `${uid}@${ip}`;
}

/**
 * What is advertised and routed now, per pod: `uid@ip` → the published interface keys whose
 * port's slices hold that pod at that address. `advertised`, when given (status
 * interfaces[].advertised), narrows the published keys further.
 */
export function seedFromRouting(
  slices: readonly V1EndpointSlice[],
  published: readonly PublishedInterface[],
  advertised?: ReadonlySet<string>,
): Map<string, Set<string>> {
  const seed = new Map<string, Set<string>>();
  for (const slice of slices) {
    const port = slicePortName(slice);
    const keys = published
      .filter(
        (p) => p.portName !== undefined && p.portName === port && (!advertised || advertised.has(p.key)),
      )
      .map((p) => p.key);
    if (keys.length === 0) continue;
    for (const e of slice.endpoints ?? []) {
      const uid = e.targetRef?.uid;
      if (!uid || e.conditions?.ready === false) continue;
      for (const ip of e.addresses) {
        const k = seedKey(uid, ip);
        const set = seed.get(k) ?? new Set<string>();
        for (const key of keys) set.add(key);
        seed.set(k, set);
      }
    }
  }
  return seed;
}

/** A record standing for "verified before this memory began": due now, so it is probed at once. */
export function seededRecord(now: number): ProbeRecord {
  return {
    verdict: {
      state: InterfaceState.Verified,
      reason: InterfaceState.Verified,
      message: 'advertised and routed before this replica started; reprobing',
      failures: 0,
      confirmed: false,
    },
    probedAt: now,
    dueAt: now,
  };
}
