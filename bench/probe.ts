/**
 * `npm run bench:probe`: probes per second and client CPU per probe, this operator's Prober
 * against the official SDK client doing the equivalent GetTask calls, and against the least a
 * client can do (issue 15): a minimal undici JSON-RPC GetTask request on the HTTP interfaces and
 * a minimal grpc-js unary GetTask call on the gRPC ones, in the same run, over a few hundred
 * interfaces on real SDK agents running in separate processes (so the CPU measured here is the
 * client's only), and the same calls on the layer under each library's surface (the floors: the
 * Prober's own cost is its figure over these). The Prober is the shipped one (dist/, built
 * first). Prints each and the ratios; asserts nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once, setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AgentCard, AgentInterface } from '@a2a-js/sdk';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { Client as GrpcClient, credentials, Metadata, status as grpcStatus } from '@grpc/grpc-js';
import { Pool } from 'undici';
import type { CardInterface } from '../src/card/index.js';
import { buildDist, loadShipped, stackTracesAsShipped } from './lib/shipped.js';
import { grpcGetTaskMethod, grpcGetTaskRequest, jsonRpcGetTaskBody } from '../src/probe/wire-forms.js';
import type { AgentPorts } from '../test/agents/agent-config.js';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 4);
const INTERFACES = Number(process.env.BENCH_INTERFACES ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
/**
 * Passes over a side's interfaces per measurement: one pass of 100 interfaces is about 10 ms of
 * CPU, the size of a single garbage collection, and a run's ratio swung 1.05x-1.8x with it.
 */
const PASSES = Number(process.env.BENCH_PASSES ?? 10);
const root = join(import.meta.dirname, '..');

async function startAgentProcess(): Promise<{ child: ChildProcess; ports: AgentPorts }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/agents/agent-server.ts', JSON.stringify({ grpc: {} })],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, ports: (JSON.parse(line.slice('READY '.length)) as { ports: AgentPorts }).ports };
}

interface Target {
  /** The agent process serving it, as the operator names an agent for its per-agent limit. */
  agent: string;
  port: number;
  iface: CardInterface;
  sdk: Client;
  /** The minimal client of this binding: undici for JSON-RPC, grpc-js for gRPC (none for REST). */
  minimal?: () => Promise<void>;
  /** The same call on the library's lower layer (floorJsonRpc, floorGrpc). */
  floor?: () => Promise<void>;
}

/** A JSON-RPC GetTask over a kept-alive undici Pool: the least an HTTP client does. */
function minimalJsonRpc(pool: Pool): () => Promise<void> {
  return async () => {
    const res = await pool.request({
      path: '/a2a/jsonrpc',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: jsonRpcGetTaskBody('1.0', randomUUID(), ''),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes('"error"')) throw new Error(`undici GetTask: ${text}`);
  };
}

/** A unary GetTask on a grpc-js channel: NOT_FOUND is the expected answer for a random id. */
function minimalGrpc(client: GrpcClient): () => Promise<void> {
  return () =>
    new Promise((resolve, reject) => {
      const metadata = new Metadata();
      metadata.set('a2a-version', '1.0');
      client.makeUnaryRequest(
        grpcGetTaskMethod('1.0'),
        (b: Buffer) => b,
        (b: Buffer) => b,
        grpcGetTaskRequest('1.0', randomUUID(), ''),
        metadata,
        (err) => (err?.code === grpcStatus.NOT_FOUND ? resolve() : reject(err ?? new Error('found a task'))),
      );
    });
}

/**
 * The floors: the same calls on the layer under each library's surface, which is where the
 * Prober makes them (undici's dispatch API, grpc-js's Channel.createCall). The Prober's cost
 * over these is its own; over the minimal clients above it may even be negative.
 */
function floorJsonRpc(pool: Pool): () => Promise<void> {
  return () =>
    new Promise((resolve, reject) => {
      let status = 0;
      const chunks: Buffer[] = [];
      pool.dispatch(
        {
          path: '/a2a/jsonrpc',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: jsonRpcGetTaskBody('1.0', randomUUID(), ''),
        },
        {
          // undici takes a handler with onRequestStart for one of its new API.
          onRequestStart: () => undefined,
          onResponseStart: (_c, statusCode) => void (status = statusCode),
          onResponseData: (_c, chunk: Buffer) => void chunks.push(chunk),
          onResponseEnd: () => {
            const text = Buffer.concat(chunks).toString();
            if (status === 200 && text.includes('"error"')) resolve();
            else reject(new Error(`undici dispatch GetTask: ${text}`));
          },
          onResponseError: (_c, err) => reject(err),
        },
      );
    });
}

function floorGrpc(client: GrpcClient): () => Promise<void> {
  const channel = client.getChannel();
  return () =>
    new Promise((resolve, reject) => {
      const metadata = new Metadata();
      metadata.set('a2a-version', '1.0');
      const call = channel.createCall(
        grpcGetTaskMethod('1.0'),
        Date.now() + 5000,
        undefined,
        null,
        undefined,
      );
      call.start(metadata, {
        onReceiveMetadata: () => undefined,
        onReceiveMessage: () => undefined,
        onReceiveStatus: (s) => (s.code === grpcStatus.NOT_FOUND ? resolve() : reject(new Error(s.details))),
      });
      call.startRead();
      call.sendMessageWithContext({}, grpcGetTaskRequest('1.0', randomUUID(), ''));
      call.halfClose();
    });
}

async function limited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

interface Measure {
  probesPerSecond: number;
  cpuMicrosPerProbe: number;
}

async function measure(count: number, run: () => Promise<void>): Promise<Measure> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let pass = 0; pass < PASSES; pass++) await run();
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const probes = count * PASSES;
  return { probesPerSecond: probes / seconds, cpuMicrosPerProbe: (used.user + used.system) / probes };
}

function sdkCard(iface: AgentInterface): AgentCard {
  return {
    name: 'bench',
    description: '',
    version: '1',
    supportedInterfaces: [iface],
    provider: undefined,
    capabilities: { extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
    signatures: [],
  };
}

const agents = await Promise.all(Array.from({ length: AGENTS }, () => startAgentProcess()));
// The Prober as it ships (dist/, built now), as the operator runs it: see lib/shipped.ts.
buildDist();
stackTracesAsShipped();
const prober = new (await loadShipped()).probe.Prober({ concurrency: CONCURRENCY });
const factory = new ClientFactory({
  transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
});
const pools: Pool[] = [];
const grpcClients: GrpcClient[] = [];
try {
  // One SDK client per (agent, binding), created up front, as the Prober keeps one pool/channel per target.
  const perAgent = await Promise.all(
    agents.map(async ({ ports }, agentIndex) => {
      const http = `http://127.0.0.1:${ports.http}`;
      const pool = new Pool(http, { connections: CONCURRENCY, keepAliveTimeout: 30_000 });
      const grpcClient = new GrpcClient(`127.0.0.1:${ports.grpc}`, credentials.createInsecure());
      pools.push(pool);
      grpcClients.push(grpcClient);
      const minimal: Record<string, (() => Promise<void>) | undefined> = {
        JSONRPC: minimalJsonRpc(pool),
        GRPC: minimalGrpc(grpcClient),
      };
      const floor: Record<string, (() => Promise<void>) | undefined> = {
        JSONRPC: floorJsonRpc(pool),
        GRPC: floorGrpc(grpcClient),
      };
      const defs: [number, string, string, string][] = [
        [ports.http!, 'JSONRPC', `${http}/a2a/jsonrpc`, `${http}/a2a/jsonrpc`],
        [ports.http!, 'HTTP+JSON', `${http}/a2a/rest`, `${http}/a2a/rest`],
        // The SDK dials its gRPC URL as a grpc-js target with insecure credentials.
        [ports.grpc!, 'GRPC', `http://127.0.0.1:${ports.grpc}`, `127.0.0.1:${ports.grpc}`],
      ];
      return Promise.all(
        defs.map(async ([port, binding, url, sdkUrl]) => {
          const sdk = await factory.createFromAgentCard(
            sdkCard({ url: sdkUrl, protocolBinding: binding, protocolVersion: '1.0', tenant: '' }),
          );
          const iface: CardInterface = {
            url,
            protocolBinding: binding,
            protocolVersion: '1.0',
            index: 0,
            declaredAt: 'bench',
          };
          return {
            agent: `bench/agent-${agentIndex}`,
            port,
            iface,
            sdk,
            minimal: minimal[binding],
            floor: floor[binding],
          };
        }),
      );
    }),
  );
  const base = perAgent.flat();
  const targets: Target[] = Array.from({ length: INTERFACES }, (_, i) => base[i % base.length]!);

  /**
   * Probes the targets as the operator's reconciles do: each carries its agent (the per-agent
   * limit), a notAfter and the reconcile's abort signal (here one per round), so the options'
   * own cost (hard stop, abort listeners) is in the Prober's figure as it is in the operator.
   */
  const proberRoundOf = (ts: Target[]) => () => {
    const round = new AbortController();
    setMaxListeners(0, round.signal);
    const notAfter = Date.now() + 60_000;
    return limited(ts, CONCURRENCY, async (t) => {
      const r = await prober.probe({ address: '127.0.0.1', port: t.port }, t.iface, {
        timeoutMs: 5000,
        agent: t.agent,
        notAfter,
        signal: round.signal,
      });
      if (r.state !== 'Verified') throw new Error(`operator probe not Verified: ${r.message}`);
    });
  };
  const operatorRound = proberRoundOf(targets);
  const sdkRound = () =>
    limited(targets, CONCURRENCY, async (t) => {
      try {
        await t.sdk.getTask({ id: randomUUID(), tenant: '' });
        throw new Error('SDK getTask found a random task');
      } catch (err) {
        if (!(err instanceof TaskNotFoundError)) throw err; // the expected answer for a random id
      }
    });

  // The minimal clients against the Prober on the same binding's targets only.
  const ofBinding = (binding: string) => targets.filter((t) => t.iface.protocolBinding === binding);
  const minimalRoundOf = (ts: Target[]) => () => limited(ts, CONCURRENCY, (t) => t.minimal!());
  const floorRoundOf = (ts: Target[]) => () => limited(ts, CONCURRENCY, (t) => t.floor!());
  const jsonrpc = ofBinding('JSONRPC');
  const grpc = ofBinding('GRPC');
  const sides: [string, number, () => Promise<void>][] = [
    ['operator', targets.length, operatorRound],
    ['sdk', targets.length, sdkRound],
    ['proberJsonRpc', jsonrpc.length, proberRoundOf(jsonrpc)],
    ['undiciJsonRpc', jsonrpc.length, minimalRoundOf(jsonrpc)],
    ['undiciDispatch', jsonrpc.length, floorRoundOf(jsonrpc)],
    ['proberGrpc', grpc.length, proberRoundOf(grpc)],
    ['grpcJsUnary', grpc.length, minimalRoundOf(grpc)],
    ['grpcJsChannel', grpc.length, floorRoundOf(grpc)],
  ];
  for (const [, , run] of sides) await run(); // warm-up: connections, JIT
  const results: Record<string, Measure[]> = Object.fromEntries(sides.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order so no side always runs on a warmer process.
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const [name, count, run] of order) results[name]!.push(await measure(count, run));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const of = (name: string) => ({
    pps: median(results[name]!.map((m) => m.probesPerSecond)),
    cpu: median(results[name]!.map((m) => m.cpuMicrosPerProbe)),
  });
  const op = of('operator');
  const sdk = of('sdk');
  const ratio = (a: string, b: string) => (of(a).cpu / of(b).cpu).toFixed(2);
  const line = (name: string, m: { pps: number; cpu: number }) =>
    `${name.padEnd(26)} ${m.pps.toFixed(0).padStart(10)} ${m.cpu.toFixed(0).padStart(16)}`;
  process.stdout.write(
    [
      `bench:probe: ${targets.length} interfaces (JSONRPC, HTTP+JSON, GRPC at v1.0) on ${AGENTS} SDK agent processes, concurrency ${CONCURRENCY}, median of ${ROUNDS} rounds of ${PASSES} passes`,
      `${''.padEnd(26)} ${'probes/s'.padStart(10)} ${'CPU µs/probe'.padStart(16)}`,
      line('a2a-operator Prober', op),
      line('@a2a-js/sdk client getTask', sdk),
      `ratio (operator / SDK): throughput ${(op.pps / sdk.pps).toFixed(2)}x, CPU per probe ${(op.cpu / sdk.cpu).toFixed(2)}x`,
      '',
      `against minimal clients on the same interfaces (target: Prober CPU per probe <= 1.15x each):`,
      line('Prober, JSON-RPC only', of('proberJsonRpc')),
      line('undici JSON-RPC GetTask', of('undiciJsonRpc')),
      line('  floor: undici dispatch', of('undiciDispatch')),
      line('Prober, gRPC only', of('proberGrpc')),
      line('grpc-js unary GetTask', of('grpcJsUnary')),
      line('  floor: grpc-js createCall', of('grpcJsChannel')),
      `CPU per probe: Prober / undici ${ratio('proberJsonRpc', 'undiciJsonRpc')}x, Prober / grpc-js ${ratio('proberGrpc', 'grpcJsUnary')}x`,
      `over the floors (the Prober's own cost): JSON-RPC ${ratio('proberJsonRpc', 'undiciDispatch')}x, gRPC ${ratio('proberGrpc', 'grpcJsChannel')}x`,
      '',
    ].join('\n'),
  );
} finally {
  await prober.close();
  await Promise.all(pools.map((p) => p.close()));
  for (const c of grpcClients) c.close();
  for (const { child } of agents) child.kill('SIGTERM');
}
