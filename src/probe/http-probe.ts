/** JSON-RPC and HTTP+JSON GetTask probes over a pooled undici connection to the pod. */
import { wireOf } from '../card/bindings.js';
import type { Dispatcher } from 'undici';
import { ProtocolBinding } from '../card/bindings.js';
import type { CardInterface } from '../card/parsed-card.js';
import type { InterfaceEndpoint } from '../card/interface-endpoint.js';
import { InterfaceState } from '../api/conditions.js';
import { bearerTokenProblem } from './bearer-token.js';
import { exchange } from './http-exchange.js';
import { abortedVerdict } from './aborted-verdict.js';
import type { AnswerMemo } from './answer-memo.js';
import { classifyJsonRpc } from './classify-jsonrpc.js';
import { classifyRest } from './classify-rest.js';
import type { HttpAnswer, HttpProbeContext } from './http-answer.js';
import type { Verdict } from './probe-result.js';
import { redactToken } from './redact-token.js';
import { classifyTransportFailure } from './transport-failure.js';
import { verdict } from './verdict.js';
import { extensionHeaders, jsonRpcGetTaskBody, restGetTaskPath } from './wire-forms.js';

/** Enough for any A2A error body; a bigger answer is cut (and is not an A2A error anyway). */
export const MAX_PROBE_BODY_BYTES = 64 * 1024;

export interface HttpProbeInput {
  dispatcher: Dispatcher;
  iface: CardInterface;
  endpoint: InterfaceEndpoint;
  taskId: string;
  timeoutMs: number;
  bearerToken?: string;
  /** Describes the attempt for messages: binding, version, URL, dialled address. */
  what: string;
  /** The caller's: an abort cuts the request and answers Pending (no verdict). */
  signal?: AbortSignal;
  /** Verdicts of answers already classified: the same answer again is not classified again. */
  memo?: AnswerMemo;
}

export async function probeHttpBinding(input: HttpProbeInput): Promise<Verdict> {
  const { iface, endpoint } = input;
  const tokenProblem = input.bearerToken ? bearerTokenProblem(input.bearerToken) : undefined;
  // undici refuses such a header value; refused here so no error about it can quote it.
  if (tokenProblem)
    return verdict(InterfaceState.Ineligible, `${input.what}: ${tokenProblem}; not dialled`, {});
  const jsonRpc = iface.protocolBinding === ProtocolBinding.JSONRPC;
  const path = jsonRpc
    ? `${endpoint.path || '/'}${endpoint.query}`
    : `${restGetTaskPath(iface.protocolVersion, endpoint.path, input.taskId, iface.tenant)}${endpoint.query}`;
  const method = jsonRpc ? 'POST' : 'GET';
  const request = jsonRpc
    ? `POST ${path} ${wireOf(iface.protocolVersion) === 'v1' ? 'GetTask' : 'tasks/get'}`
    : `GET ${path}`;
  const headers: Record<string, string> = {
    host: endpoint.authority,
    'a2a-version': iface.protocolVersion,
    accept: jsonRpc ? 'application/json' : 'application/a2a+json, application/json',
    ...extensionHeaders(iface.protocolVersion, iface.requiredExtensions),
  };
  if (jsonRpc) headers['content-type'] = 'application/json';
  if (input.bearerToken) headers.authorization = `Bearer ${input.bearerToken}`;
  const ctx: HttpProbeContext = {
    what: input.what,
    request,
    version: iface.protocolVersion,
    bearerSent: !!input.bearerToken,
  };
  const send = async (reqPath: string): Promise<HttpAnswer> => {
    const answer = await exchange(input.dispatcher, {
      method,
      path: reqPath,
      headers,
      body: jsonRpc ? jsonRpcGetTaskBody(iface.protocolVersion, input.taskId, iface.tenant) : undefined,
      timeoutMs: input.timeoutMs,
      maxBodyBytes: MAX_PROBE_BODY_BYTES,
      signal: input.signal,
    });
    return {
      status: answer.status,
      contentType: answer.contentType,
      body: withoutToken(answer.body, input.bearerToken),
    };
  };
  try {
    const answer = await send(path);
    const { memo } = input;
    const key = memo?.key(ctx, answer, input.taskId);
    const known = memo?.get(iface, key);
    if (known) return known;
    const v = jsonRpc ? classifyJsonRpc(answer, ctx) : classifyRest(answer, ctx);
    if (!jsonRpc && v.state === InterfaceState.Unimplemented && wireOf(iface.protocolVersion) === 'v0.3') {
      // Not kept: the verdict depends on a second answer too.
      return await unprefixedHint(v, endpoint, input, send);
    }
    return key === undefined ? v : memo!.set(iface, key, v, input.taskId);
  } catch (err) {
    if (input.signal?.aborted) return abortedVerdict(input.what);
    // Classified by its code only: an error's text may quote the request it failed on.
    return classifyTransportFailure(err, {
      what: input.what,
      tls: endpoint.tls,
      timeoutMs: input.timeoutMs,
      evidence: { request },
    });
  }
}

/**
 * A v0.3 REST interface with no route at `/v1/tasks/{id}`: does the server answer at the
 * unprefixed v1.0 path instead (a2a-go's v0.3 compat layer does)? Then the message says so, since
 * the fix is on the server's side (mount v0.3 under `/v1`, or declare the interface 1.0). The
 * state stays Unimplemented: a v0.3 client asks for `/v1/...` and finds nothing.
 */
async function unprefixedHint(
  v: Verdict,
  endpoint: InterfaceEndpoint,
  input: HttpProbeInput,
  send: (path: string) => Promise<HttpAnswer>,
): Promise<Verdict> {
  const unprefixed = `${restGetTaskPath('1.0', endpoint.path, input.taskId, undefined)}${endpoint.query}`;
  let other: Verdict;
  try {
    other = classifyRest(await send(unprefixed), {
      what: input.what,
      request: `GET ${unprefixed}`,
      version: input.iface.protocolVersion,
      bearerSent: !!input.bearerToken,
    });
  } catch {
    return v; // the hint is optional; the first answer stands
  }
  if (other.state !== InterfaceState.Verified) return v;
  return verdict(
    v.state,
    `${v.message}. The server answers TaskNotFound at the unprefixed v1.0 path ${unprefixedPathShown(endpoint)} instead: it serves v0.3 REST without the /v1 prefix that v0.3 §3.5.6 requires (v0.3 clients ask for ${endpoint.path}/v1/tasks/{id}); mount the v0.3 REST routes under /v1, or declare this interface as 1.0 if it speaks the v1.0 payloads`,
    v.evidence,
  );
}

function unprefixedPathShown(endpoint: InterfaceEndpoint): string {
  return `${endpoint.path}/tasks/{id}`;
}

/**
 * The body with the token cut out before any classifier quotes from it (an agent may echo the
 * request headers in its errors). The token is visible ASCII, so a latin1 round trip keeps
 * every other byte as it was.
 */
function withoutToken(body: Buffer, token: string | undefined): Buffer {
  if (!token) return body;
  const text = body.toString('latin1');
  const redacted = redactToken(text, token);
  return redacted === text ? body : Buffer.from(redacted, 'latin1');
}
