/** The gRPC GetTask probe: a unary call on a long-lived grpc-js channel to the pod. */
import { status as GrpcStatus, type Client, type Metadata } from '@grpc/grpc-js';
import { InterfaceState } from '../api/conditions.js';
import type { CardInterface } from '../card/parsed-card.js';
import type { InterfaceEndpoint } from '../card/interface-endpoint.js';
import { abortedVerdict } from './aborted-verdict.js';
import type { AnswerMemo, MemoAnswer } from './answer-memo.js';
import { bearerTokenProblem } from './bearer-token.js';
import { classifyGrpc, grpcCodeName } from './classify-grpc.js';
import type { DialTarget } from './dial-target.js';
import { untilAborted } from './deadline.js';
import { diagnoseGrpcTransport } from './grpc-transport-diagnosis.js';
import { errorInfoReasons, isGrpcContentType, requestMetadata } from './grpc-metadata.js';
import { grpcUnary, type GrpcUnaryAnswer } from './grpc-unary.js';
import type { Verdict } from './probe-result.js';
import { redactToken } from './redact-token.js';
import type { TlsSettings } from './tls-settings.js';
import { verdict } from './verdict.js';
import { grpcGetTaskMethod, grpcGetTaskRequest } from './wire-forms.js';
import { wireOf } from '../card/bindings.js';

export interface GrpcProbeInput {
  client: Client;
  target: DialTarget;
  iface: CardInterface;
  endpoint: InterfaceEndpoint;
  taskId: string;
  timeoutMs: number;
  bearerToken?: string;
  tlsSettings?: TlsSettings;
  what: string;
  /** The caller's: an abort cancels the call and answers Pending (no verdict, no diagnosis dial). */
  signal?: AbortSignal;
  /** Verdicts of answers already classified: the same answer again is not classified again. */
  memo?: AnswerMemo;
}

export interface GrpcProbeOutcome {
  verdict: Verdict;
  /** The channel failed at the transport level and should be replaced. */
  transportFailed: boolean;
  /** The connection broke (UNAVAILABLE, CANCELLED): worth one more try on a fresh channel. */
  retryable: boolean;
}

export async function probeGrpc(input: GrpcProbeInput): Promise<GrpcProbeOutcome> {
  const { iface, endpoint } = input;
  const method = grpcGetTaskMethod(iface.protocolVersion);
  const tokenProblem = input.bearerToken ? bearerTokenProblem(input.bearerToken) : undefined;
  if (tokenProblem) {
    // grpc-js throws on such metadata with the whole value in the message; refused before it can.
    return {
      verdict: verdict(InterfaceState.Ineligible, `${input.what}: ${tokenProblem}; not dialled`, {}),
      transportFailed: false,
      retryable: false,
    };
  }
  const metadata = requestMetadata(iface, input.bearerToken);
  const aborted = (): GrpcProbeOutcome => ({
    verdict: abortedVerdict(input.what),
    transportFailed: false,
    retryable: false,
  });
  if (input.signal?.aborted) return aborted();
  const result = await unaryCall(
    input,
    method,
    grpcGetTaskRequest(iface.protocolVersion, input.taskId, iface.tenant),
    metadata,
  );
  // Cancelled by our caller: no verdict, and the channel is not to blame (kept).
  if (input.signal?.aborted) return aborted();
  const evidence = { request: method, grpcCode: result.code, grpcCodeName: grpcCodeName(result.code) };
  // grpc-js reports a transport failure as UNAVAILABLE, and a connection lost mid-call as CANCELLED.
  if (result.code === GrpcStatus.UNAVAILABLE || result.code === GrpcStatus.CANCELLED) {
    let diagnosed: Verdict;
    try {
      // The diagnosis dial ends at its own timeout; the caller is answered at once on abort.
      diagnosed = await untilAborted(
        diagnoseGrpcTransport({
          target: input.target,
          tls: endpoint.tls,
          urlHost: endpoint.host,
          tlsSettings: input.tlsSettings,
          timeoutMs: input.timeoutMs,
          what: input.what,
          evidence,
          grpcDetails: result.details,
        }),
        input.signal,
      );
    } catch {
      return aborted();
    }
    return { verdict: diagnosed, transportFailed: true, retryable: true };
  }
  const grpcContentType = isGrpcContentType(result.headers) || isGrpcContentType(result.trailers);
  const exchange = { what: input.what, request: method, bearerSent: !!input.bearerToken };
  // A timeout's verdict quotes the timeout, which is not in the key: not kept.
  const key =
    result.code === GrpcStatus.DEADLINE_EXCEEDED
      ? undefined
      : input.memo?.key(exchange, memoAnswer(result, grpcContentType), input.taskId);
  const known = input.memo?.get(iface, key);
  if (known) return { verdict: known, transportFailed: false, retryable: false };
  const classified = classifyGrpc(
    {
      code: result.code,
      details: result.details,
      errorInfoReasons: errorInfoReasons(result.trailers),
      grpcContentType,
    },
    { ...exchange, version: iface.protocolVersion, timeoutMs: input.timeoutMs },
  );
  let v: Verdict;
  if (classified.state === InterfaceState.Unimplemented) {
    // Not kept: the verdict depends on a second answer too.
    v = input.signal?.aborted ? classified : await otherServiceHint(classified, input, metadata);
  } else {
    v = key === undefined ? classified : input.memo!.set(iface, key, classified, input.taskId);
  }
  return { verdict: v, transportFailed: result.code === GrpcStatus.DEADLINE_EXCEEDED, retryable: false };
}

/**
 * A gRPC answer in the memo's three parts: the code, whether it came as gRPC, and a text holding
 * the status message (length first, so no two answers read alike) and the raw status details.
 */
function memoAnswer(result: GrpcUnaryAnswer, grpcContentType: boolean): MemoAnswer {
  const bin = result.trailers.get('grpc-status-details-bin')[0];
  const details = typeof bin === 'string' ? bin : (bin?.toString('latin1') ?? '');
  return {
    status: result.code,
    contentType: grpcContentType ? 'application/grpc' : '',
    body: `${result.details.length}\n${result.details}\n${details}`,
  };
}

/** One unary call on the client's channel (grpc-unary.ts), cancelled by the caller's abort. */
async function unaryCall(
  input: GrpcProbeInput,
  method: string,
  message: Buffer,
  metadata: Metadata,
): Promise<GrpcUnaryAnswer> {
  const answer = await grpcUnary(input.client.getChannel(), {
    method,
    message,
    metadata,
    deadline: Date.now() + input.timeoutMs,
    signal: input.signal,
  });
  // The server's (or grpc-js's) words, quoted by the classifiers: an echoed token is cut out first.
  return { ...answer, details: redactToken(answer.details, input.bearerToken) };
}

/**
 * The declared version's service is not registered: is the other version's? A v0.3 interface on
 * a server with only `lf.a2a.v1.A2AService` (or a 1.x one on a server with only the v0.3 /
 * 1.0-rc `a2a.v1.A2AService`) is a common slip, and the fix names the missing service. The
 * state stays Unimplemented: a client of the declared version finds nothing.
 */
async function otherServiceHint(v: Verdict, input: GrpcProbeInput, metadata: Metadata): Promise<Verdict> {
  const declared = input.iface.protocolVersion;
  const v03 = wireOf(declared) === 'v0.3';
  const otherVersion = v03 ? '1.0' : '0.3';
  const md = metadata.clone();
  md.set('a2a-version', otherVersion);
  const other = await unaryCall(
    input,
    grpcGetTaskMethod(otherVersion),
    grpcGetTaskRequest(otherVersion, input.taskId, input.iface.tenant),
    md,
  );
  // UNIMPLEMENTED, or a transport failure: the other service is not there either.
  if (
    other.code === GrpcStatus.UNIMPLEMENTED ||
    other.code === GrpcStatus.UNAVAILABLE ||
    other.code === GrpcStatus.CANCELLED ||
    other.code === GrpcStatus.DEADLINE_EXCEEDED ||
    !(isGrpcContentType(other.headers) || isGrpcContentType(other.trailers))
  )
    return v;
  const hint = v03
    ? `only lf.a2a.v1.A2AService (the v1.x service) answers (${grpcCodeName(other.code)}); the v0.3 service a2a.v1.A2AService is missing: register the SDK's v0.3 compatibility service, or declare this interface as 1.0`
    : `only a2a.v1.A2AService (the v0.3 / 1.0-rc service) answers (${grpcCodeName(other.code)}); the v1.x service lf.a2a.v1.A2AService is missing: upgrade the server's A2A proto to v1.0, or declare this interface as 0.3`;
  return verdict(v.state, `${v.message}; ${hint}`, v.evidence);
}
