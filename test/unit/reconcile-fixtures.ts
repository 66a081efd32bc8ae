/**
 * Builders for the pure reconcile core's inputs (decide, planRouting, advertisedCard): specs,
 * cards, pods and their verdicts, plus a seeded PRNG for randomized property tests; and the API
 * objects the reconciler tests serve it (an A2AAgent, a ready pod, a one-interface card).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { A2AAgentSpec, type A2AAgentSpecInput } from '../../src/api/a2aagent.js';
import { InterfaceState } from '../../src/api/conditions.js';
import {
  cardDigest,
  CardParseError,
  parseCard,
  staticChecks,
  type ParsedCard,
  type StaticCheckOptions,
} from '../../src/card/index.js';
import type { DecideInput } from '../../src/controller/decide.js';
import {
  interfaceKey,
  type InterfaceVerdict,
  type ObservedPod,
  type PodCard,
  type PodObservation,
} from '../../src/observation/observed.js';
import type { AgentObject } from '../../src/controller/reconciler.js';

export const NOW = new Date('2030-01-01T00:00:00.000Z');
export const LATER = new Date('2030-01-01T00:05:00.000Z');

/** A v1.0 card: JSONRPC and HTTP+JSON on 8080, gRPC (explicit plaintext) on 9090. */
export const v1Raw = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'billing',
  description: 'pays bills',
  version: '1.2.3',
  supportedInterfaces: [
    { url: 'http://agent.internal:8080/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://agent.internal:8080/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'http://agent.internal:9090', protocolBinding: 'GRPC', protocolVersion: '1.0' },
  ],
  ...extra,
});

/** The seed's v0.3 card: preferredTransport GRPC at a url that serves JSON-RPC. */
export const seedRaw = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'seed',
  protocolVersion: '0.3.0',
  url: 'https://agent.internal:8443',
  preferredTransport: 'GRPC',
  additionalInterfaces: [
    { url: 'https://agent.internal:8443', transport: 'JSONRPC' },
    { url: 'https://agent.internal:9443', transport: 'GRPC' },
  ],
  ...extra,
});

export function parsed(raw: unknown): ParsedCard {
  const card = parseCard(raw);
  if (card instanceof CardParseError) throw card;
  return card;
}

export function keys(card: ParsedCard): string[] {
  return card.interfaces.map(interfaceKey);
}

export function spec(input: Partial<A2AAgentSpecInput> = {}): A2AAgentSpec {
  return A2AAgentSpec.parse({
    selector: { matchLabels: { app: 'billing' } },
    ports: [
      { name: 'http', port: 8080 },
      { name: 'grpc', port: 9090, targetPort: 'grpc' },
    ],
    card: { port: 'http' },
    ...input,
  });
}

export function seedSpec(input: Partial<A2AAgentSpecInput> = {}): A2AAgentSpec {
  return spec({
    ports: [
      { name: 'https', port: 8443 },
      { name: 'grpc', port: 9443 },
    ],
    card: { port: 'https', scheme: 'HTTPS' },
    ...input,
  });
}

export function okCard(raw: Record<string, unknown>, opts: StaticCheckOptions = {}): PodCard {
  const card = parsed(raw);
  return { ok: true, card, digest: cardDigest(raw), findings: staticChecks(card, opts) };
}

export function failedCard(
  message = 'GET /.well-known/agent-card.json: connect ECONNREFUSED',
  confirmed = true,
): PodCard {
  return { ok: false, reason: 'CardFetchFailed', message, confirmed };
}

export type VerdictSpec = InterfaceState | Partial<InterfaceVerdict> | undefined;

/** A verdict; failures default to confirmed (failureThreshold reached). */
export function verdict(v: InterfaceState | Partial<InterfaceVerdict>): InterfaceVerdict {
  const base = typeof v === 'string' ? { state: v } : v;
  const state = base.state ?? InterfaceState.Verified;
  const verified = state === InterfaceState.Verified;
  return {
    state,
    reason: state,
    message: verified ? 'TaskNotFound (-32001)' : `${state} answer`,
    failures: verified ? 0 : 2,
    confirmed: !verified && state !== InterfaceState.Pending,
    ...base,
  };
}

/** Verdicts in card order; undefined entries are left out (not probed yet). */
export function verdicts(
  card: PodCard | undefined,
  states: readonly VerdictSpec[],
): Map<string, InterfaceVerdict> {
  const m = new Map<string, InterfaceVerdict>();
  if (!card?.ok) return m;
  card.card.interfaces.forEach((iface, i) => {
    const s = states[i];
    if (s !== undefined) m.set(interfaceKey(iface), verdict(s));
  });
  return m;
}

export interface PodOpts {
  candidate?: boolean;
  terminating?: boolean;
  gate?: ObservedPod['gate'];
  containerPorts?: Record<string, number>;
  gateListed?: boolean;
}

export function pod(
  name: string,
  card: PodCard | undefined,
  states: readonly VerdictSpec[] = [],
  opts: PodOpts = {},
): PodObservation {
  return {
    pod: {
      name,
      uid: `uid-${name}`,
      ip: '10.0.0.1',
      candidate: opts.candidate ?? true,
      terminating: opts.terminating ?? false,
      containerPorts: opts.containerPorts ?? { grpc: 9090 },
      gateListed: opts.gateListed ?? true,
      ...(opts.gate ? { gate: opts.gate } : {}),
    },
    ...(card ? { card } : {}),
    verdicts: verdicts(card, states),
  };
}

export const V = InterfaceState.Verified;
export const allVerified = [V, V, V] as const;

export function input(partial: Partial<DecideInput> & Pick<DecideInput, 'pods'>): DecideInput {
  return {
    name: 'billing',
    namespace: 'payments',
    generation: 4,
    spec: spec(),
    specProblems: [],
    now: NOW,
    ...partial,
  };
}

/** A v1.0 card with one interface: JSON-RPC at http://a.ns.svc:8080/rpc (agent `a`'s Service). */
export const oneInterfaceCard = {
  name: 'a',
  supportedInterfaces: [
    { url: 'http://a.ns.svc:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
};

/** A2AAgent ns/a (uid u1, generation 1) selecting app=a, its card on port `http` 8080; `spec` adds to that. */
export function agentObject(spec: Record<string, unknown>, resourceVersion: string): AgentObject {
  return {
    apiVersion: 'a2a.dev/v1alpha1',
    kind: 'A2AAgent',
    metadata: { name: 'a', namespace: 'ns', uid: 'u1', generation: 1, resourceVersion },
    spec: {
      selector: { matchLabels: { app: 'a' } },
      ports: [{ name: 'http', port: 8080 }],
      card: { port: 'http' },
      ...spec,
    },
  };
}

/** Pod a-0 (uid p1) of agent a: Running and Ready at 10.0.0.1. */
export function readyPod(): V1Pod {
  return {
    metadata: { name: 'a-0', namespace: 'ns', uid: 'p1', labels: { app: 'a' } },
    spec: { containers: [{ name: 'c' }] },
    status: { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

export { seeded as prng } from '../harness/seeded.js';

export function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}
