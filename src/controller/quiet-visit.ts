/**
 * The steady fast path: a visit whose inputs are exactly those of the last visit, when that
 * visit changed nothing, decides nothing new, so it skips decide and the apply phase.
 *
 * Why it holds: decide() is pure and reads no clock except to date a transition. A visit that
 * wrote no status (its status equalled the previous one), recorded no Event, set no gate and
 * wrote or pruned no routing object made no transition. Given the same inputs again (the agent
 * object at the same resourceVersion, so the same spec and the same previous status; the same
 * observations; the same owned objects; the same spec problems, Service conflict and gate
 * owners), decide returns the same decision, and every apply step finds it in place again.
 *
 * A steady period at 300 agents spent about 6.5 % of the operator's busy time in decide, the
 * apply steps' comparisons, the status compare and pruning (docs/benchmarks.md, eighteenth
 * pass), none of it needed.
 *
 * The inputs are flattened to primitives and compared: anything not known to be the same
 * (an unfamiliar value, a different key order) reads as changed, which only costs a full visit.
 * A parsed card is stood for by its digest (sha256 of its canonical JSON, card-digest.ts).
 */
import type { InventoryObject } from '../routing/inventory.js';
import type { InterfaceVerdict, PodObservation, SpecProblem } from '../observation/observed.js';

export interface VisitInputs {
  /** The agent's UID and resourceVersion (spec, generation, status: what decide reads of it). */
  agent: { uid: string; resourceVersion: string | undefined };
  observations: readonly PodObservation[];
  specProblems: readonly SpecProblem[];
  serviceConflict: string | undefined;
  gateOwnedElsewhere: ReadonlyMap<string, string> | undefined;
  /**
   * Every cached object that may be the agent's (its owner index: Service, slices, card
   * ConfigMap): current routing, what pruning would delete, and who holds each desired name (a
   * name our object holds cannot be taken by another without ours leaving the cache first).
   */
  owned: readonly InventoryObject[];
  /** The signing key's digest (signing-key-check.ts), when one signs: a rotated key re-signs the card. */
  signingKey: string | undefined;
}

/** The inputs as a flat list of primitives, in a fixed order. */
export type InputsPrint = readonly unknown[];

/** Where a print goes: an array that keeps it, or a comparison with a kept one (PrintMatch). */
interface PrintSink {
  push(...values: unknown[]): unknown;
}

export function inputsPrint(inputs: VisitInputs): InputsPrint {
  const out: unknown[] = [];
  print(out, inputs);
  return out;
}

/**
 * Whether these inputs print as `kept` does, without making their print: a steady visit is
 * quiet nearly every time, and a print made only to be compared is about 4 KiB per visit that
 * V8 promotes to the old generation when visits overlap (a heap sampling at 1,000 agents found
 * it 4 % of the bytes that survived the young generation; docs/benchmarks.md, twenty-fifth pass).
 */
export function matchesPrint(inputs: VisitInputs, kept: InputsPrint): boolean {
  const match = new PrintMatch(kept);
  print(match, inputs);
  return match.matched;
}

/** Compares each value pushed with the kept print's value at that position. */
class PrintMatch implements PrintSink {
  private at = 0;
  private same = true;

  constructor(private readonly kept: InputsPrint) {}

  push(...values: unknown[]): number {
    for (const v of values) {
      if (this.same && !Object.is(this.kept[this.at], v)) this.same = false;
      this.at++;
    }
    return this.at;
  }

  get matched(): boolean {
    return this.same && this.at === this.kept.length;
  }
}

function print(out: PrintSink, inputs: VisitInputs): void {
  out.push(inputs.agent.uid, inputs.agent.resourceVersion, inputs.signingKey);
  out.push('problems', inputs.specProblems.length);
  for (const p of inputs.specProblems) out.push(p.reason, p.message);
  out.push('conflict', inputs.serviceConflict);
  flatten(out, inputs.gateOwnedElsewhere);
  out.push('owned', inputs.owned.length);
  for (const { kind, obj } of inputs.owned)
    out.push(kind, obj.metadata?.name, obj.metadata?.uid, obj.metadata?.resourceVersion);
  out.push('pods', inputs.observations.length);
  for (const o of inputs.observations) {
    flatten(out, o.pod);
    if (o.card === undefined) out.push('no card');
    else if (o.card.ok) {
      out.push('card', o.card.digest);
      flatten(out, o.card.findings);
    } else flatten(out, o.card);
    out.push('verdicts', o.verdicts.size);
    for (const [key, v] of o.verdicts) {
      out.push(key);
      flatten(out, countedOnce(v));
    }
    flatten(out, o.capabilities);
  }
}

/**
 * A confirmed failure's count grows with every probe, but decide reads only that it is one
 * (decide.ts; aggregate.ts shows the count only while a failure awaits confirmation): counted
 * once, an agent whose broken interface stays broken has quiet visits too.
 */
function countedOnce(v: InterfaceVerdict): InterfaceVerdict {
  return v.confirmed && v.failures > 1 ? { ...v, failures: 1 } : v;
}

/** Deeper than any observation nests; past it a value reads as changed (and a cycle ends). */
const MAX_DEPTH = 8;

/**
 * Plain data (objects, arrays, Maps, primitives) as primitives: each container pushes a marker
 * and its size, so no two different values flatten alike. Anything else (a class instance
 * other than Map, a function, a value nested past MAX_DEPTH) pushes a fresh object, which
 * equals nothing: changed.
 */
function flatten(out: PrintSink, v: unknown, depth = 0): void {
  if (depth > MAX_DEPTH) {
    out.push({});
    return;
  }
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'function' || typeof v === 'symbol') out.push({});
    else out.push(v);
    return;
  }
  if (Array.isArray(v)) {
    out.push('[', v.length);
    for (const x of v) flatten(out, x, depth + 1);
    return;
  }
  if (v instanceof Map) {
    out.push('Map', v.size);
    for (const [k, x] of v) {
      flatten(out, k, depth + 1);
      flatten(out, x, depth + 1);
    }
    return;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    out.push({});
    return;
  }
  const keys = Object.keys(v);
  out.push('{', keys.length);
  for (const k of keys) {
    out.push(k);
    flatten(out, (v as Record<string, unknown>)[k], depth + 1);
  }
}
