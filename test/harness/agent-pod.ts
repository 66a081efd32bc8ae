/**
 * A real A2A agent (test/agents, built from the official SDK) running as a "pod": its own
 * network namespace and address, plus the matching Pod object with status set. The agent's
 * control endpoint flips failure modes at runtime (stop gRPC, change the card, …).
 *
 * `runtime: 'go'` runs the Go agent (test/agents/go, official Go SDK) instead of the JS one: the
 * same config JSON, READY line and control endpoint (the subset it implements).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentConfig, AgentPorts, CardStream } from '../agents/agent-config.js';
import { buildGoAgent, REPO_ROOT } from './binaries.js';
import type { Cluster } from './cluster.js';
import { healthyAgentConfig } from './manifests.js';
import { PodHost, type PodHostFamilies } from './podhost.js';
import { createPod, deletePod } from './pods.js';
import { controlRequest } from './control-request.js';

/** What an agent's control endpoint reports (test/agents/control-server.ts, GET /state). */
export interface AgentState {
  seen: unknown[];
  connections: Record<string, number>;
  /** Every HTTP request (card included) and every gRPC call the agent answered. */
  served: { http: number; grpc: number };
  authorizations: string[];
  /** A2A calls the agent's handler received, by method name. */
  calls: string[];
  /** Hostile card answers (slow, huge) as the agent saw each end. */
  cardStreams: CardStream[];
}

export interface AgentPod {
  name: string;
  namespace: string;
  /** The primary address (status.podIP). */
  ip: string;
  /** Every address (status.podIPs). */
  ips: string[];
  host: PodHost;
  ports: AgentPorts;
  logFile: string;
  /** POST to the agent's control endpoint (see test/agents/control-server.ts). */
  control(path: string, body: unknown): Promise<unknown>;
  state(): Promise<AgentState>;
  /** Stops the agent process and removes the namespace (the Pod object stays). */
  stopProcess(): Promise<void>;
  destroy(deletePodObject?: boolean): Promise<void>;
}

export interface AgentPodOptions {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  config: AgentConfig;
  containerPorts?: { name?: string; containerPort: number }[];
  ready?: boolean;
  readinessGates?: string[];
  /** Which SDK the agent runs on: `js` (@a2a-js/sdk, default) or `go` (a2a-go). */
  runtime?: 'js' | 'go';
  /** Address families of the pod (default IPv4 only); with IPv6 the agent listens on `::`. */
  families?: PodHostFamilies;
}

async function waitReady(logFile: string, tail: () => string): Promise<AgentPorts> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const text = readFileSync(logFile, 'utf8');
    const line = text.split('\n').find((l) => l.startsWith('READY '));
    if (line) return (JSON.parse(line.slice('READY '.length)) as { ports: AgentPorts }).ports;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`agent did not become ready:\n${tail()}`);
}

/** Pod `<app>-<index>` labelled app=<app>, serving healthyAgentConfig for the Service `<app>`. */
export function startHealthyPod(
  cluster: Cluster,
  namespace: string,
  app: string,
  index = 0,
): Promise<AgentPod> {
  return startAgentPod(cluster, {
    namespace,
    name: `${app}-${index}`,
    labels: { app },
    config: healthyAgentConfig(`${app}.${namespace}.svc`),
  });
}

/** Starts the agent inside a fresh pod host, then creates its Pod (Running, Ready, with its IP). */
export async function startAgentPod(cluster: Cluster, opts: AgentPodOptions): Promise<AgentPod> {
  // Built (or found in the cache) before the namespace exists, so a failed build leaks nothing.
  const goAgent = opts.runtime === 'go' ? buildGoAgent() : undefined;
  const families = opts.families ?? 'IPv4';
  const host = PodHost.create({ families });
  const logFile = join(mkdtempSync(join(tmpdir(), `a2a-agent-${opts.name}-`)), 'agent.log');
  // `::` takes IPv4 too (a dual-stack socket), so one agent serves every address of the pod.
  const config: AgentConfig = {
    control: { port: 7070 },
    ...opts.config,
    host: families === 'IPv4' ? host.ip : '::',
  };
  const proc =
    goAgent !== undefined
      ? host.exec(goAgent, [JSON.stringify(config)], logFile)
      : host.exec(
          process.execPath,
          ['--import', 'tsx', join(REPO_ROOT, 'test/agents/agent-server.ts'), JSON.stringify(config)],
          logFile,
        );
  let ports: AgentPorts;
  try {
    ports = await waitReady(logFile, () => proc.tail());
  } catch (err) {
    await host.destroy();
    throw err;
  }
  await createPod(cluster, {
    namespace: opts.namespace,
    name: opts.name,
    labels: opts.labels,
    ip: host.ip,
    ips: host.ips,
    containerPorts: opts.containerPorts,
    ready: opts.ready ?? true,
    readinessGates: opts.readinessGates,
  });
  const controlUrl = `http://${host.ip.includes(':') ? `[${host.ip}]` : host.ip}:${ports.control}`;
  return {
    name: opts.name,
    namespace: opts.namespace,
    ip: host.ip,
    ips: host.ips,
    host,
    ports,
    logFile,
    control: (path, body) => controlRequest('POST', `${controlUrl}${path}`, body),
    state: async () => (await controlRequest('GET', `${controlUrl}/state`)) as AgentState,
    stopProcess: async () => {
      await proc.stop('SIGTERM', 3000);
    },
    destroy: async (deletePodObject = true) => {
      await host.destroy();
      if (deletePodObject) await deletePod(cluster, opts.namespace, opts.name).catch(() => undefined);
    },
  };
}

/**
 * A second agent process in an agent pod: the same address, its own ports and its own task
 * store (two processes behind one card). Stopped with the pod's host.
 */
export async function startCompanionAgent(pod: AgentPod, config: AgentConfig): Promise<AgentPorts> {
  const logFile = join(mkdtempSync(join(tmpdir(), `a2a-agent-${pod.name}-companion-`)), 'agent.log');
  const proc = pod.host.exec(
    process.execPath,
    [
      '--import',
      'tsx',
      join(REPO_ROOT, 'test/agents/agent-server.ts'),
      JSON.stringify({ control: false, ...config, host: pod.ip }),
    ],
    logFile,
  );
  return waitReady(logFile, () => proc.tail());
}
