/**
 * The HTTP side of a test agent: an Express 5 app with the SDK's card, JSON-RPC and REST
 * handlers, or one of the card failure modes. Reads its settings from a mutable state object so
 * the control endpoint can change them at runtime.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { CardConfig, HttpMode } from './agent-config.js';

export const CARD_PATH = '/.well-known/agent-card.json';

export interface HttpAppState {
  card: CardConfig;
  mode: HttpMode;
  /** The served `json` card with placeholders already replaced. */
  cardJson: unknown;
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

export function buildHttpApp(opts: HttpAppOptions): express.Express {
  const app = express();
  const { state } = opts;
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
