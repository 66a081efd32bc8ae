/**
 * The benchmark's agents: a multiplexed fleet (test/agents/fleet-server.ts). Each process runs
 * in its own network namespace and serves `agentsPerProcess` agents x `podsPerAgent` pod
 * addresses, every address a complete @a2a-js/sdk agent bound to that address (its own card,
 * naming its agent's Service, and its own JSON-RPC, HTTP+JSON and gRPC listeners). Every address
 * gets its own Pod object, so the operator dials each as a separate pod. Breaking gRPC is per
 * agent: every pod address of that agent, and nothing else in the process.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentConfig } from '../../test/agents/agent-config.js';
import type { FleetServerConfig } from '../../test/agents/fleet-server.js';
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

/** One agent's pods: the unit a reaction event breaks and heals. */
export interface FleetAgent {
  name: string;
  pods: FleetPod[];
  /** Stops (false) or restarts (true) gRPC on every pod address of this agent. */
  setGrpc(running: boolean): Promise<void>;
}

export interface FleetProcess {
  index: number;
  host: PodHost;
  proc?: Managed;
  agents: FleetAgent[];
  pods: FleetPod[];
  /** From the process's READY line: time to bind every address. */
  startMs?: number;
}

/** What the fleet's pod addresses served, summed: requests and the HTTP connections they came on. */
export interface Traffic {
  /** HTTP requests (cards, JSON-RPC, HTTP+JSON). */
  http: number;
  /** gRPC calls to a method the agents serve. */
  grpc: number;
  /** HTTP connections the agents' HTTP listeners accepted (gRPC's are the rest of a namespace's accepts). */
  httpConnections: number;
}

/** Traffic from `before` to `after` (two readings of `Fleet.traffic()`). */
export function trafficBetween(before: Traffic, after: Traffic): Traffic {
  return {
    http: after.http - before.http,
    grpc: after.grpc - before.grpc,
    httpConnections: after.httpConnections - before.httpConnections,
  };
}

/** What a fleet process's `GET /state` answers (test/agents/fleet-server.ts). */
interface FleetState {
  rssBytes: number;
  served: { http: number; grpc: number };
  connections: { http: number };
}

export interface FleetOptions {
  namespace: string;
  agents: string[];
  podsPerAgent: number;
  /** Agents served by one process (their pods share its namespace). */
  agentsPerProcess: number;
  /** Processes started at once (each boots tsx and the SDK: CPU-heavy on a small machine). */
  startConcurrency?: number;
  /** The agents' HTTP keep-alive timeout (ms); default Node's (5 s). */
  keepAliveMs?: number;
  log?: (line: string) => void;
}

export class Fleet {
  readonly processes: FleetProcess[] = [];

  get pods(): FleetPod[] {
    return this.processes.flatMap((p) => p.pods);
  }

  get agents(): FleetAgent[] {
    return this.processes.flatMap((p) => p.agents);
  }

  podsOf(agent: string): FleetPod[] {
    return this.pods.filter((p) => p.agent === agent);
  }

  /** Resident memory of every fleet process, summed (each reports its own). */
  async rssBytes(): Promise<number> {
    return (await this.states()).reduce((sum, s) => sum + s.rssBytes, 0);
  }

  /** What every pod address served so far, summed over the processes. */
  async traffic(): Promise<Traffic> {
    return (await this.states()).reduce(
      (sum, s) => ({
        http: sum.http + s.served.http,
        grpc: sum.grpc + s.served.grpc,
        httpConnections: sum.httpConnections + s.connections.http,
      }),
      { http: 0, grpc: 0, httpConnections: 0 },
    );
  }

  /** Each process's control endpoint `/state` (the control port is not counted as served). */
  private states(): Promise<FleetState[]> {
    return Promise.all(
      this.processes.map(async (p) => {
        const res = await fetch(`http://${p.host.ip}:${CONTROL_PORT}/state`, {
          signal: AbortSignal.timeout(10_000),
        });
        return (await res.json()) as FleetState;
      }),
    );
  }

  async destroy(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.host.destroy()));
    this.processes.length = 0;
  }

  destroySync(): void {
    for (const p of this.processes) p.host.destroySync();
  }
}

/** The agent's HTTP listener as configured, keeping idle connections `keepAliveMs` if given. */
function withKeepAlive(config: AgentConfig, keepAliveMs: number | undefined): AgentConfig {
  if (keepAliveMs === undefined || !config.http) return config;
  return { ...config, http: { ...config.http, keepAliveMs } };
}

async function readyLine(proc: Managed, timeoutMs: number): Promise<{ startMs: number }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`fleet process exited:\n${proc.tail()}`);
    const m = /READY (\{.*\})/.exec(readFileSync(proc.logFile, 'utf8'));
    if (m) return JSON.parse(m[1]!) as { startMs: number };
    await sleep(100);
  }
  throw new Error(`fleet process not ready in ${timeoutMs} ms:\n${proc.tail()}`);
}

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`POST ${url}: HTTP ${res.status} ${await res.text()}`);
}

/**
 * Starts the processes and creates the Pod objects (Running, Ready, with their addresses).
 * Without a cluster (bench/fleet.ts), only the processes. The returned fleet is registered in `into` as soon as each host exists, so a failure halfway
 * still leaves everything reachable for cleanup.
 */
export async function startFleet(
  cluster: Cluster | undefined,
  opts: FleetOptions,
  into: Fleet,
): Promise<Fleet> {
  const groups: string[][] = [];
  for (let i = 0; i < opts.agents.length; i += opts.agentsPerProcess) {
    groups.push(opts.agents.slice(i, i + opts.agentsPerProcess));
  }
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-agents-'));
  PodHost.reserveNeighbours(opts.agents.length * opts.podsPerAgent);
  // Hosts and addresses first (cheap `ip` calls, one batch per host), then the processes.
  for (const [index, names] of groups.entries()) {
    const host = PodHost.create();
    const proc: FleetProcess = { index, host, agents: [], pods: [] };
    into.processes.push(proc);
    const ips = [host.ip, ...host.addAddresses(names.length * opts.podsPerAgent - 1)];
    for (const name of names) {
      const pods: FleetPod[] = [];
      for (let j = 0; j < opts.podsPerAgent; j++) {
        pods.push({ name: `${name}-${j}`, agent: name, ip: ips[proc.pods.length + j]!, process: proc });
      }
      proc.pods.push(...pods);
      const addresses = pods.map((p) => p.ip);
      proc.agents.push({
        name,
        pods,
        setGrpc: (running) => post(`http://${host.ip}:${CONTROL_PORT}/grpc`, { running, ips: addresses }),
      });
    }
  }
  await limited(into.processes, opts.startConcurrency ?? 2, async (p) => {
    const config: FleetServerConfig = {
      control: { port: CONTROL_PORT },
      // Each address names its own agent's Service in its card, as a real agent's pod would.
      addresses: p.pods.map((pod) => ({
        ip: pod.ip,
        config: withKeepAlive(healthyAgentConfig(`${pod.agent}.${opts.namespace}.svc`), opts.keepAliveMs),
      })),
    };
    const file = join(dir, `fleet-${p.index}.json`);
    writeFileSync(file, JSON.stringify(config));
    p.proc = p.host.exec(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'test/agents/fleet-server.ts'), file],
      join(dir, `fleet-${p.index}.log`),
    );
    p.startMs = (await readyLine(p.proc, 120_000 + p.pods.length * 200)).startMs;
  });
  opts.log?.(`${into.processes.length} fleet processes ready, ${into.pods.length} pod addresses`);
  if (!cluster) return into;
  await limited(into.pods, 16, async (pod) => {
    await createPod(cluster, {
      namespace: opts.namespace,
      name: pod.name,
      labels: { app: pod.agent },
      ip: pod.ip,
    });
  });
  return into;
}
