/**
 * The condition policies of decide(): each reads the observations and returns one condition
 * (status, reason, message) for status. Pure; decide() combines them into Ready.
 */
import type { A2AAgentSpec } from '../api/a2aagent.js';
import type { ConditionInput } from '../api/condition-helpers.js';
import { ConditionType, InterfaceReason, InterfaceState, Reason } from '../api/conditions.js';
import type { Finding, ParsedCard } from '../card/index.js';
import { displayUrl } from '../text/display-url.js';
import { clip, namePods, type AggregatedInterface } from './aggregate.js';
import type { RoutingDecision } from './decide.js';
import type { PodObservation, SpecProblem } from '../observation/observed.js';
import { partialFailureMessage, type PodSplit } from './pod-status.js';

export interface Reference {
  card: ParsedCard;
  digest: string;
  findings: Finding[];
  servedBy: number;
}

/** The card most candidate pods serve; ties go to the digest whose first pod sorts first. */
export function referenceCard(pods: readonly PodObservation[]): Reference | undefined {
  const groups = new Map<string, { ref: Reference; first: string }>();
  for (const p of pods) {
    if (!p.card?.ok) continue;
    const g = groups.get(p.card.digest);
    if (g) {
      g.ref.servedBy++;
      if (p.pod.name < g.first) g.first = p.pod.name;
    } else
      groups.set(p.card.digest, {
        ref: { card: p.card.card, digest: p.card.digest, findings: p.card.findings, servedBy: 1 },
        first: p.pod.name,
      });
  }
  let best: { ref: Reference; first: string } | undefined;
  for (const g of groups.values()) {
    if (
      !best ||
      g.ref.servedBy > best.ref.servedBy ||
      (g.ref.servedBy === best.ref.servedBy && g.first < best.first)
    ) {
      best = g;
    }
  }
  return best?.ref;
}

function shortDigest(d: string): string {
  return d.slice(0, 'sha256:'.length + 12);
}

/** A condition about the candidate pods' cards, when there is none to judge. */
function noReadyPods(type: ConditionInput['type']): ConditionInput {
  return {
    type,
    status: 'Unknown',
    reason: Reason.NoReadyPods,
    message: 'no ready pod matches spec.selector',
  };
}

export function cardCondition(candidates: PodObservation[], ref: Reference | undefined): ConditionInput {
  const type = ConditionType.CardValid;
  if (candidates.length === 0) return noReadyPods(type);
  const failed = candidates.filter((p) => p.card && !p.card.ok);
  if (failed.length > 0) {
    const first = failed[0]!.card as { ok: false; reason: string; message: string };
    return {
      type,
      status: 'False',
      reason: first.reason,
      message: clip(
        `${first.message} (${failed.length}/${candidates.length} pods: ${namePods(failed.map((p) => p.pod.name))})`,
        4096,
      ),
    };
  }
  const findings = new Map<string, Finding>();
  for (const p of candidates) {
    if (p.card?.ok) for (const f of p.card.findings) findings.set(`${f.reason}|${f.message}`, f);
  }
  if (findings.size > 0) {
    const list = [...findings.values()];
    const shown = list.slice(0, 3).map((f) => `${f.reason}: ${f.message}`);
    if (list.length > 3) shown.push(`and ${list.length - 3} more findings`);
    return { type, status: 'False', reason: list[0]!.reason, message: clip(shown.join('; '), 4096) };
  }
  if (!ref) return { type, status: 'Unknown', reason: Reason.Probing, message: 'fetching cards' };
  return {
    type,
    status: 'True',
    reason: Reason.CardValid,
    message: `${ref.card.shape} card ${shortDigest(ref.digest)} passes the static checks`,
  };
}

export function consistencyCondition(
  candidates: PodObservation[],
  gateOwnedElsewhere?: ReadonlyMap<string, string>,
  split?: PodSplit,
): ConditionInput {
  const type = ConditionType.PodsConsistent;
  if (candidates.length === 0) return noReadyPods(type);
  const byDigest = new Map<string, string[]>();
  for (const p of candidates) {
    if (p.card?.ok) byDigest.set(p.card.digest, [...(byDigest.get(p.card.digest) ?? []), p.pod.name]);
  }
  if (byDigest.size > 1) {
    const parts = [...byDigest.entries()]
      .sort((a, b) => b[1].length - a[1].length)
      .map(([d, names]) => `${d} served by ${names.length} (${namePods(names)})`);
    return {
      type,
      status: 'False',
      reason: Reason.CardDiverged,
      message: clip(`ready pods serve ${byDigest.size} different cards: ${parts.join('; ')}`, 4096),
    };
  }
  if (split && split.clean.length > 0 && split.failing.length > 0) {
    // Same card, different answers: the pods are not interchangeable, whatever the card says.
    return { type, status: 'False', reason: Reason.PartialFailure, message: partialFailureMessage(split) };
  }
  if (gateOwnedElsewhere && gateOwnedElsewhere.size > 0) {
    // One writer per gate (gates.ts): the older agent's verdict stands on shared pods.
    const owners = [...new Set(gateOwnedElsewhere.values())].sort();
    const shared = [...gateOwnedElsewhere.keys()].sort();
    return {
      type,
      status: 'False',
      reason: Reason.SelectorOverlap,
      message: clip(
        `A2AAgent ${owners.join(', ')} (older) also selects ${shared.length} pod(s) of this agent (${namePods(shared)}) and owns their readiness gate; this agent writes no gate there`,
        4096,
      ),
    };
  }
  if (byDigest.size === 0)
    return { type, status: 'Unknown', reason: Reason.Probing, message: 'no card fetched yet' };
  const [digest] = byDigest.keys();
  return {
    type,
    status: 'True',
    reason: Reason.Consistent,
    message: `all ${candidates.length} ready pods serve ${digest}`,
  };
}

export function interfacesCondition(
  agg: AggregatedInterface[],
  candidates: number,
  hasRef: boolean,
  declared: number,
): ConditionInput {
  const type = ConditionType.InterfacesVerified;
  if (!hasRef) {
    return {
      type,
      status: 'Unknown',
      reason: candidates === 0 ? Reason.NoReadyPods : Reason.Probing,
      message: 'no card to probe',
    };
  }
  const failing = agg.filter((a) => a.state !== InterfaceState.Verified);
  if (failing.length === 0 && declared > agg.length) {
    return {
      type,
      status: 'False',
      reason: InterfaceReason.Ineligible,
      message: `the card declares ${declared} interfaces; only the first ${agg.length} are probed and all of those are verified, the other ${declared - agg.length} are never dialled`,
    };
  }
  if (failing.length === 0) {
    return {
      type,
      status: 'True',
      reason: Reason.AllVerified,
      message: `${agg.length}/${agg.length} declared interfaces verified on every ready pod`,
    };
  }
  const definite = failing.filter((a) => a.state !== InterfaceState.Pending);
  const first = definite[0] ?? failing[0]!;
  const reason = InterfaceReason[first.state as Exclude<InterfaceState, 'Verified'>];
  const more = failing.length > 1 ? ` (and ${failing.length - 1} more failing)` : '';
  const message = `${first.iface.protocolBinding} ${displayUrl(first.iface.url)} (v${first.iface.protocolVersion}): ${first.message}${more}`;
  return { type, status: definite.length > 0 ? 'False' : 'Unknown', reason, message: clip(message, 4096) };
}

export function advertisedCondition(
  spec: A2AAgentSpec,
  serviceConflict: string | undefined,
  routing: RoutingDecision | undefined,
  declared: number,
  aggregated: AggregatedInterface[],
  specProblems: readonly SpecProblem[] = [],
): ConditionInput {
  const type = ConditionType.Advertised;
  if (spec.routing.mode === 'Observe') {
    return {
      type,
      status: 'True',
      reason: Reason.ObserveMode,
      message: 'routing.mode is Observe: status only, nothing rewritten',
    };
  }
  if (serviceConflict)
    return { type, status: 'False', reason: Reason.ServiceConflict, message: serviceConflict };
  const keyProblem = specProblems.find((p) => p.reason === Reason.SigningKeyInvalid);
  if (!routing && keyProblem) {
    return {
      type,
      status: 'False',
      reason: Reason.SigningKeyInvalid,
      message: clip(
        `${keyProblem.message}; nothing new is published (no unsigned card in its place), only withdrawals apply`,
        4096,
      ),
    };
  }
  // Held full routing still shrinks (decide.ts): "unchanged" would be untrue once a pod left.
  if (!routing)
    return {
      type,
      status: 'Unknown',
      reason: Reason.Probing,
      message:
        specProblems.length > 0
          ? 'no additions while the spec has a problem (see Stalled); withdrawals still apply'
          : 'no additions until every ready pod has been probed; withdrawals still apply',
    };
  if (routing.plan.advertised.length === 0) {
    return {
      type,
      status: 'False',
      reason: Reason.NoVerifiedInterface,
      message:
        'no declared interface is verified on any ready pod: nothing is advertised and the Service routes nowhere',
    };
  }
  const first = aggregated.find((a) => a.key === routing.plan.advertised[0]);
  const ports = [...routing.plan.endpoints.entries()].map(([n, uids]) => `${n}→${uids.length}`).join(', ');
  return {
    type,
    status: 'True',
    reason: Reason.RoutingApplied,
    message: clip(
      `${routing.plan.advertised.length}/${declared} declared interfaces advertised, preferred ${first?.iface.protocolBinding} ${first ? displayUrl(first.iface.url) : ''}; endpoints per port: ${ports}`,
      4096,
    ),
  };
}
