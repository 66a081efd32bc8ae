/** The gRPC GetTask probe: a unary call on a long-lived grpc-js channel to the pod. */
import {
  Metadata,
  status as GrpcStatus,
  type Client,
  type InterceptingCall,
  type Interceptor,
  InterceptingCall as Call,
  type ServiceError,
} from '@grpc/grpc-js';
import { InterfaceState } from '../api/conditions.js';
import type { CardInterface } from '../card/parsed-card.js';
import type { InterfaceEndpoint } from '../card/interface-endpoint.js';
import { abortedVerdict } from './aborted-verdict.js';
import { bearerTokenProblem } from './bearer-token.js';
import { classifyGrpc, grpcCodeName } from './classify-grpc.js';
import type { DialTarget } from './dial-target.js';
import { untilAborted } from './deadline.js';
import { diagnoseGrpcTransport } from './grpc-transport-diagnosis.js';
import { decodeRpcStatus } from './grpc-wire-messages.js';
import type { Verdict } from './probe-result.js';
import { redactToken } from './redact-token.js';
import type { TlsSettings } from './tls-settings.js';
import { verdict } from './verdict.js';
import { grpcGetTaskMethod, grpcGetTaskRequest } from './wire-forms.js';

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
}

export interface GrpcProbeOutcome {
  verdict: Verdict;
  /** The channel failed at the transport level and should be replaced. */
  transportFailed: boolean;
  /** The connection broke (UNAVAILABLE, CANCELLED): worth one more try on a fresh channel. */
  retryable: boolean;
}

function isGrpcContentType(md: Metadata | undefined): boolean {
  const ct = md?.get('content-type')[0];
  return typeof ct === 'string' && ct.startsWith('application/grpc');
}

function errorInfoReasons(md: Metadata | undefined): string[] {
  const bin = md?.get('grpc-status-details-bin')[0];
  if (!Buffer.isBuffer(bin)) return [];
  try {
    return decodeRpcStatus(bin).errorInfos.map((e) => e.reason);
  } catch {
    return []; // undecodable details prove nothing; the code alone is classified
  }
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
  const metadata = new Metadata();
  metadata.set('a2a-version', iface.protocolVersion);
  if (input.bearerToken) metadata.set('authorization', `Bearer ${input.bearerToken}`);
  let headers: Metadata | undefined;
  const captureHeaders: Interceptor = (options, nextCall): InterceptingCall =>
    new Call(nextCall(options), {
      start: (md, listener, next) =>
        next(md, {
          onReceiveMetadata: (m, n) => {
            headers = m;
            n(m);
          },
        }),
    });
  const aborted = (): GrpcProbeOutcome => ({
    verdict: abortedVerdict(input.what),
    transportFailed: false,
    retryable: false,
  });
  if (input.signal?.aborted) return aborted();
  const result = await new Promise<{ code: number; details: string; trailers?: Metadata }>((resolve) => {
    const call = input.client.makeUnaryRequest(
      method,
      (b: Buffer) => b,
      (b: Buffer) => b,
      grpcGetTaskRequest(iface.protocolVersion, input.taskId, iface.tenant),
      metadata,
      { deadline: Date.now() + input.timeoutMs, interceptors: [captureHeaders] },
      (err: ServiceError | null) => {
        if (!err) resolve({ code: GrpcStatus.OK, details: '' });
        // The server's (or grpc-js's) words, quoted by the classifiers: an echoed token is cut out first.
        else
          resolve({
            code: err.code,
            details: redactToken(err.details ?? '', input.bearerToken),
            trailers: err.metadata,
          });
      },
    );
    const cancel = () => call.cancel();
    input.signal?.addEventListener('abort', cancel, { once: true });
    call.on('status', () => input.signal?.removeEventListener('abort', cancel));
  });
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
  const classified = classifyGrpc(
    {
      code: result.code,
      details: result.details,
      errorInfoReasons: errorInfoReasons(result.trailers),
      grpcContentType: isGrpcContentType(headers) || isGrpcContentType(result.trailers),
    },
    {
      what: input.what,
      request: method,
      version: iface.protocolVersion,
      bearerSent: !!input.bearerToken,
      timeoutMs: input.timeoutMs,
    },
  );
  return {
    verdict: classified,
    transportFailed: result.code === GrpcStatus.DEADLINE_EXCEEDED,
    retryable: false,
  };
}
