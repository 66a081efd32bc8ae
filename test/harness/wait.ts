/** Polling helpers for tests that wait on the operator (no wall-clock assertions: only deadlines). */
import type { Cluster } from './cluster.js';

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

export interface AgentView {
  metadata: { generation: number; name: string; namespace: string; uid: string };
  status?: {
    observedGeneration?: number;
    conditions?: {
      type: string;
      status: string;
      reason: string;
      message: string;
      observedGeneration?: number;
      lastTransitionTime: string;
    }[];
    interfaces?: {
      url: string;
      protocolBinding: string;
      protocolVersion: string;
      state: string;
      verifiedPods: string;
      advertised: boolean;
      message: string;
    }[];
    card?: { shape?: string; digest?: string; podsConsistent?: string };
    verified?: string;
    advertised?: {
      interfaces: number;
      preferred?: { url: string; protocolBinding: string };
      configMapName?: string;
      signatures?: string;
    };
    capabilities?: { name: string; declared: boolean; state: string; interfaces: string; message: string }[];
  };
}

export async function getAgent(cluster: Cluster, ns: string, name: string): Promise<AgentView> {
  const r = await cluster.kubectl(['get', 'a2a', name, '-n', ns, '-o', 'json']);
  if (r.code !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as AgentView;
}

export function condition(agent: AgentView, type: string) {
  return agent.status?.conditions?.find((c) => c.type === type);
}

/** Waits until the agent's status matches `pred` for its current generation. */
export function waitAgent(
  cluster: Cluster,
  ns: string,
  name: string,
  what: string,
  pred: (a: AgentView) => boolean,
  timeoutMs = 60_000,
): Promise<AgentView> {
  let seen: AgentView | undefined;
  return waitFor(
    `${ns}/${name}: ${what}`,
    async () => {
      const a = (seen = await getAgent(cluster, ns, name));
      return a.status?.observedGeneration === a.metadata.generation && pred(a) ? a : undefined;
    },
    timeoutMs,
  ).catch((err: Error) => {
    // Say what the agent looked like instead: the condition that held it is the diagnosis.
    const conditions = (seen?.status?.conditions ?? [])
      .map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`)
      .join('\n  ');
    const generations = `generation ${seen?.metadata.generation}, observed ${seen?.status?.observedGeneration}`;
    throw new Error(`${err.message}\nlast seen (${generations}):\n  ${conditions}`);
  });
}
