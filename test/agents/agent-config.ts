/**
 * Configuration of a test A2A agent built from the official SDK. Every field is plain JSON so
 * the same config drives `startAgent()` in-process and `agent-server.ts` as a separate "pod".
 *
 * Strings anywhere in `interfaces` and `card.json` may use placeholders, replaced once the
 * listeners are bound: `{{HOST}}`, `{{HTTP_PORT}}`, `{{GRPC_PORT}}`, `{{PLAIN_PORT}}`, `{{HANG_PORT}}`,
 * `{{H2_PORT}}`.
 */
export interface TlsFiles {
  /** PEM certificate chain and key. */
  cert: string;
  key: string;
}

export type HttpMode =
  /** SDK card, JSON-RPC and REST handlers. */
  | 'a2a'
  /** Every A2A route answers HTTP 500 with a JSON-RPC -32603 / REST INTERNAL body. */
  | 'error500';

export interface HttpListenerConfig {
  port?: number;
  tls?: TlsFiles;
  /** Mount path of the JSON-RPC handler; null leaves it unmounted. Default `/a2a/jsonrpc`. */
  jsonrpcPath?: string | null;
  /** Mount path of the REST handler; null leaves it unmounted. Default `/a2a/rest`. */
  restPath?: string | null;
  mode?: HttpMode;
  /**
   * How long the server keeps an idle connection (Node's `server.keepAliveTimeout`, which it also
   * sends as `Keep-Alive: timeout=`). Default Node's, 5 s.
   */
  keepAliveMs?: number;
}

export interface GrpcListenerConfig {
  port?: number;
  tls?: TlsFiles;
  /** Register the A2A service(s). false: the server runs and answers UNIMPLEMENTED. Default true. */
  register?: boolean;
}

export interface CardConfig {
  /**
   * `sdk`: the SDK's card handler, v1.0 card (compat card for header-less requests when legacy
   * is on). `hybrid`: the SDK's compat card whatever the request says (the shape v0.3 clients
   * get). `json`: `json` served verbatim. `oversized`: a valid card over 1 MiB, streamed.
   * `malformed`: truncated JSON. Default `sdk`.
   *
   * Hostile modes (the fault suite): `slow`: a card that trickles one byte every `intervalMs`
   * and never ends. `huge`: `totalBytes` (default 100 MiB) of one JSON string, chunked, as
   * fast as the reader takes it. `nested`: `json` plus a member nested `depth` arrays deep.
   * `redirect`: HTTP 302 to `location`. `raw`: `text` verbatim as application/json (documents
   * JSON.stringify cannot write, such as a number `1e400`).
   */
  serve?:
    'sdk' | 'hybrid' | 'json' | 'oversized' | 'malformed' | 'slow' | 'huge' | 'nested' | 'redirect' | 'raw';
  json?: unknown;
  text?: string;
  intervalMs?: number;
  totalBytes?: number;
  depth?: number;
  location?: string;
}

/** One hostile card response as the agent saw it end (how long the reader stayed, how much it took). */
export interface CardStream {
  mode: string;
  ms: number;
  bytes: number;
}

export interface InterfaceDecl {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

export interface AgentConfig {
  /** Address every listener binds. Default 127.0.0.1. */
  host?: string;
  /** Card + JSON-RPC + REST listener. Default on (port 0). */
  http?: HttpListenerConfig | false;
  /** gRPC listener. Default off. */
  grpc?: GrpcListenerConfig | false;
  /** A plain non-A2A HTTP server (answers 200 text/html to everything). */
  plain?: { port?: number } | false;
  /** A TCP listener that accepts and never answers. */
  hang?: { port?: number } | false;
  /** A TCP listener that answers anything with an HTTP/2 server preface and then garbage. */
  h2garbage?: { port?: number } | false;
  /** Control endpoint (HTTP, loopback of `host`) to flip failure modes at runtime. */
  control?: { port?: number } | false;
  /**
   * The interfaces of the card the SDK handler holds: they decide which binding/version pairs the
   * SDK accepts. Default: JSONRPC and HTTP+JSON on the HTTP listener, GRPC when it is on, at 1.0.
   */
  interfaces?: InterfaceDecl[];
  /** Also serve v0.3 (SDK compat layer): 0.3 mirrors are added for every binding. */
  legacyCompat?: boolean;
  card?: CardConfig;
  /** Require `Authorization: Bearer <token>` on A2A calls (401 / UNAUTHENTICATED); the card stays public. */
  authToken?: string;
  /** Only this tenant finds tasks; any other tenant gets UnsupportedOperation (not TaskNotFound). */
  requireTenant?: string;
  /**
   * Every GetTask fails with this A2A error: `message` (`{{TASK_ID}}` replaced by the requested
   * id) and ErrorInfo `reason` (default UNSUPPORTED_OPERATION), over every binding. For hostile
   * answer text (the fault suite).
   */
  getTaskError?: { message: string; reason?: string };
  /**
   * Hostile echo: every A2A call is answered with an error whose message quotes the request's
   * Authorization header and then all its headers (HTTP 500 with a JSON-RPC -32603 / REST
   * INTERNAL body; gRPC INTERNAL with the metadata in the details). The card stays normal.
   */
  echoHeaders?: boolean;
  /** Answer each message with a completed Task kept in the agent's own store (JS only), not a Message. */
  replyWithTask?: boolean;
  /**
   * The text every message is answered with (default `ok`): a pod's own name here lets a client
   * calling through a Service say which pod answered (test/e2e/traffic.test.ts).
   */
  replyText?: string;
  /** `capabilities` of the card. Default: all false, no extensions. */
  capabilities?: DeclaredCapabilities;
  /**
   * What the handler serves where it differs from the card (a lying card): the SDK's own
   * capability checks follow these. Default: as declared.
   */
  servedCapabilities?: CapabilityFlags;
}

/** A capability flag as the card claims it or as the handler serves it. */
export interface CapabilityFlags {
  streaming?: boolean;
  pushNotifications?: boolean;
  extendedAgentCard?: boolean;
}

export interface DeclaredCapabilities extends CapabilityFlags {
  /** `capabilities.extensions`: a `required` one makes every A2A call without it in `A2A-Extensions` fail (ExtensionSupportRequired). */
  extensions?: { uri: string; required?: boolean }[];
}

export interface AgentPorts {
  http?: number;
  grpc?: number;
  plain?: number;
  hang?: number;
  h2garbage?: number;
  control?: number;
}

/** One GetTask the agent saw (recorded by its request handler). */
export interface SeenGetTask {
  tenant: string;
  id: string;
}
