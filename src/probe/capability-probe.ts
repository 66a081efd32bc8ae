/**
 * Sends one capability call (capability-wire.ts) over a pooled HTTP connection or gRPC channel and
 * reduces the answer to a CapabilityAnswer. A stream is read only to its first event (or message)
 * and then closed at once; every call ends within the probe timeout.
 */
import type { Client } from '@grpc/grpc-js';
import { ProtocolBinding } from '../card/bindings.js';
import type { Capability } from '../card/card-claims.js';
import type { InterfaceEndpoint } from '../card/interface-endpoint.js';
import type { CardInterface } from '../card/parsed-card.js';
import {
  CapabilitySignal,
  grpcCapabilityAnswer,
  jsonRpcCapabilityAnswer,
  restCapabilityAnswer,
  type CapabilityAnswer,
} from './classify-capability.js';
import {
  grpcCapabilityCall as grpcCallFor,
  jsonRpcCapabilityCall,
  restCapabilityCall,
} from './capability-wire.js';
import { errorInfoReasons, isGrpcContentType, requestMetadata } from './grpc-metadata.js';
import { grpcUnary } from './grpc-unary.js';
import { exchange } from './http-exchange.js';
import { errorCode } from './transport-failure.js';
import { extensionHeaders } from './wire-forms.js';
import type { Dispatcher } from 'undici';

/** Enough for any A2A error or a first event; the rest of a stream is never read. */
const MAX_CAPABILITY_BODY = 64 * 1024;

export interface CapabilityCallInput {
  iface: CardInterface;
  endpoint: InterfaceEndpoint;
  capability: Capability;
  taskId: string;
  timeoutMs: number;
  bearerToken?: string;
  signal?: AbortSignal;
}

export interface CapabilityCallResult {
  answer: CapabilityAnswer;
  /** What was sent, for the message. */
  request: string;
}

/**
 * Finds the end of an event stream's first `data:` event (a blank line after it) as bytes
 * arrive, looking at each byte once: a stream sent a byte at a time costs linear work.
 */
export class FirstEventScanner {
  private tail = ''; // the last few bytes, so a marker split across chunks is seen
  private seenData = false;

  /** Feeds a chunk; true once the first event with data has ended. */
  feed(chunk: Buffer): boolean {
    const text = this.tail + chunk.toString('latin1');
    let from = 0;
    if (!this.seenData) {
      const at = text.indexOf('data:');
      if (at < 0) {
        this.tail = text.slice(-4);
        return false;
      }
      this.seenData = true;
      from = at;
    }
    const rest = text.slice(from);
    if (rest.includes('\n\n') || rest.includes('\n\r\n')) return true;
    this.tail = text.slice(-4);
    return false;
  }
}

export async function sendHttpCapabilityCall(
  dispatcher: Dispatcher,
  input: CapabilityCallInput,
): Promise<CapabilityCallResult> {
  const { iface, endpoint } = input;
  const jsonRpc = iface.protocolBinding === ProtocolBinding.JSONRPC;
  const call = (jsonRpc ? jsonRpcCapabilityCall : restCapabilityCall)(
    input.capability,
    iface.protocolVersion,
    endpoint.path,
    input.taskId,
    iface.tenant,
  );
  const headers: Record<string, string> = {
    host: endpoint.authority,
    'a2a-version': iface.protocolVersion,
    accept: call.stream
      ? 'text/event-stream, application/json, application/a2a+json'
      : jsonRpc
        ? 'application/json'
        : 'application/a2a+json, application/json',
    ...extensionHeaders(iface.protocolVersion, iface.requiredExtensions),
  };
  if (call.body !== undefined || (!jsonRpc && call.method === 'POST'))
    headers['content-type'] = 'application/json';
  if (input.bearerToken) headers.authorization = `Bearer ${input.bearerToken}`;
  try {
    const res = await exchange(dispatcher, {
      method: call.method,
      path: `${call.path}${endpoint.query}`,
      headers,
      body: call.body ?? (!jsonRpc && call.method === 'POST' ? '{}' : undefined),
      timeoutMs: input.timeoutMs,
      maxBodyBytes: MAX_CAPABILITY_BODY,
      signal: input.signal,
      readUntil: (contentType) => {
        if (!/^\s*text\/event-stream/i.test(contentType)) return undefined;
        const scanner = new FirstEventScanner();
        return (chunk) => scanner.feed(chunk);
      },
    });
    const answer = { status: res.status, contentType: res.contentType, body: res.body };
    return {
      answer: jsonRpc ? jsonRpcCapabilityAnswer(answer) : restCapabilityAnswer(answer),
      request: call.label,
    };
  } catch (err) {
    return {
      answer: { signal: CapabilitySignal.Other, shown: `no answer (${errorCode(err) ?? 'UNKNOWN'})` },
      request: call.label,
    };
  }
}

export async function sendGrpcCapabilityCall(
  client: Client,
  input: CapabilityCallInput,
): Promise<CapabilityCallResult> {
  const { iface } = input;
  const call = grpcCallFor(input.capability, iface.protocolVersion, input.taskId, iface.tenant);
  const metadata = requestMetadata(iface, input.bearerToken);
  const deadline = Date.now() + input.timeoutMs;
  const outcome = await grpcUnary(client.getChannel(), {
    method: call.method,
    message: call.request,
    metadata,
    deadline,
    signal: input.signal,
    firstMessage: call.stream,
  });
  return {
    answer: grpcCapabilityAnswer(
      outcome.code,
      errorInfoReasons(outcome.trailers),
      isGrpcContentType(outcome.headers) || isGrpcContentType(outcome.trailers),
      iface.protocolVersion,
    ),
    request: call.method,
  };
}
