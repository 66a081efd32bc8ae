/**
 * The benchmark's agents: real @a2a-js/sdk agent processes (test/agents/agent-server.ts), each
 * in its own network namespace with one address per pod it stands in for. A process binds
 * 0.0.0.0, so it answers on every address of its namespace; the card's URLs name a Service
 * host, not an address, so one card serves them all. Every address gets its own Pod object, so
 * the operator dials each address as a separate pod.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentConfig } from '../../test/agents/agent-config.js';
import { REPO_ROOT } from '../../test/harness/binaries.js';
import type { Cluster } from '../../test/harness/cluster.js';
import { healthyAgentConfig } from '../../test/harness/manifests.js';
import { PodHost } from '../../test/harness/podhost.js';
import { createPod } from '../../test/harness/pods.js';
import type { Managed } from '../../test/harness/process.js';
import { limited, sleep } from './stats.js';

const CONTROL_PORT = 7070;

export interface FleetPod {
  /** Pod object name. */
  name: string;
  /** A2AAgent (and app label) the pod belongs to. */
  agent: string;
  ip: string;
  process: FleetProcess;
}

export interface FleetProcess {
  index: number;
  host: PodHost;
  proc?: Managed;
  /** Agents whose pods this process serves. */
  agents: string[];
  pods: FleetPod[];
  /** Stops (false) or restarts (true) the process's gRPC server: every pod address it serves. */
  setGrpc(running: boolean): Promise<void>;
}

export interface FleetOptions {
  namespace: string;
  agents: string[];
  podsPerAgent: number;
  /** Agents served by one process (their pods share its namespace). */
  agentsPerProcess: number;
  /** Processes started at once (each boots tsx and the SDK: CPU-heavy on a small machine). */
  startConcurrency?: number;
  log?: (line: string) => void;
}

export class Fleet {
  readonly processes: FleetProcess[] = [];

  get pods(): FleetPod[] {
    return this.processes.flatMap((p) => p.pods);
  }

  podsOf(agent: string): FleetPod[] {
    return this.pods.filter((p) => p.agent === agent);
  }

  async destroy(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.host.destroy()));
  }

  destroySync(): void {
    for (const p of this.processes) p.host.destroySync();
  }
}

async function readyLine(proc: Managed, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`agent process exited:\n${proc.tail()}`);
    if (readFileSync(proc.logFile, 'utf8').includes('READY ')) return;
    await sleep(50);
  }
  throw new Error(`agent process not ready in ${timeoutMs} ms:\n${proc.tail()}`);
}

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`POST ${url}: HTTP ${res.status} ${await res.text()}`);
}

/**
 * Starts the processes and creates the Pod objects (Running, Ready, with their addresses).
 * The returned fleet is registered in `into` as soon as each host exists, so a failure halfway
 * still leaves everything reachable for cleanup.
 */
export async function startFleet(cluster: Cluster, opts: FleetOptions, into: Fleet): Promise<Fleet> {
  const groups: string[][] = [];
  for (let i = 0; i < opts.agents.length; i += opts.agentsPerProcess) {
    groups.push(opts.agents.slice(i, i + opts.agentsPerProcess));
  }
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-agents-'));
  // Hosts and addresses first (cheap, synchronous `ip` calls), then the processes.
  for (const [index, agents] of groups.entries()) {
    const host = PodHost.create();
    const proc: FleetProcess = {
      index,
      host,
      agents,
      pods: [],
      setGrpc: (running) => post(`http://${host.ip}:${CONTROL_PORT}/grpc`, { running }),
    };
    into.processes.push(proc);
    for (const agent of agents) {
      for (let j = 0; j < opts.podsPerAgent; j++) {
        const ip = proc.pods.length === 0 ? host.ip : host.addAddress();
        proc.pods.push({ name: `${agent}-${j}`, agent, ip, process: proc });
      }
    }
  }
  await limited(into.processes, opts.startConcurrency ?? 4, async (p) => {
    // A process serving one agent names that agent's Service in its card, as a real agent would;
    // one serving several names a shared host (no spec.hosts is set, so any host maps by port).
    const cardHost =
      p.agents.length === 1 ? `${p.agents[0]}.${opts.namespace}.svc` : `bench-agent.${opts.namespace}.svc`;
    const config: AgentConfig = {
      ...healthyAgentConfig(cardHost),
      host: '0.0.0.0',
      control: { port: CONTROL_PORT },
    };
    p.proc = p.host.exec(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'test/agents/agent-server.ts'), JSON.stringify(config)],
      join(dir, `agent-${p.index}.log`),
    );
    await readyLine(p.proc, 60_000);
  });
  opts.log?.(`${into.processes.length} agent processes ready, ${into.pods.length} pod addresses`);
  await limited(into.pods, 8, async (pod) => {
    await createPod(cluster, {
      namespace: opts.namespace,
      name: pod.name,
      labels: { app: pod.agent },
      ip: pod.ip,
    });
  });
  return into;
}
