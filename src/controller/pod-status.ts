/**
 * Per-pod verdicts: which ready pods verify everything their card declares and which fail, for
 * `status.pods` (so `kubectl describe` shows which pod lies) and for the Stalled rule (a
 * failure is a pipeline failure only when no ready pod is free of it, unless
 * spec.probe.failOn is AnyPod). Pure.
 */
import { MAX_STATUS_PODS, type PodStatus } from '../api/a2aagent.js';
import { InterfaceState } from '../api/conditions.js';
import { clipText } from '../text/display-text.js';
import { displayUrl } from '../text/display-url.js';
import { clip, namePods } from './aggregate.js';
import type { GateDecision } from './decide.js';
import { MAX_INTERFACES, type MappedInterface } from '../observation/interface-map.js';
import { podAddresses, type PodObservation } from '../observation/observed.js';

const MAX_FAILING_LISTED = 4;
/** Room for one failing interface: binding, URL (cut), version and state. */
const MAX_FAILING_TEXT = 200;

/** One candidate pod's verdict over its whole card. */
export interface PodVerdict {
  name: string;
  /** `Clean`: every declared interface verified; `Failing`: a definite failure; `Pending`: not known yet. */
  kind: 'Clean' | 'Failing' | 'Pending';
  /** Every failure is confirmed (failureThreshold probes, or a static/card verdict). */
  confirmed: boolean;
  /** What fails, one entry per problem (the card, or an interface), shown form. */
  failing: string[];
  /** A failure came from probing (a card fetch or an interface verdict), not from the card's text alone. */
  probed: boolean;
  verified: number;
  declared: number;
}

function ifaceText(m: MappedInterface, state: string): string {
  return clipText(
    `${m.iface.protocolBinding} ${displayUrl(m.iface.url, 120)} (v${m.iface.protocolVersion}) ${state}`,
    MAX_FAILING_TEXT,
  );
}

/**
 * The verdict of one probed pod. "Verified" is the bar (as InterfacesVerified), except that with
 * `authAccepted` (spec.routing.authRequired: Advertise) an interface answering AuthRequired is
 * not failing: the user's policy accepts it, so it neither stalls nor splits the pods.
 */
export function podVerdict(
  p: PodObservation,
  mapped: readonly MappedInterface[] | undefined,
  authAccepted = false,
): PodVerdict {
  const base = { name: p.pod.name, verified: 0, declared: 0, probed: false };
  if (!p.card) return { ...base, kind: 'Pending', confirmed: false, failing: [] };
  if (!p.card.ok) {
    return {
      ...base,
      probed: true,
      kind: p.card.confirmed ? 'Failing' : 'Pending',
      confirmed: p.card.confirmed,
      failing: [clipText(`card ${p.card.reason}`, MAX_FAILING_TEXT)],
    };
  }
  const list = mapped ?? [];
  const failing: string[] = p.card.findings.map((f) => `card ${f.reason}`);
  if (list.length === 0) failing.push('card NoInterfaces');
  if (list.length > MAX_INTERFACES)
    failing.push(`card declares ${list.length} interfaces (> ${MAX_INTERFACES})`);
  let pending = false;
  let confirmed = true;
  let verified = 0;
  let probed = false;
  for (const m of list.slice(0, MAX_INTERFACES)) {
    const v = p.verdicts.get(m.key);
    if (!v || v.state === InterfaceState.Pending) {
      pending = true;
      continue;
    }
    if (v.state === InterfaceState.Verified) {
      verified++;
      continue;
    }
    if (authAccepted && v.state === InterfaceState.AuthRequired) continue;
    if (!v.confirmed) confirmed = false;
    probed = true;
    failing.push(ifaceText(m, v.state));
  }
  const kind = failing.length > 0 ? 'Failing' : pending ? 'Pending' : 'Clean';
  return {
    ...base,
    kind,
    confirmed,
    failing,
    probed,
    verified,
    declared: Math.min(list.length, MAX_INTERFACES),
  };
}

/** "pod-c (GRPC http://h:9090 (v1.0) Unimplemented)", for condition messages. */
export function describeFailingPods(failing: readonly PodVerdict[]): string {
  const shown = failing.slice(0, 3).map((f) => `${f.name} (${f.failing.slice(0, 2).join(', ')})`);
  const more = failing.length > 3 ? ` and ${failing.length - 3} more` : '';
  return clip(`${shown.join('; ')}${more}`, 2048);
}

/** "Clean"/"Failing" split of the probed pods, for PodsConsistent and Stalled. */
export interface PodSplit {
  clean: PodVerdict[];
  failing: PodVerdict[];
  candidates: number;
}

export function splitPods(verdicts: readonly PodVerdict[]): PodSplit {
  return {
    clean: verdicts.filter((v) => v.kind === 'Clean'),
    failing: verdicts.filter((v) => v.kind === 'Failing'),
    candidates: verdicts.length,
  };
}

export function partialFailureMessage(split: PodSplit): string {
  return clip(
    `the ready pods answer differently: ${split.failing.length}/${split.candidates} fail: ${describeFailingPods(split.failing)}; ${split.clean.length} verify every interface (${namePods(split.clean.map((c) => c.name))})`,
    4096,
  );
}

/**
 * status.pods: every selected pod, those with a failure first, then by name, capped at
 * MAX_STATUS_PODS (`notListed` counts the rest). Nothing here changes between steady probe
 * periods (no times, no counters), so it costs no status write.
 */
export function podStatuses(
  pods: readonly PodObservation[],
  verdicts: ReadonlyMap<string, PodVerdict>,
  gates: readonly GateDecision[],
): { pods: PodStatus[]; notListed: number } {
  const decided = new Map(gates.map((g) => [g.pod, g]));
  const rows = pods.map((p): PodStatus => {
    const v = p.pod.candidate ? verdicts.get(p.pod.uid) : undefined;
    const ips = podAddresses(p.pod).slice(0, 2);
    const gate = decided.get(p.pod.name) ?? p.pod.gate;
    const failing =
      v && v.failing.length > MAX_FAILING_LISTED
        ? [
            ...v.failing.slice(0, MAX_FAILING_LISTED - 1),
            `and ${v.failing.length - MAX_FAILING_LISTED + 1} more`,
          ]
        : v?.failing;
    return {
      name: p.pod.name,
      ...(ips.length > 0 ? { ips } : {}),
      ready: p.pod.ready ?? p.pod.candidate,
      probed: p.pod.candidate,
      ...(p.card?.ok ? { cardDigest: p.card.digest } : {}),
      ...(v && v.declared > 0 ? { verified: `${v.verified}/${v.declared}` } : {}),
      ...(failing && failing.length > 0 ? { failing } : {}),
      ...(p.pod.gateListed && gate
        ? { gate: gate.reason ? `${gate.status}/${gate.reason}` : gate.status }
        : {}),
    };
  });
  rows.sort((a, b) => {
    const fa = a.failing ? 0 : 1;
    const fb = b.failing ? 0 : 1;
    return fa !== fb ? fa - fb : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  return { pods: rows.slice(0, MAX_STATUS_PODS), notListed: Math.max(0, rows.length - MAX_STATUS_PODS) };
}
