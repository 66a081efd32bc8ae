/**
 * A test agent on loopback on either runtime, behind one interface, so a test can be written once
 * and run on both SDKs: `js` runs `startAgent()` in-process (@a2a-js/sdk), `go` runs the Go agent
 * binary (test/agents/go, the official a2a-go SDK) as a child process with the same config JSON
 * and reads its READY line and control endpoint.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { AgentConfig, AgentPorts, SeenGetTask } from '../agents/agent-config.js';
import { startAgent } from '../agents/start-agent.js';
import { buildGoAgent } from './binaries.js';
import { controlRequest } from './control-request.js';

export type Runtime = 'js' | 'go';
export const RUNTIMES: readonly Runtime[] = ['js', 'go'];

/** AgentConfig plus what only the Go agent implements. */
export interface LocalAgentConfig extends AgentConfig {
  /** Go only: a token that authenticates but is denied (-31403 / 403 / PERMISSION_DENIED). */
  authDeniedToken?: string;
}

export interface LocalAgent {
  runtime: Runtime;
  ports: AgentPorts;
  seen(): Promise<SeenGetTask[]>;
  /** Every A2A call the agent's handler received, by method name, oldest first. */
  calls(): Promise<string[]>;
  /** TLS SNI names the HTTPS listener received. */
  sni(): Promise<(string | undefined)[]>;
  connections(): Promise<{ http: number; plain: number; hang: number }>;
  stopGrpc(): Promise<void>;
  startGrpc(register?: boolean): Promise<void>;
  /** `error500`: every A2A route answers HTTP 500 (-32603 / INTERNAL); `a2a`: back to normal. */
  setHttpMode(mode: 'a2a' | 'error500'): Promise<void>;
  close(): Promise<void>;
}

export async function startLocalAgent(runtime: Runtime, config: LocalAgentConfig): Promise<LocalAgent> {
  if (runtime === 'go') return startGoAgent(config);
  if (config.authDeniedToken !== undefined) throw new Error('authDeniedToken: go runtime only');
  const a = await startAgent(config);
  return {
    runtime,
    ports: a.ports,
    seen: () => Promise.resolve([...a.seen]),
    calls: () => Promise.resolve([...a.calls]),
    sni: () => Promise.resolve([...a.sni]),
    connections: () => Promise.resolve({ ...a.connections }),
    stopGrpc: () => a.stopGrpc(),
    startGrpc: (register) => a.startGrpc(register),
    setHttpMode: (mode) => Promise.resolve(a.setHttpMode(mode)),
    close: () => a.close(),
  };
}

function waitReady(child: ChildProcess): Promise<AgentPorts> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error('go agent: no READY line within 30s')), 30_000);
    const fail = (e: Error) => {
      clearTimeout(timer);
      reject(new Error(`${e.message}\n${err}`));
    };
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (line && out.includes('\n')) {
        clearTimeout(timer);
        resolve((JSON.parse(line.slice('READY '.length)) as { ports: AgentPorts }).ports);
      }
    });
    child.once('exit', (code) => fail(new Error(`go agent exited (${code}) before READY`)));
    child.once('error', fail);
  });
}

async function startGoAgent(config: LocalAgentConfig): Promise<LocalAgent> {
  // stdin stays open as long as this process lives: the agent exits when it closes, so a killed
  // test run leaves no agent behind.
  const child = spawn(buildGoAgent(), [JSON.stringify({ host: '127.0.0.1', control: {}, ...config })], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, GO_AGENT_EXIT_ON_STDIN_EOF: '1' },
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let ports: AgentPorts;
  try {
    ports = await waitReady(child);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const controlUrl = `http://127.0.0.1:${ports.control!}`;
  const state = async () =>
    (await controlRequest('GET', `${controlUrl}/state`)) as {
      seen: SeenGetTask[];
      calls: string[] | null;
      sni: (string | null)[];
      connections: { http: number; plain: number; hang: number };
    };
  return {
    runtime: 'go',
    ports,
    seen: async () => (await state()).seen,
    calls: async () => (await state()).calls ?? [],
    sni: async () => (await state()).sni.map((n) => n ?? undefined),
    connections: async () => (await state()).connections,
    stopGrpc: async () => {
      await controlRequest('POST', `${controlUrl}/grpc`, { running: false });
    },
    startGrpc: async (register) => {
      await controlRequest('POST', `${controlUrl}/grpc`, register === undefined ? {} : { register });
    },
    setHttpMode: async (mode) => {
      await controlRequest('POST', `${controlUrl}/http`, { mode });
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      child.stdin?.end();
      await exited;
    },
  };
}
