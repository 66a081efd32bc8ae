/**
 * A multiplexed agent fleet as one process: `node --import tsx test/agents/fleet-server.ts <config.json>`.
 * Many pod addresses of one network namespace, each a complete agent of its own: `startAgent`
 * bound to that address (JSON-RPC and HTTP+JSON on one port, gRPC on another, real
 * @a2a-js/sdk handlers, its own card naming its own Service). A client that dials an address
 * reaches that address's listeners only, so every pod is really dialled; one process per agent
 * would not fit 1,000 agents x 3 pods on a small machine (a Node process is ~60 MiB).
 *
 * The config is a file (a few hundred addresses overflow one argv string):
 *   {"control": {"port": 7070}, "addresses": [{"ip": "10.244.1.2", "config": AgentConfig}, ...]}
 * Prints `READY {"addresses": n, "startMs": ..., "rssBytes": ...}` once every address is bound.
 * The control endpoint, on every address of the namespace:
 *   GET  /state    -> {"addresses", "rssBytes", "heapUsedBytes", "served": {"http", "grpc"}, "connections": {"http"}}
 *        (requests every address received so far and the HTTP connections it accepted, summed)
 *   POST /grpc {"running": bool, "ips"?: [..]}   stop / restart gRPC on those addresses (default all)
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AgentConfig } from './agent-config.js';
import { startAgent, type RunningAgent } from './start-agent.js';

export interface FleetServerConfig {
  control: { port: number };
  addresses: { ip: string; config: AgentConfig }[];
  /** Addresses started at once (default 16). */
  startConcurrency?: number;
}

const config = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as FleetServerConfig;
const started = performance.now();
const agents = new Map<string, RunningAgent>();
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(config.startConcurrency ?? 16, config.addresses.length) }, async () => {
    while (next < config.addresses.length) {
      const a = config.addresses[next++]!;
      agents.set(a.ip, await startAgent({ ...a.config, host: a.ip, control: undefined }));
    }
  }),
);
const startMs = performance.now() - started;

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0
    ? {}
    : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
}

const control = createServer((req, res) => {
  const reply = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const handle = async (): Promise<void> => {
    if (req.method === 'GET' && req.url === '/state') {
      const m = process.memoryUsage();
      const served = { http: 0, grpc: 0 };
      const connections = { http: 0 };
      for (const a of agents.values()) {
        served.http += a.served.http;
        served.grpc += a.served.grpc;
        connections.http += a.connections.http;
      }
      return reply(200, {
        addresses: agents.size,
        rssBytes: m.rss,
        heapUsedBytes: m.heapUsed,
        served,
        connections,
      });
    }
    if (req.method !== 'POST' || req.url !== '/grpc') return reply(404, { error: 'unknown control path' });
    const body = await readJson(req);
    const ips = Array.isArray(body.ips) ? (body.ips as string[]) : [...agents.keys()];
    await Promise.all(
      ips.map(async (ip) => {
        const agent = agents.get(ip);
        if (!agent) throw new Error(`no agent on ${ip}`);
        await agent.stopGrpc();
        if (body.running !== false) await agent.startGrpc();
      }),
    );
    return reply(200, { ok: true });
  };
  handle().catch((err: unknown) => reply(400, { error: String(err) }));
});
await new Promise<void>((resolve, reject) => {
  control.once('error', reject);
  control.listen(config.control.port, '0.0.0.0', resolve);
});

process.stdout.write(
  `READY ${JSON.stringify({ addresses: agents.size, startMs: Math.round(startMs), rssBytes: process.memoryUsage().rss })}\n`,
);

const stop = () => {
  control.close();
  Promise.all([...agents.values()].map((a) => a.close())).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
