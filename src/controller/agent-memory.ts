/**
 * What the operator remembers about an agent between reconciles: per pod, the last card (with
 * its ETag and fetch failures) and per interface the probe record (hysteresis, next due time).
 * In memory only: after a restart everything is probed afresh, and routing stays as it was
 * until then (decide() returns no routing while verdicts are pending).
 */
import type { ProbeRecord } from './probe-memory.js';
import type { PodCard } from './observed.js';

export interface CardMemory {
  /** Last good card, kept through unconfirmed fetch failures. */
  good?: Extract<PodCard, { ok: true }>;
  etag?: string;
  failures: number;
  lastError?: { reason: string; message: string };
  dueAt: number;
}

export interface PodMemory {
  ip: string;
  card?: CardMemory;
  probes: Map<string, ProbeRecord>;
}

export interface AgentMemory {
  /** Spec generation the records were made under; a new one starts afresh. */
  generation?: number;
  pods: Map<string, PodMemory>;
}

export class MemoryStore {
  private readonly agents = new Map<string, AgentMemory>();

  /** The memory of an agent, reset when its generation changed. */
  for(key: string, generation: number | undefined): AgentMemory {
    let m = this.agents.get(key);
    if (!m || m.generation !== generation) {
      m = { generation, pods: new Map() };
      this.agents.set(key, m);
    }
    return m;
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
