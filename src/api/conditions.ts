/**
 * The condition vocabulary of A2AAgent: types, their polarity, and every reason string the
 * operator writes. Reasons are API: tools and people match on them, so they never change
 * meaning. docs/conditions.md explains each one.
 */

/** Condition types. All are "normal-true" except Reconciling and Stalled (kstatus, abnormal-true). */
export const ConditionType = {
  /** Card valid, every declared interface verified on every ready pod, routing in place. */
  Ready: 'Ready',
  /** Every pod's card was fetched, parsed and is statically consistent. */
  CardValid: 'CardValid',
  /** Every declared interface answered as served on every ready pod. */
  InterfacesVerified: 'InterfacesVerified',
  /** All ready pods serve the same card. */
  PodsConsistent: 'PodsConsistent',
  /** Routing was rewritten to the verified set (or the agent is in Observe mode). */
  Advertised: 'Advertised',
  /** kstatus: work in progress (probing, rolling); abnormal-true. */
  Reconciling: 'Reconciling',
  /** kstatus: a verdict that will not change without a change to the agent or spec; abnormal-true. */
  Stalled: 'Stalled',
  /** spec.probe.taskContinuity: Once: the verified interfaces share one task store. Not part of Ready. */
  TaskContinuity: 'TaskContinuity',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/** Card-level findings (CardValid=False reasons). Produced by fetch, parse and static checks. */
export const CardReason = {
  CardFetchFailed: 'CardFetchFailed',
  CardInvalid: 'CardInvalid',
  CardTooLarge: 'CardTooLarge',
  NoInterfaces: 'NoInterfaces',
  PreferredTransportMismatch: 'PreferredTransportMismatch',
  InterfaceURLInvalid: 'InterfaceURLInvalid',
  InsecureDowngrade: 'InsecureDowngrade',
  UnsupportedProtocolVersion: 'UnsupportedProtocolVersion',
  UnsupportedBinding: 'UnsupportedBinding',
  ConflictingBindings: 'ConflictingBindings',
  DuplicateInterface: 'DuplicateInterface',
  ForeignHost: 'ForeignHost',
} as const;
export type CardReason = (typeof CardReason)[keyof typeof CardReason];

/** Per-interface probe states (docs/conditions.md, "Interface reasons"). */
export const InterfaceState = {
  Verified: 'Verified',
  AuthRequired: 'AuthRequired',
  Unimplemented: 'Unimplemented',
  WrongBinding: 'WrongBinding',
  VersionNotSupported: 'VersionNotSupported',
  Unreachable: 'Unreachable',
  Timeout: 'Timeout',
  TLSError: 'TLSError',
  /** A 500 / -32603 / gRPC UNKNOWN or INTERNAL: something answered, nothing proven. Counts as a failure. */
  Inconclusive: 'Inconclusive',
  Unmapped: 'Unmapped',
  Ineligible: 'Ineligible',
  Pending: 'Pending',
} as const;
export type InterfaceState = (typeof InterfaceState)[keyof typeof InterfaceState];
export const interfaceStates = Object.values(InterfaceState) as [InterfaceState, ...InterfaceState[]];

/** InterfacesVerified=False reasons, one per failing state. */
export const InterfaceReason: Record<Exclude<InterfaceState, 'Verified'>, string> = {
  AuthRequired: 'InterfaceAuthRequired',
  Unimplemented: 'InterfaceUnimplemented',
  WrongBinding: 'WrongBinding',
  VersionNotSupported: 'VersionNotSupported',
  Unreachable: 'Unreachable',
  Timeout: 'Timeout',
  TLSError: 'TLSError',
  Inconclusive: 'ProbeInconclusive',
  Unmapped: 'Unmapped',
  Ineligible: 'Ineligible',
  Pending: 'ProbePending',
};

/** Reasons of the remaining conditions. */
export const Reason = {
  // PodsConsistent
  CardDiverged: 'CardDiverged',
  NoReadyPods: 'NoReadyPods',
  /** Another, older A2AAgent selects pods of this one and owns their readiness gate. */
  SelectorOverlap: 'SelectorOverlap',
  // Readiness gate only: released because no A2AAgent selects the pod any more.
  AgentDeleted: 'AgentDeleted',
  // Readiness gate only: the pod is not running with ready containers, so it is not probed.
  PodNotServing: 'PodNotServing',
  // Readiness gate only (True): every interface the pod's card declares is verified on it.
  CardVerified: 'CardVerified',
  // Advertised
  NoVerifiedInterface: 'NoVerifiedInterface',
  ServiceConflict: 'ServiceConflict',
  /** An EndpointSlice of a name the operator would write exists and was not created by this agent. */
  SliceConflict: 'SliceConflict',
  /** The card ConfigMap's name is held by an object this agent did not create. */
  ConfigMapConflict: 'ConfigMapConflict',
  ObserveMode: 'ObserveMode',
  /** A write of the apply phase failed for a transient cause (409, 429, 5xx, network); retried with backoff. */
  ApplyFailed: 'ApplyFailed',
  /** The API server refused an object the operator built (422 Invalid, 400, 413); waits for a spec change. */
  Invalid: 'Invalid',
  /** The operator's ServiceAccount may not perform a write (403); retried at the probe period. */
  Forbidden: 'Forbidden',
  /** spec.routing.signingKey holds no usable private JWK; routing held, withdrawals still apply. */
  SigningKeyInvalid: 'SigningKeyInvalid',
  // Stalled (spec errors that need a person)
  SecretNotFound: 'SecretNotFound',
  /** A referenced Secret lacks the opt-in label, or a signing key does not name the agent. */
  SecretNotPermitted: 'SecretNotPermitted',
  /** A referenced Secret value cannot be used (a bearer token with control or non-ASCII characters). */
  SecretInvalid: 'SecretInvalid',
  ConfigMapNotFound: 'ConfigMapNotFound',
  PortNotFound: 'PortNotFound',
  InvalidSpec: 'InvalidSpec',
  FailureConfirmed: 'FailureConfirmed',
  /**
   * A failure confirmed on some ready pods while others verify everything (PodsConsistent=False,
   * Stalled=False): not a pipeline failure unless spec.probe.failOn is AnyPod.
   */
  PartialFailure: 'PartialFailure',
  // TaskContinuity (spec.probe.taskContinuity: Once)
  /** Every other verified interface found the task created over the first. */
  TaskShared: 'TaskShared',
  /** Some verified interface answered TaskNotFound for it: another task store. */
  TaskNotShared: 'TaskNotShared',
  /** No interface disproved it, but some answer proved nothing (auth, error, timeout), or no task was created. */
  TaskContinuityUnknown: 'TaskContinuityUnknown',
  /** Not run yet for the current card (no verified interface, or waiting for the card to settle). */
  TaskContinuityPending: 'TaskContinuityPending',
  // Reconciling
  Probing: 'Probing',
  // True reasons
  Succeeded: 'Succeeded',
  AllVerified: 'AllVerified',
  Consistent: 'Consistent',
  CardValid: 'CardValid',
  RoutingApplied: 'RoutingApplied',
  Settled: 'Settled',
} as const;

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * Capability truth (docs/conditions.md, "Capability truth"): what the side-effect-free capability call answered, against
 * what the card claims. `NotServed` is the one failure; `Undeclared` (served although the card
 * says no) is reported, never failed.
 */
export const CapabilityState = {
  /** Claimed, and the call answered as served (TaskNotFound; for the extended card also a card or an auth answer). */
  Verified: 'Verified',
  /** Claimed, but the call answered UnsupportedOperation / PushNotificationNotSupported / not configured / no such method. */
  NotServed: 'NotServed',
  /** Not claimed, and the call answered as not supported: the card tells the truth. */
  Absent: 'Absent',
  /** Not claimed, but the call answered as served: the card undersells the agent (reported, not failed). */
  Undeclared: 'Undeclared',
  /** Auth, a timeout, a 500 or another answer that proves neither. */
  Inconclusive: 'Inconclusive',
  /** Not probed: the interface is not verified or not probeable, or the reconcile ran out of time. */
  NotProbed: 'NotProbed',
} as const;
export type CapabilityState = (typeof CapabilityState)[keyof typeof CapabilityState];
export const capabilityStates = Object.values(CapabilityState) as [CapabilityState, ...CapabilityState[]];

/**
 * The capability-truth condition (normal-true). Written on every agent; part of Ready only with
 * `spec.probe.capabilities: Enforce`. Kept out of ConditionType's list of Ready's parts.
 */
export const CapabilitiesVerified = 'CapabilitiesVerified';

/** CapabilitiesVerified reasons. */
export const CapabilityReason = {
  /** Every claimed capability is served on every verified interface (an undeclared one is reported). */
  CapabilitiesVerified: 'CapabilitiesVerified',
  /** A claimed capability answered as not supported. */
  CapabilityNotServed: 'CapabilityNotServed',
  /** A capability call proved neither (auth, timeout, 500). */
  CapabilityInconclusive: 'CapabilityInconclusive',
  /** No verified interface to test capabilities on yet. */
  CapabilitiesPending: 'CapabilitiesPending',
} as const;
