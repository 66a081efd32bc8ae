/**
 * The advertised-card endpoint: `GET /cards/<namespace>/<name>` serves the card the operator
 * published in ConfigMap `<name>-agent-card` (ETag, Cache-Control from the probe period, 304
 * on If-None-Match, 503 with a stable reason when nothing is verified). An index lists agents
 * and what each advertises: `GET /cards/<namespace>` by default, the cluster-wide `GET /cards`
 * only when `index` is `cluster`, neither when `none`. It reads the informer caches, which every
 * replica keeps warm, so any replica answers, not only the leader.
 *
 * The endpoint is unauthenticated: bodies carry only what the published cards already say. Why
 * an interface is not verified (probe evidence, server text) stays in status, behind RBAC.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import type { A2AAgentStatus } from '../api/a2aagent.js';
import { controlledBy } from './inventory.js';
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

/** Which agent index the endpoint serves: every namespace, one namespace per request, or none. */
export const CARD_INDEX_MODES = ['cluster', 'namespace', 'none'] as const;
export type CardIndexMode = (typeof CARD_INDEX_MODES)[number];

export interface CardServerOptions {
  /** Default `namespace`: a pod cannot list every agent of the cluster in one request. */
  index?: CardIndexMode;
  /** Told about a handler failure, which the 500 body does not describe. */
  onError?: (err: unknown) => void;
}

function indexOf(agents: AgentLike[]): unknown[] {
  return agents.map((a) => {
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
}

function publishedFor(agent: AgentLike, cm: V1ConfigMap): boolean {
  const mode = (agent.spec as { routing?: { mode?: unknown } } | undefined)?.routing?.mode;
  if (mode === 'Observe') return false;
  return controlledBy(cm, agent.metadata?.uid ?? '');
}

function notFound(res: ServerResponse, index: CardIndexMode): void {
  const paths =
    index === 'cluster'
      ? '/cards, /cards/<namespace> or /cards/<namespace>/<name>'
      : index === 'namespace'
        ? '/cards/<namespace> or /cards/<namespace>/<name>'
        : '/cards/<namespace>/<name>';
  json(res, 404, { error: 'NotFound', message: `use ${paths}` });
}

export function handleCardRequest(
  source: CardSource,
  req: IncomingMessage,
  res: ServerResponse,
  options: CardServerOptions = {},
): void {
  const index = options.index ?? 'namespace';
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
  if (parts[0] !== 'cards' || parts.length > 3) {
    notFound(res, index);
    return;
  }
  if (parts.length === 1) {
    if (index !== 'cluster') {
      notFound(res, index);
      return;
    }
    json(res, 200, { agents: indexOf(source.agents.list()) }, { 'cache-control': 'no-cache' });
    return;
  }
  if (parts.length === 2) {
    if (index === 'none') {
      notFound(res, index);
      return;
    }
    json(res, 200, { agents: indexOf(source.agents.list(parts[1])) }, { 'cache-control': 'no-cache' });
    return;
  }
  const [, ns, name] = parts as [string, string, string];
  const agent = source.agents.get(ns, name);
  if (!agent) {
    json(res, 404, { error: 'AgentNotFound', message: `no A2AAgent ${ns}/${name}` });
    return;
  }
  // Only a card this agent's operator published, and only while it enforces: a same-named
  // ConfigMap of another writer, or a card left from before a switch to Observe (frozen: nothing
  // verifies it any more), is not served.
  const found = source.configMaps.get(ns, cardConfigMapName(name));
  const cm = found && publishedFor(agent, found) ? found : undefined;
  const body = cm?.data?.[CARD_KEY];
  if (body === undefined) {
    // A stable reason only: the annotation's text (and status) may quote probe evidence.
    const published = cm?.metadata?.annotations?.[UNAVAILABLE_ANNOTATION] !== undefined;
    json(
      res,
      503,
      {
        error: published ? 'NothingVerified' : 'NotPublished',
        message: `${
          published
            ? 'no interface of this agent is verified'
            : 'the operator has not published a card for this agent yet'
        }; see kubectl describe a2aagent -n ${ns} ${name}`,
      },
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

export function createCardServer(source: CardSource, options: CardServerOptions = {}): Server {
  return createServer((req, res) => {
    try {
      handleCardRequest(source, req, res, options);
    } catch (err) {
      // No error text in an unauthenticated body: it goes to the operator's log.
      options.onError?.(err);
      json(res, 500, { error: 'Internal', message: 'internal error; see the operator log' });
    }
  });
}
