/**
 * The HTTP side of a test agent: an Express 5 app with the SDK's card, JSON-RPC and REST
 * handlers, or one of the card failure modes. Reads its settings from a mutable state object so
 * the control endpoint can change them at runtime.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { CardConfig, CardStream, HttpMode } from './agent-config.js';

export const CARD_PATH = '/.well-known/agent-card.json';

export interface HttpAppState {
  card: CardConfig;
  mode: HttpMode;
  /** The served `json` card with placeholders already replaced. */
  cardJson: unknown;
  /** Hostile card responses (slow, huge) as they ended, newest last. */
  cardStreams: CardStream[];
  /** Authorization header values received, on any path (card included), oldest first. */
  authorizations: string[];
  /** Requests received, on any path (card included). */
  served: { http: number };
  echoHeaders: boolean;
}

export interface HttpAppOptions {
  requestHandler: A2ARequestHandler;
  jsonrpcPath: string | null;
  restPath: string | null;
  legacy: boolean;
  authToken?: string;
  state: HttpAppState;
}

const failingUserBuilder = (): Promise<never> => Promise.reject(new Error('user store unavailable'));

function requireBearer(token: string): RequestHandler {
  return (req, res, next) => {
    if (req.headers.authorization === `Bearer ${token}`) return next();
    res.status(401).set('www-authenticate', 'Bearer').json({ error: 'unauthorized' });
  };
}

function oversizedCard(res: Response): void {
  res.status(200).type('application/json');
  res.write('{"name":"big","supportedInterfaces":[],"description":"');
  const chunk = 'x'.repeat(64 * 1024);
  for (let i = 0; i < 24; i++) res.write(chunk); // 1.5 MiB, chunked: no Content-Length to trust
  res.end('"}');
}

/** Streams a card until `more` says stop or the reader goes away; records how it ended. */
function stream(
  res: Response,
  state: HttpAppState,
  mode: string,
  head: string,
  next: () => Promise<string | undefined>,
): void {
  const started = Date.now();
  let bytes = 0;
  let open = true;
  res.status(200).type('application/json');
  res.on('close', () => {
    open = false;
    state.cardStreams.push({ mode, ms: Date.now() - started, bytes });
    if (state.cardStreams.length > 100) state.cardStreams.shift();
  });
  const write = (s: string): Promise<void> =>
    new Promise((resolve) => {
      bytes += s.length;
      if (res.write(s)) resolve();
      else {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      }
    });
  void (async () => {
    await write(head);
    while (open) {
      const chunk = await next();
      if (chunk === undefined) break;
      if (open) await write(chunk);
    }
    if (open) res.end('"}');
  })();
}

function slowCard(res: Response, state: HttpAppState, intervalMs: number): void {
  stream(res, state, 'slow', '{"name":"slow","supportedInterfaces":[],"description":"', async () => {
    await new Promise((r) => setTimeout(r, intervalMs));
    return 'x';
  });
}

function hugeCard(res: Response, state: HttpAppState, totalBytes: number): void {
  const chunk = 'x'.repeat(64 * 1024);
  let sent = 0;
  stream(res, state, 'huge', '{"name":"huge","supportedInterfaces":[],"description":"', () => {
    if (sent >= totalBytes) return Promise.resolve(undefined);
    sent += chunk.length;
    return Promise.resolve(chunk);
  });
}

/** `json` plus a member `depth` arrays deep (a string: JSON.stringify itself would overflow). */
function nestedCard(json: unknown, depth: number): string {
  const base = JSON.stringify({ ...(json as object), nested: 0 });
  return `${base.slice(0, -2)}${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

export function buildHttpApp(opts: HttpAppOptions): express.Express {
  const app = express();
  const { state } = opts;
  app.use((req: Request, res: Response, next) => {
    state.served.http++;
    const auth = req.headers.authorization;
    if (auth !== undefined) state.authorizations.push(auth);
    if (!state.echoHeaders || req.path === CARD_PATH) return next();
    const message = `refused: authorization=${auth ?? '(none)'}; headers=${JSON.stringify(req.headers)}`;
    res.status(500).json({ jsonrpc: '2.0', id: 1, error: { code: -32603, status: 'INTERNAL', message } });
  });
  const sdkCard = agentCardHandler({
    agentCardProvider: opts.requestHandler,
    legacyCompat: { enabled: opts.legacy },
  });
  const hybridCard = agentCardHandler({
    agentCardProvider: opts.requestHandler,
    legacyCompat: { enabled: true },
  });
  app.use(CARD_PATH, (req: Request, res: Response, next) => {
    switch (state.card.serve ?? 'sdk') {
      case 'json':
        res.status(200).json(state.cardJson);
        return;
      case 'oversized':
        oversizedCard(res);
        return;
      case 'malformed':
        res.status(200).type('application/json').send('{"name":"broken","supportedInterfaces":[{"url":');
        return;
      case 'slow':
        slowCard(res, state, state.card.intervalMs ?? 200);
        return;
      case 'huge':
        hugeCard(res, state, state.card.totalBytes ?? 100 * 1024 * 1024);
        return;
      case 'nested':
        res
          .status(200)
          .type('application/json')
          .send(nestedCard(state.cardJson ?? {}, state.card.depth ?? 100_000));
        return;
      case 'redirect':
        res.redirect(302, state.card.location ?? '/');
        return;
      case 'raw':
        res
          .status(200)
          .type('application/json')
          .send(state.card.text ?? '');
        return;
      case 'hybrid':
        // The SDK serves its compat (v0.3 + embedded v1.0) card to requests without A2A-Version.
        delete req.headers['a2a-version'];
        return hybridCard(req, res, next);
      case 'sdk':
        return sdkCard(req, res, next);
    }
  });
  const auth: RequestHandler[] = opts.authToken ? [requireBearer(opts.authToken)] : [];
  const userBuilder = () =>
    state.mode === 'error500' ? failingUserBuilder() : UserBuilder.noAuthentication();
  const legacyCompat = { enabled: opts.legacy };
  if (opts.jsonrpcPath !== null) {
    app.use(
      opts.jsonrpcPath,
      ...auth,
      jsonRpcHandler({ requestHandler: opts.requestHandler, userBuilder, legacyCompat }),
    );
  }
  if (opts.restPath !== null) {
    app.use(
      opts.restPath,
      ...auth,
      restHandler({ requestHandler: opts.requestHandler, userBuilder, legacyCompat }),
    );
  }
  return app;
}
