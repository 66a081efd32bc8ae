/**
 * Capability truth in status (docs/conditions.md, "Capability truth"): the findings of every verified interface on every
 * candidate pod, reduced to one `status.capabilities[]` entry per capability and the
 * `CapabilitiesVerified` condition. Pure. The worst finding wins: a claim not served on one
 * interface of one pod is not served.
 */
import type { CapabilityStatus } from '../api/a2aagent.js';
import type { ConditionInput } from '../api/condition-helpers.js';
import { CapabilitiesVerified, CapabilityReason, CapabilityState } from '../api/conditions.js';
import { CAPABILITIES, type Capability } from '../card/index.js';
import { clip } from './aggregate.js';
import type { CapabilityFinding, PodObservation } from '../observation/observed.js';

/** Worse first. */
const SEVERITY: readonly CapabilityState[] = [
  CapabilityState.NotServed,
  CapabilityState.Inconclusive,
  CapabilityState.Undeclared,
  CapabilityState.Verified,
  CapabilityState.Absent,
  CapabilityState.NotProbed,
];
const rank = (s: CapabilityState) => SEVERITY.indexOf(s);

export interface CapabilityJudgement {
  statuses: CapabilityStatus[];
  condition: ConditionInput;
  /** Claimed capabilities found not served: set false in the advertised card in Enforce mode. */
  notServed: Capability[];
}

const MESSAGE_MAX = 512;

/**
 * @param verifiedKeys keys of the reference card's interfaces that are Verified (aggregated)
 * @param claims what the reference card claims
 */
export function judgeCapabilities(
  verifiedKeys: readonly string[],
  candidates: readonly PodObservation[],
  claims: Record<Capability, boolean>,
): CapabilityJudgement {
  const statuses: CapabilityStatus[] = CAPABILITIES.map((c) => {
    let worst: CapabilityFinding | undefined;
    let good = 0;
    for (const key of verifiedKeys) {
      let ifaceWorst: CapabilityFinding | undefined;
      for (const p of candidates) {
        const f = p.capabilities?.get(key)?.find((x) => x.capability === c);
        if (f && (!ifaceWorst || rank(f.state) < rank(ifaceWorst.state))) ifaceWorst = f;
      }
      if (
        ifaceWorst &&
        (ifaceWorst.state === CapabilityState.Verified || ifaceWorst.state === CapabilityState.Absent)
      )
        good++;
      if (ifaceWorst && (!worst || rank(ifaceWorst.state) < rank(worst.state))) worst = ifaceWorst;
    }
    return {
      name: c,
      declared: claims[c],
      state: worst?.state ?? CapabilityState.NotProbed,
      interfaces: `${good}/${verifiedKeys.length}`,
      message: clip(
        worst?.message ??
          (verifiedKeys.length === 0 ? 'no verified interface to test it on yet' : 'not probed yet'),
        MESSAGE_MAX,
      ),
    };
  });
  const notServed = statuses.filter((s) => s.state === CapabilityState.NotServed).map((s) => s.name);
  const inconclusive = statuses.filter((s) => s.state === CapabilityState.Inconclusive);
  const undeclared = statuses.filter((s) => s.state === CapabilityState.Undeclared);
  const summary = statuses.map((s) => `${s.name} ${s.state} (${s.interfaces})`).join(', ');
  let condition: ConditionInput;
  if (notServed.length > 0) {
    condition = {
      type: CapabilitiesVerified,
      status: 'False',
      reason: CapabilityReason.CapabilityNotServed,
      message: statuses
        .filter((s) => s.state === CapabilityState.NotServed)
        .map((s) => s.message)
        .join('; '),
    };
  } else if (inconclusive.length > 0) {
    condition = {
      type: CapabilitiesVerified,
      status: 'False',
      reason: CapabilityReason.CapabilityInconclusive,
      message: inconclusive.map((s) => s.message).join('; '),
    };
  } else if (statuses.every((s) => s.state === CapabilityState.NotProbed)) {
    condition = {
      type: CapabilitiesVerified,
      status: 'Unknown',
      reason: CapabilityReason.CapabilitiesPending,
      message:
        verifiedKeys.length === 0 ? 'no verified interface to test capabilities on yet' : 'not probed yet',
    };
  } else {
    condition = {
      type: CapabilitiesVerified,
      status: 'True',
      reason: CapabilityReason.CapabilitiesVerified,
      message: `${summary}${
        undeclared.length > 0
          ? `; served but not claimed by the card (reported only): ${undeclared.map((s) => s.name).join(', ')}`
          : ''
      }`,
    };
  }
  return { statuses, condition, notServed };
}
