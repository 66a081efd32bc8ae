/**
 * The readiness-gate decision (a2a.dev/card-verified) per pod: True when every interface the
 * pod's card declares is verified on that pod. Only changes are returned, so an unchanged gate
 * costs no write, and only pods that list the gate in spec.readinessGates are written to.
 */
import { InterfaceReason, InterfaceState } from '../api/conditions.js';
import { acceptable } from '../routing/plan.js';
import { displayUrl } from '../text/display-url.js';
import { clip } from './aggregate.js';
import type { DecideInput, GateDecision } from './decide.js';
import type { MappedInterface } from './interface-map.js';
import type { PodObservation } from './observed.js';

export function gateDecisions(
  input: DecideInput,
  mappedByKey: (p: PodObservation) => MappedInterface[] | undefined,
): GateDecision[] {
  const authOk = input.spec.routing.authRequired === 'Advertise';
  const out: GateDecision[] = [];
  for (const p of input.pods) {
    // Only pods that opted in (spec.readinessGates) get the condition: no write for the others.
    if (p.pod.terminating || !p.pod.gateListed) continue;
    let d: Omit<GateDecision, 'pod'> | undefined;
    if (!p.pod.candidate) {
      d = {
        status: 'False',
        reason: 'PodNotServing',
        message: 'pod is not running with ready containers; not probed',
      };
    } else if (!p.card) {
      d = undefined; // not fetched yet: leave the gate as it is
    } else if (!p.card.ok) {
      d = { status: 'False', reason: p.card.reason, message: clip(p.card.message) };
    } else {
      const mapped = mappedByKey(p) ?? [];
      const verdicts = mapped.map((m) => ({ m, v: p.verdicts.get(m.key) }));
      if (verdicts.some((x) => !x.v || x.v.state === InterfaceState.Pending)) continue;
      const bad = verdicts.find((x) => !acceptable(x.v?.state, authOk));
      if (mapped.length === 0) {
        d = { status: 'False', reason: 'NoInterfaces', message: 'the card declares no interface' };
      } else if (bad) {
        const state = bad.v!.state as Exclude<InterfaceState, 'Verified'>;
        d = {
          status: 'False',
          reason: InterfaceReason[state],
          message: clip(`${bad.m.iface.protocolBinding} ${displayUrl(bad.m.iface.url)}: ${bad.v!.message}`),
        };
      } else {
        d = {
          status: 'True',
          reason: 'CardVerified',
          message: `all ${mapped.length} interfaces this pod's card declares are verified on it`,
        };
      }
    }
    if (!d) continue;
    if (p.pod.gate?.status === d.status && p.pod.gate.reason === d.reason && p.pod.gate.message === d.message)
      continue;
    out.push({ pod: p.pod.name, ...d });
  }
  return out;
}
