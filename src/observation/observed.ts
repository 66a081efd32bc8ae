/**
 * What the reconciler gathered for one agent, in plain data: the input of `decide`, and of the
 * routing builders. Nothing here does I/O; the gather step (controller/reconciler.ts) fills it
 * from caches and probes.
 */
import type { CapabilityState, InterfaceState } from '../api/conditions.js';
import type { Capability, CardInterface, Finding, ParsedCard } from '../card/index.js';
import { displayText } from '../text/display-text.js';
import { displayUrl } from '../text/display-url.js';

/** One capability claim of a verified interface, as found (docs/conditions.md, "Capability truth"). */
export interface CapabilityFinding {
  capability: Capability;
  declared: boolean;
  state: CapabilityState;
  message: string;
}

/** A pod selected by the agent, reduced to what the decision needs. */
export interface ObservedPod {
  name: string;
  uid: string;
  /** The primary address (`status.podIP`): the card is fetched there. */
  ip?: string;
  /**
   * Every address (`status.podIPs`, one per family on a dual-stack pod; the primary first):
   * each interface is probed at each, and each is routed in its family's EndpointSlice.
   * Unset means `[ip]`: read it with `podAddresses`.
   */
  ips?: string[];
  /** Running, has an IP, containers ready, not terminating: its card and interfaces are probed. */
  candidate: boolean;
  /**
   * The pod's Ready condition, which includes its readiness gates (a pod held by a False
   * a2a.dev/card-verified gate is not Ready). Its EndpointSlice endpoints mirror it. Unset:
   * not known, taken as `candidate`.
   */
  ready?: boolean;
  terminating: boolean;
  /** containerPort name → number, to resolve named targetPorts. */
  containerPorts: Record<string, number>;
  /** The pod lists a2a.dev/card-verified in spec.readinessGates: only then is the condition written. */
  gateListed: boolean;
  /** Current status of the a2a.dev/card-verified condition on the pod, if any. */
  gate?: { status: 'True' | 'False' | 'Unknown'; reason?: string; message?: string };
  nodeName?: string;
}

/** Every address of the pod, the primary first. */
export function podAddresses(pod: Pick<ObservedPod, 'ip' | 'ips'>): string[] {
  return pod.ips ?? (pod.ip ? [pod.ip] : []);
}

/** The card one pod served (or why it could not be had). */
export type PodCard =
  | { ok: true; card: ParsedCard; digest: string; findings: Finding[] }
  | {
      ok: false;
      reason: string;
      message: string;
      /** failureThreshold fetches in a row failed (or the card is invalid). */ confirmed: boolean;
    };

/** The effective verdict of one declared interface on one pod, after failure-threshold hysteresis. */
export interface InterfaceVerdict {
  state: InterfaceState;
  reason: string;
  message: string;
  /** Consecutive failed probes; 0 after a success. */
  failures: number;
  /** True once a failure has been seen failureThreshold times in a row (or never succeeded and failed that often). */
  confirmed: boolean;
  /** A failure seen but not yet confirmed: the verdict still says Verified. */
  pendingFailure?: { state: InterfaceState; message: string };
}

type InterfaceId = Pick<CardInterface, 'url' | 'protocolBinding' | 'protocolVersion' | 'tenant'>;

/** A stable identity for an interface across pods and card versions. */
export function interfaceKey(i: InterfaceId): string {
  return `${i.protocolBinding}|${i.protocolVersion}|${i.url}|${i.tenant ?? ''}`;
}

/**
 * An interface as status names it: every card string made safe to show (status is read by
 * `kubectl describe` in a terminal and by anyone who may list A2AAgents): the URL with its
 * credentials redacted, control characters escaped and its length bounded; the other strings
 * escaped and bounded. Entries of the previous status are matched by `statusKey`.
 */
export function statusInterface(i: InterfaceId): InterfaceId {
  return {
    url: displayUrl(i.url),
    protocolBinding: displayText(i.protocolBinding, 64),
    protocolVersion: displayText(i.protocolVersion, 32),
    ...(i.tenant !== undefined ? { tenant: displayText(i.tenant, 128) } : {}),
  };
}

/** The key of an interface's status entry (`interfaceKey` of `statusInterface`). */
export function statusKey(i: InterfaceId): string {
  return interfaceKey(statusInterface(i));
}

export interface PodObservation {
  pod: ObservedPod;
  card?: PodCard;
  /** interfaceKey → verdict, for the interfaces this pod's card declares. */
  verdicts: Map<string, InterfaceVerdict>;
  /** interfaceKey → capability findings, for the interfaces verified on this pod (when probed). */
  capabilities?: Map<string, CapabilityFinding[]>;
}

/** Spec-level problems found while gathering (a person must act): Stalled=True. */
export interface SpecProblem {
  reason: string;
  message: string;
}
