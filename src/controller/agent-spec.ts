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

interface SpecHolder {
  metadata?: { uid?: string; generation?: number };
  spec?: unknown;
}

/**
 * `next` carrying `cached`'s spec object when both are one object (same uid) at one generation,
 * for the informer to cache. The API server bumps `metadata.generation` on every spec change of
 * a custom resource with a status subresource, so a status write (two per agent on a cold
 * start) or a label change leaves the spec as it was; keeping its object keeps every memo keyed
 * on it (the parse above, the interface mapping), instead of parsing it again per watch event.
 */
export function withCachedSpec<T extends SpecHolder>(next: T, cached: T | undefined): T {
  const uid = next.metadata?.uid;
  const generation = next.metadata?.generation;
  if (
    cached === undefined ||
    uid === undefined ||
    generation === undefined ||
    cached.metadata?.uid !== uid ||
    cached.metadata?.generation !== generation
  )
    return next;
  next.spec = cached.spec;
  return next;
}
