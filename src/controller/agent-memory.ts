/**
 * What the operator remembers about an agent between reconciles: per pod, the last card (with
 * its ETag and fetch failures) and per interface the probe record (hysteresis, next due time).
 * In memory only: after a restart everything is probed afresh; until then full routing is held
 * (decide() only shrinks while verdicts are pending), and "was verified" is seeded from what is
 * routed now (probe-memory.ts). Keyed by the agent's UID as well as its name: an agent deleted
 * and recreated under the same name starts afresh.
 */
import type { CapabilityRecord, ProbeRecord } from './probe-memory.js';
import type { CapabilityFinding, PodCard } from '../observation/observed.js';
import type { ConditionInput } from '../api/condition-helpers.js';
import type { InputsPrint } from './quiet-visit.js';

export interface CardMemory {
  /** Last good card, kept through unconfirmed fetch failures. */
  good?: Extract<PodCard, { ok: true }>;
  etag?: string;
  /** sha256 of the bytes `good` was parsed from: the same bytes again are not parsed again. */
  bodyDigest?: string;
  failures: number;
  lastError?: { reason: string; message: string };
  dueAt: number;
}

export interface PodMemory {
  ip: string;
  card?: CardMemory;
  probes: Map<string, ProbeRecord>;
  /** interfaceKey → the last capability findings of that verified interface, and when they are due again. */
  capabilities?: Map<string, CapabilityRecord<CapabilityFinding>>;
}

export interface AgentMemory {
  /** Spec generation the records were made under; a new one starts afresh. */
  generation?: number;
  /** UID of the agent object the records were made for. */
  uid?: string;
  pods: Map<string, PodMemory>;
  /** spec.probe.taskContinuity: the card digest it last ran for, and its condition. */
  continuity?: { digest: string; condition: ConditionInput };
  /** The inputs of the last visit when it changed nothing (quiet-visit.ts); unset after one that did. */
  quiet?: InputsPrint;
}

export class MemoryStore {
  private readonly agents = new Map<string, AgentMemory>();

  /** The memory of an agent, reset when its generation or its UID (delete and recreate) changed. */
  for(key: string, generation: number | undefined, uid?: string): AgentMemory {
    let m = this.agents.get(key);
    if (!m || m.generation !== generation || m.uid !== uid) {
      m = { generation, uid, pods: new Map() };
      this.agents.set(key, m);
    }
    return m;
  }

  /** The memory of an agent without resetting or creating it (read-only use). */
  peek(key: string): AgentMemory | undefined {
    return this.agents.get(key);
  }

  delete(key: string): void {
    this.agents.delete(key);
  }

  get size(): number {
    return this.agents.size;
  }
}

/** The memory of one pod, reset when the pod's address changed (a new IP is a new endpoint). */
export function podMemory(agent: AgentMemory, uid: string, ip: string): PodMemory {
  let p = agent.pods.get(uid);
  if (!p || p.ip !== ip) {
    p = { ip, probes: new Map() };
    agent.pods.set(uid, p);
  }
  return p;
}

/** Forgets pods that are gone. */
export function prunePods(agent: AgentMemory, liveUids: ReadonlySet<string>): void {
  for (const uid of agent.pods.keys()) if (!liveUids.has(uid)) agent.pods.delete(uid);
}
