/**
 * An agent's spec parsed once per cached object: pod events and every reconcile read the
 * selector and routing mode of all agents in a namespace, and parsing each spec each time made
 * that quadratic in zod work. The informer replaces an object (and its spec) on every change,
 * so a memo keyed by the spec object is never stale. Callers must not mutate the result.
 */
import { A2AAgentSpec } from '../api/a2aagent.js';

type Parsed = ReturnType<typeof A2AAgentSpec.safeParse>;

const memo = new WeakMap<object, Parsed>();

export function parsedAgentSpec(spec: unknown): Parsed {
  if (typeof spec !== 'object' || spec === null) return A2AAgentSpec.safeParse(spec);
  let parsed = memo.get(spec);
  if (!parsed) memo.set(spec, (parsed = A2AAgentSpec.safeParse(spec)));
  return parsed;
}
