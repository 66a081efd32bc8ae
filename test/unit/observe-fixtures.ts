/**
 * Builders for observePods' input: agent `a` in namespace `ns` with one candidate pod `a-0`, the
 * setup the probe tests (budget, abort, memory seed, every JSON value) share.
 */
import { A2AAgentSpec, type A2AAgentSpecInput } from '../../src/api/a2aagent.js';
import { MemoryStore } from '../../src/controller/agent-memory.js';
import type { ObserveInput } from '../../src/controller/observe-pods.js';
import type { ObservedPod } from '../../src/observation/observed.js';
import type { CardFetch, ProbeBackend } from '../../src/controller/probe-backend.js';
import type { InterfaceState } from '../../src/api/conditions.js';

/** Agent `a`: its card served on the one port, `http`. */
export function agentSpec(port = 8080, extra: Partial<A2AAgentSpecInput> = {}): A2AAgentSpec {
  return A2AAgentSpec.parse({
    selector: { matchLabels: { app: 'a' } },
    ports: [{ name: 'http', port }],
    card: { port: 'http' },
    ...extra,
  });
}

/** Pod `a-0` (uid `u`): a candidate, not terminating, not gated, no named container ports. */
export function podA0(ip = '10.0.0.1'): ObservedPod {
  return {
    name: 'a-0',
    uid: 'u',
    ip,
    candidate: true,
    terminating: false,
    containerPorts: {},
    gateListed: false,
  };
}

/** observePods' input for agent ns/a and pod a-0 with fresh memory at a fixed clock; `rest` overrides any field. */
export function observeInput(
  spec: A2AAgentSpec,
  backend: ProbeBackend,
  rest: Partial<ObserveInput> = {},
): ObserveInput {
  return {
    key: 'ns/a',
    spec,
    namespace: 'ns',
    serviceName: 'a',
    pods: [podA0()],
    memory: new MemoryStore().for('ns/a', 1),
    backend,
    credentials: {},
    now: () => 1_000_000,
    ...rest,
  };
}

/** The one interface of `ONE_INTERFACE_CARD`, and its key in verdicts. */
export const ONE_URL = 'http://a.ns.svc:8080/one';
export const ONE_KEY = `JSONRPC|1.0|${ONE_URL}|`;

/** Agent a's card with one JSON-RPC 1.0 interface at ONE_URL. */
export const ONE_INTERFACE_CARD: CardFetch = {
  kind: 'ok',
  body: {
    name: 'a',
    supportedInterfaces: [{ url: ONE_URL, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  },
};

/** A backend serving what `card()` says (ONE_INTERFACE_CARD) whose probes answer `state()`, read at each call. */
export function oneInterfaceBackend(
  state: () => InterfaceState,
  card: () => CardFetch = () => ONE_INTERFACE_CARD,
): ProbeBackend {
  return {
    fetchCard: () => Promise.resolve(card()),
    probe: () => {
      const s = state();
      return Promise.resolve({ state: s, reason: s, message: `${s} answer`, durationMs: 1 });
    },
  };
}
