/**
 * The advertised-card endpoint: `GET /cards/<namespace>/<name>` serves the card the operator
 * published in ConfigMap `<name>-agent-card` (ETag, Cache-Control from the probe period, 304
 * on If-None-Match, 503 with a JSON reason when nothing is verified); `GET /cards` lists the
 * agents and what each advertises. It reads the informer caches, which every replica keeps
 * warm, so any replica answers, not only the leader.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import type { A2AAgentStatus } from '../api/a2aagent.js';
import { CARD_KEY, UNAVAILABLE_ANNOTATION, cardConfigMapName } from './objects.js';

interface AgentLike extends KubernetesObject {
  spec?: unknown;
  status?: A2AAgentStatus;
}

function periodSeconds(agent: AgentLike): number {
  const p = (agent.spec as { probe?: { periodSeconds?: unknown } } | undefined)?.probe?.periodSeconds;
  return typeof p === 'number' && p > 0 ? p : 30;
}

export interface CardSource {
  agents: { get(ns: string, name: string): AgentLike | undefined; list(ns?: string): AgentLike[] };
  configMaps: { get(ns: string, name: string): V1ConfigMap | undefined };
  /** Caches synced: before that, answers are 503 rather than a wrong 404. */
  ready(): boolean;
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(`${JSON.stringify(body)}\n`);
}

function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
}

export function handleCardRequest(source: CardSource, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://cards');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    json(res, 405, { error: 'MethodNotAllowed', message: 'only GET and HEAD' }, { allow: 'GET, HEAD' });
    return;
  }
  if (!source.ready()) {
    json(
      res,
      503,
      { error: 'NotSynced', message: 'the operator has not synced its caches yet' },
      { 'retry-after': '1' },
    );
    return;
  }
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts.length === 1 && parts[0] === 'cards') {
    const index = source.agents.list().map((a) => {
      const ns = a.metadata?.namespace ?? '';
      const name = a.metadata?.name ?? '';
      const status = a.status;
      return {
        namespace: ns,
        name,
        url: `/cards/${ns}/${name}`,
        ready: status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown',
        advertised: (status?.interfaces ?? [])
          .filter((i) => i.advertised)
          .map((i) => ({
            url: i.url,
            protocolBinding: i.protocolBinding,
            protocolVersion: i.protocolVersion,
          })),
      };
    });
    json(res, 200, { agents: index }, { 'cache-control': 'no-cache' });
    return;
  }
  if (parts.length !== 3 || parts[0] !== 'cards') {
    json(res, 404, { error: 'NotFound', message: 'use /cards or /cards/<namespace>/<name>' });
    return;
  }
  const [, ns, name] = parts as [string, string, string];
  const agent = source.agents.get(ns, name);
  if (!agent) {
    json(res, 404, { error: 'AgentNotFound', message: `no A2AAgent ${ns}/${name}` });
    return;
  }
  const cm = source.configMaps.get(ns, cardConfigMapName(name));
  const body = cm?.data?.[CARD_KEY];
  if (body === undefined) {
    const reason =
      cm?.metadata?.annotations?.[UNAVAILABLE_ANNOTATION] ??
      'the operator has not published a card for this agent yet';
    json(
      res,
      503,
      { error: 'NoVerifiedInterface', message: reason },
      { 'retry-after': '5', 'cache-control': 'no-store' },
    );
    return;
  }
  const etag = etagOf(body);
  const maxAge = periodSeconds(agent);
  const headers = { etag, 'cache-control': `public, max-age=${maxAge}`, vary: 'A2A-Version' };
  if (
    req.headers['if-none-match']
      ?.split(',')
      .map((s) => s.trim())
      .includes(etag)
  ) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function createCardServer(source: CardSource): Server {
  return createServer((req, res) => {
    try {
      handleCardRequest(source, req, res);
    } catch (err) {
      json(res, 500, { error: 'Internal', message: err instanceof Error ? err.message : String(err) });
    }
  });
}
