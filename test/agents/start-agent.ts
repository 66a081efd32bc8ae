/**
 * `startAgent(config)`: a real A2A agent built from the official SDK, on loopback ports chosen by
 * the OS, with the failure modes of `AgentConfig`. `agent-server.ts` runs the same thing as a
 * process with a control endpoint.
 */
import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Server as NetServer } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { AgentInterface } from '@a2a-js/sdk';
import type {
  AgentConfig,
  AgentPorts,
  CardConfig,
  CardStream,
  HttpMode,
  InterfaceDecl,
  SeenGetTask,
} from './agent-config.js';
import { GrpcListener } from './grpc-listener.js';
import { buildHttpApp, type HttpAppState } from './http-app.js';
import { h2GarbageServer, hangingServer, plainHttpServer } from './raw-listeners.js';
import { RecordingRequestHandler, sdkCard } from './sdk-handler.js';
import { controlServer } from './control-server.js';

export interface RunningAgent {
  ports: AgentPorts;
  host: string;
  /** GetTask calls the SDK handler saw (all bindings). */
  seen: SeenGetTask[];
  /** Every A2A call the SDK handler received, by method name (all bindings). */
  calls: string[];
  /** TCP connections accepted per raw listener. */
  connections: { http: number; plain: number; hang: number; h2garbage: number };
  /** Requests received: every HTTP request (card included), every gRPC call to a registered method. */
  served: { http: number; grpc: number };
  /** Hostile card responses (slow, huge) as they ended. */
  cardStreams: CardStream[];
  /** TLS SNI names the HTTPS listener received (undefined when the client sent none). */
  sni: (string | undefined)[];
  /** Authorization values received (HTTP headers on any path, gRPC metadata), oldest first. */
  authorizations: string[];
  setCard(card: CardConfig): void;
  setHttpMode(mode: HttpMode): void;
  stopGrpc(): Promise<void>;
  startGrpc(register?: boolean): Promise<void>;
  close(): Promise<void>;
}

function listen(server: NetServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

function closeServer(server: NetServer): Promise<void> {
  (server as HttpServer).closeAllConnections?.();
  return new Promise((resolve) => server.close(() => resolve()));
}

function substitute<T>(value: T, vars: Record<string, string>): T {
  const text = JSON.stringify(value).replace(/\{\{([A-Z_]+)\}\}/g, (m, name: string) => vars[name] ?? m);
  return JSON.parse(text) as T;
}

function defaultInterfaces(config: AgentConfig): InterfaceDecl[] {
  const http = config.http === false ? undefined : (config.http ?? {});
  const scheme = http?.tls ? 'https' : 'http';
  const out: InterfaceDecl[] = [];
  const jsonrpc = http?.jsonrpcPath === undefined ? '/a2a/jsonrpc' : http.jsonrpcPath;
  const rest = http?.restPath === undefined ? '/a2a/rest' : http.restPath;
  if (http && jsonrpc !== null) {
    out.push({
      url: `${scheme}://{{HOST}}:{{HTTP_PORT}}${jsonrpc}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
  }
  if (http && rest !== null) {
    out.push({
      url: `${scheme}://{{HOST}}:{{HTTP_PORT}}${rest}`,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
    });
  }
  if (config.grpc) {
    const g = config.grpc.tls ? 'https' : 'http';
    out.push({ url: `${g}://{{HOST}}:{{GRPC_PORT}}`, protocolBinding: 'GRPC', protocolVersion: '1.0' });
  }
  return out;
}

/** v0.3 mirrors for every binding that has no legacy interface yet (what `duplicateInterfacesForLegacy` does). */
function withLegacyMirrors(list: AgentInterface[]): AgentInterface[] {
  const mirrors = list
    .filter((i) => i.protocolVersion === '1.0')
    .filter((i) => !list.some((j) => j.protocolBinding === i.protocolBinding && j.protocolVersion === '0.3'))
    .map((i) => ({ ...i, protocolVersion: '0.3' }));
  return [...list, ...mirrors];
}

export async function startAgent(config: AgentConfig = {}): Promise<RunningAgent> {
  const host = config.host ?? '127.0.0.1';
  const ports: AgentPorts = {};
  const connections = { http: 0, plain: 0, hang: 0, h2garbage: 0 };
  const served = { http: 0, grpc: 0 };
  const cardStreams: CardStream[] = [];
  const sni: (string | undefined)[] = [];
  const authorizations: string[] = [];
  const closers: (() => Promise<void>)[] = [];

  const plain = config.plain ? plainHttpServer() : undefined;
  if (plain && config.plain) {
    plain.on('connection', () => connections.plain++);
    ports.plain = await listen(plain, host, config.plain.port ?? 0);
    closers.push(() => closeServer(plain));
  }
  const hang = config.hang ? hangingServer() : undefined;
  if (hang && config.hang) {
    hang.on('connection', () => connections.hang++);
    ports.hang = await listen(hang, host, config.hang.port ?? 0);
    closers.push(() => closeServer(hang));
  }
  const h2 = config.h2garbage ? h2GarbageServer() : undefined;
  if (h2 && config.h2garbage) {
    h2.on('connection', () => connections.h2garbage++);
    ports.h2garbage = await listen(h2, host, config.h2garbage.port ?? 0);
    closers.push(() => closeServer(h2));
  }

  // Listeners are bound before the card exists (ports come from the OS), so the HTTP server
  // dispatches to an app that is built once every port is known.
  const httpConfig = config.http === false ? undefined : (config.http ?? {});
  let app: RequestListener | undefined;
  const dispatch: RequestListener = (req, res) => app?.(req, res);
  let httpServer: NetServer | undefined;
  if (httpConfig) {
    const server = httpConfig.tls
      ? createHttpsServer({ cert: httpConfig.tls.cert, key: httpConfig.tls.key }, dispatch)
      : createHttpServer(dispatch);
    if (httpConfig.keepAliveMs !== undefined) server.keepAliveTimeout = httpConfig.keepAliveMs;
    server.on('connection', () => connections.http++);
    server.on('secureConnection', (socket: TLSSocket) => sni.push(socket.servername || undefined));
    ports.http = await listen(server, host, httpConfig.port ?? 0);
    httpServer = server;
    closers.push(() => closeServer(server));
  }

  let grpc: GrpcListener | undefined;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const vars = (): Record<string, string> => ({
    HOST: urlHost,
    HTTP_PORT: String(ports.http ?? ''),
    GRPC_PORT: String(ports.grpc ?? ''),
    PLAIN_PORT: String(ports.plain ?? ''),
    HANG_PORT: String(ports.hang ?? ''),
    H2_PORT: String(ports.h2garbage ?? ''),
  });

  // gRPC needs the handler at start, the handler needs the card, the card needs the gRPC port:
  // reserve the port with an unregistered start, then restart with the services.
  if (config.grpc) {
    const placeholder = new GrpcListener({
      host,
      port: config.grpc.port ?? 0,
      register: false,
      legacy: false,
      requestHandler: undefined as never, // never called: nothing is registered on this start
    });
    ports.grpc = await placeholder.start(false);
    await placeholder.stop();
  }

  const declared = substitute(config.interfaces ?? defaultInterfaces(config), vars());
  const interfaces: AgentInterface[] = declared.map((i) => ({ tenant: '', ...i }));
  const published = config.legacyCompat ? withLegacyMirrors(interfaces) : interfaces;
  const card = sdkCard(published, config.capabilities);
  const requestHandler = new RecordingRequestHandler(
    card,
    config.requireTenant,
    config.getTaskError,
    sdkCard(published, { ...config.capabilities, ...config.servedCapabilities }),
    config.replyWithTask,
    config.replyText,
  );

  if (config.grpc && ports.grpc !== undefined) {
    grpc = new GrpcListener({
      host,
      port: ports.grpc,
      tls: config.grpc.tls,
      register: config.grpc.register ?? true,
      legacy: config.legacyCompat ?? false,
      authToken: config.authToken,
      requestHandler,
      onAuthorization: (v) => authorizations.push(v),
      onCall: () => served.grpc++,
      echoHeaders: config.echoHeaders ?? false,
    });
    await grpc.start();
    const g = grpc;
    closers.push(() => g.stop());
  }

  const state: HttpAppState = {
    card: config.card ?? {},
    mode: httpConfig?.mode ?? 'a2a',
    cardJson: config.card?.json === undefined ? undefined : substitute(config.card.json, vars()),
    cardStreams,
    authorizations,
    served,
    echoHeaders: config.echoHeaders ?? false,
  };
  if (httpServer && httpConfig) {
    app = buildHttpApp({
      requestHandler,
      jsonrpcPath: httpConfig.jsonrpcPath === undefined ? '/a2a/jsonrpc' : httpConfig.jsonrpcPath,
      restPath: httpConfig.restPath === undefined ? '/a2a/rest' : httpConfig.restPath,
      legacy: config.legacyCompat ?? false,
      authToken: config.authToken,
      state,
    });
  }

  const agent: RunningAgent = {
    ports,
    host,
    seen: requestHandler.seen,
    calls: requestHandler.calls,
    connections,
    served,
    cardStreams,
    sni,
    authorizations,
    setCard(card) {
      state.card = card;
      state.cardJson = card.json === undefined ? undefined : substitute(card.json, vars());
    },
    setHttpMode(mode) {
      state.mode = mode;
    },
    stopGrpc: async () => {
      await grpc?.stop();
    },
    startGrpc: async (register) => {
      await grpc?.start(register);
    },
    close: async () => {
      for (const c of closers.reverse()) await c();
    },
  };

  if (config.control) {
    const control = controlServer(agent);
    ports.control = await listen(control, host, config.control.port ?? 0);
    closers.unshift(() => closeServer(control));
  }
  return agent;
}
