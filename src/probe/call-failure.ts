/**
 * A failed client call (not a probe) judged by the probes' own classifiers, so the operator, the
 * CLI and the failover client speak one vocabulary. What a call adds to a probe is one question:
 * may the request have reached the agent? A probe never asks it (GetTask has no side effect);
 * a client must, because replaying a SendMessage the agent already read creates a second task.
 *
 * So a call's WrongBinding is a probe's WrongBinding only where the answer proves no handler
 * read the request (the failover client replays it elsewhere): HTTP 415, an answer that is not
 * HTTP/1 at all (HPE_INVALID_CONSTANT, an HTTP/2 SETTINGS frame), and the connection-level
 * cases where nothing was sent (ALPN refused, the gRPC diagnosis dial). Any other WrongBinding
 * after the request left (a 2xx whose body is empty, not JSON or cut at the capture cap; a
 * malformed header or chunk; an HTTP/2 answer without a gRPC status) is Inconclusive: the
 * handler may have acted before its answer broke.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { InterfaceState } from '../api/conditions.js';
import { classifyGrpc } from './classify-grpc.js';
import { classifyJsonRpc } from './classify-jsonrpc.js';
import { classifyRest } from './classify-rest.js';
import { errorInfoReasonsOf } from './grpc-wire-messages.js';
import type { HttpAnswer } from './http-answer.js';
import type { Verdict } from './probe-result.js';
import { classifyTransportFailure, errorCode, failedBeforeRequest } from './transport-failure.js';
import { verdict } from './verdict.js';

export type CallAnswer =
  /** An HTTP answer arrived (any status): the request was delivered. */
  | { kind: 'http'; binding: 'JSONRPC' | 'HTTP+JSON'; answer: HttpAnswer }
  /**
   * A gRPC call ended with a status. `dispatched`: the call was started on a connected
   * channel (the request may have been sent); false when no connection was ever made.
   */
  | {
      kind: 'grpc';
      code: number;
      details: string;
      statusDetailsBin?: Buffer;
      grpcContentType: boolean;
      dispatched: boolean;
    }
  /**
   * No usable answer: the connection, TLS or HTTP framing failed (the error's `code` decides).
   * `afterHeaders`: an HTTP/1 status line and headers had arrived and the body then broke off.
   */
  | { kind: 'transport'; error: unknown; afterHeaders?: boolean }
  /** An event stream was accepted (2xx `text/event-stream`) and then failed: the agent was working on it. */
  | { kind: 'stream'; error: unknown };

export interface CallContext {
  /** `JSONRPC SendMessage at agent.internal:8443/a2a/jsonrpc`, for messages. */
  what: string;
  /** The method or path called. */
  request: string;
  version: string;
  bearerSent: boolean;
  tls: boolean;
  timeoutMs: number;
  /**
   * The ErrorInfo reason of an A2A error the client library decoded from the answer, if any.
   * A defined A2A error (TaskNotCancelable, UnsupportedOperation, …) is the handler's answer
   * even where a GetTask probe would find it unexpected.
   */
  a2aReason?: string;
}

export interface CallVerdict {
  verdict: Verdict;
  /** False only when the failure proves the request never left the client. */
  requestSent: boolean;
}

/** A2A errors a handler answers with after reading the request (spec 5.4); not INTERNAL or VERSION_NOT_SUPPORTED. */
const HANDLER_ANSWERS = new Set([
  'TASK_NOT_FOUND',
  'TASK_NOT_CANCELABLE',
  'PUSH_NOTIFICATION_NOT_SUPPORTED',
  'UNSUPPORTED_OPERATION',
  'CONTENT_TYPE_NOT_SUPPORTED',
  'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  'EXTENSION_SUPPORT_REQUIRED',
  'INVALID_PARAMS',
]);

function classifyAnswer(answer: CallAnswer, ctx: CallContext): CallVerdict {
  switch (answer.kind) {
    case 'http': {
      const httpCtx = {
        what: ctx.what,
        request: ctx.request,
        version: ctx.version,
        bearerSent: ctx.bearerSent,
      };
      const v =
        answer.binding === 'JSONRPC'
          ? classifyJsonRpc(answer.answer, httpCtx)
          : classifyRest(answer.answer, httpCtx);
      return { verdict: v, requestSent: true };
    }
    case 'stream':
      return {
        verdict: verdict(
          InterfaceState.Inconclusive,
          `${ctx.what}: the event stream failed after the agent accepted it (${errorCode(answer.error) ?? 'no code'})`,
          { request: ctx.request },
        ),
        requestSent: true,
      };
    case 'transport': {
      const v = classifyTransportFailure(parserErrorOf(answer.error) ?? answer.error, {
        what: ctx.what,
        tls: ctx.tls,
        timeoutMs: ctx.timeoutMs,
        evidence: { request: ctx.request },
      });
      const code = errorCode(answer.error) ?? 'UNKNOWN';
      return { verdict: v, requestSent: answer.afterHeaders === true || !failedBeforeRequest(code) };
    }
    case 'grpc': {
      const lost =
        !answer.grpcContentType &&
        (answer.code === GrpcStatus.UNAVAILABLE ||
          answer.code === GrpcStatus.CANCELLED ||
          answer.code === GrpcStatus.INTERNAL);
      if (lost) {
        // grpc-js reports a broken connection as UNAVAILABLE/CANCELLED/INTERNAL; whether the
        // request got out is all that matters here (the probe's diagnosis dial names the cause).
        return {
          verdict: verdict(
            InterfaceState.Unreachable,
            answer.dispatched
              ? `${ctx.what}: the connection was lost after the call was started (${GrpcStatus[answer.code]}); the agent may have received it`
              : `${ctx.what}: no connection could be established (${GrpcStatus[answer.code]})`,
            { request: ctx.request, grpcCode: answer.code, grpcCodeName: GrpcStatus[answer.code] },
          ),
          requestSent: answer.dispatched,
        };
      }
      const v = classifyGrpc(
        {
          code: answer.code,
          details: answer.details,
          errorInfoReasons: errorInfoReasonsOf(answer.statusDetailsBin),
          grpcContentType: answer.grpcContentType,
        },
        {
          what: ctx.what,
          request: ctx.request,
          version: ctx.version,
          bearerSent: ctx.bearerSent,
          timeoutMs: ctx.timeoutMs,
        },
      );
      return { verdict: v, requestSent: answer.dispatched };
    }
  }
}

/**
 * undici's HTTP/1 parser error on the cause chain (`fetch` wraps it in a TypeError): the probes
 * meet it bare, and classify it by its code and the bytes it stopped at.
 */
function parserErrorOf(err: unknown): unknown {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    if ((e as { name?: unknown }).name === 'HTTPParserError') return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** An HTTP/2 frame header of type SETTINGS: what an HTTP/2-only server sends first. */
function isHttp2Settings(data: unknown): boolean {
  return typeof data === 'string' && data.length >= 9 && data.charCodeAt(3) === 0x4;
}

/** Whether a WrongBinding answer proves that no handler read the request (see the top comment). */
function provesHandlerUnreached(answer: CallAnswer): boolean {
  switch (answer.kind) {
    case 'http':
      return answer.answer.status === 415;
    case 'transport': {
      if (answer.afterHeaders) return false;
      const err = parserErrorOf(answer.error) ?? answer.error;
      const code = errorCode(err);
      return (
        code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' ||
        code === 'HPE_INVALID_CONSTANT' ||
        isHttp2Settings((err as { data?: unknown }).data)
      );
    }
    case 'grpc':
    case 'stream':
      return false;
  }
}

export function classifyCallFailure(answer: CallAnswer, ctx: CallContext): CallVerdict {
  const out = classifyAnswer(answer, ctx);
  if (
    out.verdict.state === InterfaceState.WrongBinding &&
    out.requestSent &&
    !provesHandlerUnreached(answer)
  ) {
    return {
      verdict: verdict(
        InterfaceState.Inconclusive,
        `${out.verdict.message}; the request was delivered, so the handler may have acted on it (not replayed)`,
        out.verdict.evidence,
      ),
      requestSent: true,
    };
  }
  if (
    out.verdict.state === InterfaceState.Inconclusive &&
    ctx.a2aReason !== undefined &&
    HANDLER_ANSWERS.has(ctx.a2aReason)
  ) {
    return {
      verdict: verdict(
        InterfaceState.Verified,
        `${ctx.what}: the handler answered with the A2A error ${ctx.a2aReason}`,
        { ...out.verdict.evidence, errorInfoReason: ctx.a2aReason },
      ),
      requestSent: true,
    };
  }
  return out;
}
