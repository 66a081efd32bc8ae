/**
 * The control endpoint of a test agent, so a test can flip failure modes of an agent running in
 * another process or network namespace:
 *
 *   GET  /state                       -> {"ports", "seen", "calls", "connections", "served", "cardStreams", "authorizations"}
 *   POST /grpc  {"running": bool, "register"?: bool}   stop / (re)start the gRPC server
 *   POST /card  CardConfig                             change the served card
 *   POST /http  {"mode": "a2a" | "error500"}
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { CardConfig, HttpMode } from './agent-config.js';
import type { RunningAgent } from './start-agent.js';

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 4 * 1024 * 1024) throw new Error('control body too large');
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export function controlServer(agent: RunningAgent): Server {
  return createServer((req, res) => {
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const handle = async (): Promise<void> => {
      if (req.method === 'GET' && req.url === '/state') {
        return reply(200, {
          ports: agent.ports,
          seen: agent.seen,
          calls: agent.calls,
          connections: agent.connections,
          served: agent.served,
          cardStreams: agent.cardStreams,
          authorizations: agent.authorizations,
        });
      }
      if (req.method !== 'POST') return reply(405, { error: 'method not allowed' });
      const body = (await readJson(req)) as Record<string, unknown>;
      switch (req.url) {
        case '/grpc':
          if (body.running === false) await agent.stopGrpc();
          else {
            await agent.stopGrpc();
            await agent.startGrpc(typeof body.register === 'boolean' ? body.register : undefined);
          }
          return reply(200, { ok: true });
        case '/card':
          agent.setCard(body as CardConfig);
          return reply(200, { ok: true });
        case '/http':
          agent.setHttpMode(body.mode as HttpMode);
          return reply(200, { ok: true });
        default:
          return reply(404, { error: 'unknown control path' });
      }
    };
    handle().catch((err: unknown) => reply(400, { error: String(err) }));
  });
}
