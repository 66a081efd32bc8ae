/**
 * A client in a pod (bundled into the agent image as /app/traffic-client.mjs): it loops, each
 * round fetching the operator's advertised card (the chart's card endpoint,
 * `GET /cards/<namespace>/<name>`) and calling every interface that card lists once with the
 * official SDK client (`ClientFactory` over the card narrowed to that interface), until SIGTERM.
 * Every call opens a new connection (HTTP `connection: close`, a new gRPC channel), so the
 * Service's ClusterIP picks a backend per call (kube-proxy), as for a fleet of clients.
 *
 *   node /app/traffic-client.mjs '{"cardUrl": "http://10.112.0.9/cards/ns/agent", "timeoutMs": 10000, "pauseMs": 200}'
 *
 * Prints one JSON line per event (test/e2e/traffic.test.ts reads them with `kubectl logs`):
 *   {"kind":"card","at":…,"bindings":["JSONRPC",…]}           the card changed (or "error" when unavailable)
 *   {"kind":"call","binding":"GRPC","tc":…,"t0":…,"t1":…,"pod":"name"}       answered, by that pod
 *   {"kind":"call","binding":"GRPC","tc":…,"t0":…,"t1":…,"cause":"refused","error":"…"}   failed
 * tc is when the card the call followed was fetched; t0/t1 bound the call (epoch ms: the pod
 * shares the node's clock with the test). The agents answer with their pod's name (replyText).
 */
import { randomUUID } from 'node:crypto';
import { credentials } from '@grpc/grpc-js';
import type { AgentCard, AgentInterface } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { textMessageRequest } from '../../src/client/text-message.js';

interface Options {
  cardUrl: string;
  timeoutMs?: number;
  pauseMs?: number;
}

const opts = JSON.parse(process.argv[2] ?? '{}') as Options;
if (!opts.cardUrl) {
  process.stderr.write('usage: traffic-client.mjs \'{"cardUrl": "http://…/cards/<ns>/<name>"}\'\n');
  process.exit(2);
}
const timeoutMs = opts.timeoutMs ?? 10_000;
const pauseMs = opts.pauseMs ?? 200;

/** A new TCP connection per request: no keep-alive pins the client to one backend of the Service. */
const closingFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('connection', 'close');
  return fetch(input, { ...init, headers });
};

const print = (line: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/** Why a call failed, from the error chain's names, codes and messages. */
export function failureCause(err: unknown): { cause: string; error: string } {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && depth < 6; depth++) {
    const x = e as { name?: unknown; code?: unknown; message?: unknown; details?: unknown; cause?: unknown };
    for (const v of [x.name, x.code, x.message, x.details])
      if (v !== undefined && v !== '') parts.push(String(v));
    e = x.cause;
  }
  const text = parts.join(' | ');
  const cause = /ECONNREFUSED/.test(text)
    ? 'refused'
    : /ECONNRESET|EPIPE|socket hang up|other side closed/i.test(text)
      ? 'reset'
      : /TimeoutError|AbortError|DEADLINE_EXCEEDED|Deadline exceeded|timed? ?out/i.test(text)
        ? 'timeout'
        : /UNIMPLEMENTED/i.test(text)
          ? 'unimplemented'
          : /UNAVAILABLE|No connection established/i.test(text)
            ? 'unavailable'
            : 'other';
  return { cause, error: text.slice(0, 300) };
}

/** grpc-js dials a target (`host:port`), not a URL: what the card's `http://host:port` names. */
function dialUrl(i: AgentInterface): string {
  if (i.protocolBinding !== 'GRPC' || !/^https?:\/\//.test(i.url)) return i.url;
  return new URL(i.url).host;
}

/** One sendMessage over exactly this interface; resolves to the answering pod (the reply text). */
async function callOnce(card: AgentCard, iface: AgentInterface): Promise<string> {
  const grpc = new GrpcTransportFactory({
    grpcChannelCredentials: credentials.createInsecure(),
    grpcCallOptions: { deadline: Date.now() + timeoutMs },
  });
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl: closingFetch }),
      new RestTransportFactory({ fetchImpl: closingFetch }),
      grpc,
    ],
  });
  const client = await factory.createFromAgentCard({
    ...card,
    supportedInterfaces: [{ ...iface, url: dialUrl(iface) }],
  });
  try {
    const result = await client.sendMessage(textMessageRequest('which pod?', { messageId: randomUUID() }), {
      signal: AbortSignal.timeout(timeoutMs),
    });
    const parts = 'parts' in result ? result.parts : [];
    const text = parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    if (!text) throw new Error(`answer without text: ${JSON.stringify(result).slice(0, 200)}`);
    return text;
  } finally {
    // The SDK's gRPC transport keeps its grpc-js client in a field its types do not show
    // (src/client/interface-client.ts closes it the same way); a channel per call must be closed.
    const transport = (client as unknown as { transport?: { grpcClient?: { close?: () => void } } })
      .transport;
    transport?.grpcClient?.close?.();
  }
}

let stopping = false;
process.once('SIGTERM', () => (stopping = true));
process.once('SIGINT', () => (stopping = true));

const resolver = new DefaultAgentCardResolver({ fetchImpl: closingFetch });
let lastCard = '';
while (!stopping) {
  const tc = Date.now();
  let card: AgentCard | undefined;
  try {
    card = await resolver.resolve(opts.cardUrl, '');
  } catch (err) {
    const shown = JSON.stringify({ error: failureCause(err).error });
    if (shown !== lastCard) print({ kind: 'card', at: tc, ...(JSON.parse(shown) as object) });
    lastCard = shown;
  }
  if (card) {
    const shown = JSON.stringify({ bindings: card.supportedInterfaces.map((i) => i.protocolBinding) });
    if (shown !== lastCard) print({ kind: 'card', at: tc, ...(JSON.parse(shown) as object) });
    lastCard = shown;
    for (const iface of card.supportedInterfaces) {
      const t0 = Date.now();
      try {
        const pod = await callOnce(card, iface);
        print({ kind: 'call', binding: iface.protocolBinding, tc, t0, t1: Date.now(), pod });
      } catch (err) {
        print({ kind: 'call', binding: iface.protocolBinding, tc, t0, t1: Date.now(), ...failureCause(err) });
      }
    }
  }
  await new Promise((r) => setTimeout(r, pauseMs));
}
process.exit(0);
