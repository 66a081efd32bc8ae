/**
 * One official SDK client per candidate interface, made by the SDK's own `ClientFactory` from
 * the card narrowed to that one interface (so the SDK's tenant, version and v0.3 handling
 * apply unchanged), and the classification of its failures by the probes' classifiers.
 */
import { credentials as grpcCredentials, type ChannelCredentials } from '@grpc/grpc-js';
import type { AgentCard } from '@a2a-js/sdk';
import type { Client, TransportFactory } from '@a2a-js/sdk/client';
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { ProtocolBinding } from '../card/index.js';
import { classifyCallFailure, type CallVerdict } from '../probe/call-failure.js';
import { diagnoseGrpcTransport } from '../probe/grpc-transport-diagnosis.js';
import { capturingFetch, capturingInterceptor, type CallCapture } from './call-capture.js';
import type { Candidate } from './candidates.js';

export interface TransportOptions {
  fetch: typeof fetch;
  /** PEM CA bundle for gRPC over TLS (HTTP bindings use `fetch`'s own TLS settings). */
  grpcCa?: string;
  /** How long a gRPC connection failure's diagnosis dial may take. */
  diagnosisTimeoutMs: number;
  /** Whether the caller sends credentials (changes only what an auth verdict says). */
  bearerSent: boolean;
}

/** The URL the SDK transport dials: gRPC as `host:port` (grpc-js wants a target, not a URL). */
function transportUrl(c: Candidate): string {
  if (c.protocolBinding !== ProtocolBinding.GRPC) return c.url;
  const host = c.endpoint.host.includes(':') ? `[${c.endpoint.host}]` : c.endpoint.host;
  return `${host}:${c.endpoint.port}`;
}

/** The card as the SDK sees it for one candidate: v1.0 shape, that interface only. */
function narrowedCard(raw: Record<string, unknown>, c: Candidate): AgentCard {
  const { url: _u, preferredTransport: _p, additionalInterfaces: _a, protocolVersion: _v, ...rest } = raw;
  return {
    ...(rest as unknown as AgentCard),
    supportedInterfaces: [
      {
        url: transportUrl(c),
        protocolBinding: c.protocolBinding,
        protocolVersion: c.protocolVersion,
        tenant: c.tenant ?? '',
      },
    ],
  };
}

/** An SDK client of one interface, and the release of the connections it opened. */
export interface InterfaceClient {
  client: Client;
  /** Closes its gRPC channel (HTTP connections belong to the `fetch` it was given). Idempotent. */
  close(): void;
}

/**
 * The SDK's gRPC transports hold their grpc-js client in a field the SDK types do not show, and
 * offer no close of their own; closing that client shuts the channel down. The client-close
 * integration test fails if the SDK moves it.
 */
function closeTransport(t: unknown): void {
  (t as { grpcClient?: { close?: () => void } } | null)?.grpcClient?.close?.();
}

/** A gRPC transport factory that remembers what it made, so that it can be closed. */
function closableGrpc(inner: GrpcTransportFactory): { factory: TransportFactory; close(): void } {
  const made: unknown[] = [];
  let closed = false;
  return {
    factory: {
      protocolName: inner.protocolName,
      async create(url, card) {
        const t = await inner.create(url, card);
        if (closed) closeTransport(t);
        else made.push(t);
        return t;
      },
    },
    close() {
      closed = true;
      for (const t of made.splice(0)) closeTransport(t);
    },
  };
}

export async function createInterfaceClient(
  raw: Record<string, unknown>,
  c: Candidate,
  opts: TransportOptions,
): Promise<InterfaceClient> {
  const fetchImpl = capturingFetch(opts.fetch);
  const legacyCompat = { enabled: true };
  let channel: ChannelCredentials | undefined;
  if (c.protocolBinding === ProtocolBinding.GRPC) {
    channel = c.endpoint.tls
      ? grpcCredentials.createSsl(opts.grpcCa ? Buffer.from(opts.grpcCa) : undefined)
      : grpcCredentials.createInsecure();
  }
  const grpc = closableGrpc(
    new GrpcTransportFactory({
      grpcChannelCredentials: channel,
      grpcCallOptions: { interceptors: [capturingInterceptor] },
      legacyCompat,
    }),
  );
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
      new RestTransportFactory({ fetchImpl, legacyCompat }),
      grpc.factory,
    ],
  });
  try {
    return { client: await factory.createFromAgentCard(narrowedCard(raw, c)), close: grpc.close };
  } catch (err) {
    grpc.close();
    throw err;
  }
}

function a2aReason(err: unknown): string | undefined {
  const r = (err as { reason?: unknown } | null)?.reason;
  return typeof r === 'string' && r !== 'INTERNAL_ERROR' ? r : undefined;
}

function isGrpcContentType(g: CallCapture['grpc']): boolean {
  const ct = g?.headers?.get('content-type')[0] ?? g?.trailers?.get('content-type')[0];
  return typeof ct === 'string' && ct.startsWith('application/grpc');
}

/** The verdict on a failed SDK call, from what the wire said (the capture) and the SDK's error. */
export async function classifySdkFailure(
  err: unknown,
  capture: CallCapture,
  c: Candidate,
  operation: string,
  opts: TransportOptions,
): Promise<CallVerdict> {
  const ctx = {
    what: `${c.protocolBinding} ${operation} at ${c.url}`,
    request: operation,
    version: c.protocolVersion,
    bearerSent: opts.bearerSent,
    tls: c.endpoint.tls,
    timeoutMs: opts.diagnosisTimeoutMs,
    a2aReason: a2aReason(err),
  };
  if (c.protocolBinding !== ProtocolBinding.GRPC) {
    if (capture.fetchError !== undefined) {
      return classifyCallFailure({ kind: 'transport', error: capture.fetchError }, ctx);
    }
    if (
      capture.http &&
      capture.http.status < 300 &&
      capture.http.contentType.startsWith('text/event-stream')
    ) {
      return classifyCallFailure({ kind: 'stream', error: err }, ctx);
    }
    if (capture.http) {
      let body: Buffer;
      try {
        body = await capture.http.body;
      } catch (bodyErr) {
        // The answer began and then broke off: delivered, so never safe to replay.
        return classifyCallFailure({ kind: 'transport', error: bodyErr, afterHeaders: true }, ctx);
      }
      return classifyCallFailure(
        {
          kind: 'http',
          binding: c.protocolBinding === ProtocolBinding.JSONRPC ? 'JSONRPC' : 'HTTP+JSON',
          answer: { status: capture.http.status, contentType: capture.http.contentType, body },
        },
        ctx,
      );
    }
    // No fetch was made (the SDK refused the input, or no client could be built): nothing was sent.
    return { ...classifyCallFailure({ kind: 'transport', error: err }, ctx), requestSent: false };
  }
  const status = (err as { status?: unknown; code?: unknown } | null) ?? {};
  const code =
    typeof status.status === 'number' ? status.status : typeof status.code === 'number' ? status.code : 2;
  const cause = (err as { cause?: { details?: unknown } } | null)?.cause;
  const details = typeof cause?.details === 'string' ? cause.details : '';
  const dispatched = capture.grpc?.dispatched ?? false;
  const bin = (err as { statusDetailsBin?: unknown } | null)?.statusDetailsBin;
  const verdict = classifyCallFailure(
    {
      kind: 'grpc',
      code,
      details,
      statusDetailsBin: Buffer.isBuffer(bin) ? bin : undefined,
      grpcContentType: isGrpcContentType(capture.grpc),
      dispatched,
    },
    ctx,
  );
  if (!dispatched && verdict.verdict.state === 'Unreachable') {
    // No connection was ever made: the probe's diagnosis dial (an HTTP/2 preface, no request)
    // names what answers there instead: refused, TLS, or an HTTP/1.1 server (WrongBinding).
    const diagnosed = await diagnoseGrpcTransport({
      target: { address: c.endpoint.host, port: c.endpoint.port },
      tls: c.endpoint.tls,
      urlHost: c.endpoint.host,
      tlsSettings: opts.grpcCa ? { ca: opts.grpcCa } : undefined,
      timeoutMs: opts.diagnosisTimeoutMs,
      what: ctx.what,
      evidence: verdict.verdict.evidence,
      grpcDetails: details,
    });
    return { verdict: diagnosed, requestSent: false };
  }
  return verdict;
}
