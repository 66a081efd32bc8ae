/**
 * A pod with several addresses (dual-stack: `status.podIPs`, one per family) is probed at every
 * one of them, and one verdict per (pod, interface) is formed from those answers: Verified only
 * when every address answered Verified. The routing unit is the pod (its addresses all go into
 * the EndpointSlices of their families), so a pod that serves an interface on IPv4 but not on
 * IPv6 is not routed for it at all: an advertised interface is never routed to an address that
 * does not serve it (README, "Dual-stack pods"). The alternative, a verdict per address, would
 * route the pod's IPv4 address and withdraw its IPv6 one; it is not taken because decide(),
 * the readiness gate and status count pods, and a gate per address does not exist: one rule,
 * the strict one, keeps the invariant and the pod-level facts in step.
 *
 * The card is fetched at the primary address only: it is a fact about the pod, and every
 * interface it declares is then probed at every address.
 */
import { InterfaceState } from '../api/conditions.js';
import type { ProbeAnswer } from './probe-backend.js';

/**
 * The pod's answer from its per-address answers (in podIPs order): Pending when any address was
 * not probed (no verdict: nothing is recorded), else the first failing address's answer, else
 * the first Verified one. The duration is the longest one (they ran at once).
 */
export function combineAddressAnswers(answers: readonly ProbeAnswer[]): ProbeAnswer {
  if (answers.length === 0) throw new RangeError('a pod is probed at one address at least');
  const durationMs = Math.max(...answers.map((a) => a.durationMs));
  const pick =
    answers.find((a) => a.state === InterfaceState.Pending) ??
    answers.find((a) => a.state !== InterfaceState.Verified) ??
    answers[0]!;
  return { ...pick, durationMs };
}

/** Probes every address of the pod at once and combines the answers (above). */
export async function probeEveryAddress(
  addresses: readonly string[],
  probe: (address: string) => Promise<ProbeAnswer>,
): Promise<ProbeAnswer> {
  return combineAddressAnswers(await Promise.all(addresses.map(probe)));
}
