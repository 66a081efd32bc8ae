/**
 * gRPC GetTask status → state (docs/conditions.md, "Interface reasons"). Only a NOT_FOUND that carries ErrorInfo
 * TASK_NOT_FOUND proves a v1.0 handler (a2a-python answers NOT_FOUND for unknown methods too);
 * v0.3 servers were not required to send ErrorInfo, so for v0.3 a NOT_FOUND from a gRPC server
 * is enough. Transport-level failures (UNAVAILABLE) are diagnosed elsewhere.
 */
import { EXTENSION_REQUIRED } from './classify-jsonrpc.js';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { InterfaceState } from '../api/conditions.js';
import type { ProbeEvidence, Verdict } from './probe-result.js';
import { clip, errorInfoReason, verdict } from './verdict.js';

export interface GrpcAnswer {
  code: number;
  details: string;
  errorInfoReasons: string[];
  /** Whether response headers said `application/grpc`: false means something else answered over HTTP/2. */
  grpcContentType: boolean;
}

export interface GrpcProbeContext {
  what: string;
  /** `/lf.a2a.v1.A2AService/GetTask`. */
  request: string;
  version: string;
  bearerSent: boolean;
  timeoutMs: number;
}

export function grpcCodeName(code: number): string {
  return (GrpcStatus as unknown as Record<number, string>)[code] ?? String(code);
}

export function classifyGrpc(answer: GrpcAnswer, ctx: GrpcProbeContext): Verdict {
  const S = InterfaceState;
  const name = grpcCodeName(answer.code);
  const evidence: ProbeEvidence = { request: ctx.request, grpcCode: answer.code, grpcCodeName: name };
  if (answer.errorInfoReasons[0]) evidence.errorInfoReason = answer.errorInfoReasons[0];
  if (answer.details) evidence.detail = clip(answer.details);
  const info = answer.errorInfoReasons[0]
    ? ` with ErrorInfo ${errorInfoReason(answer.errorInfoReasons[0])}`
    : ' (no ErrorInfo)';

  if (answer.code === GrpcStatus.OK) {
    return verdict(S.Verified, `${ctx.what}: ${ctx.request} answered OK (the handler is served)`, evidence);
  }
  if (
    answer.code === GrpcStatus.FAILED_PRECONDITION &&
    answer.errorInfoReasons.includes(EXTENSION_REQUIRED)
  ) {
    return verdict(
      S.Verified,
      `${ctx.what}: ${ctx.request} answered FAILED_PRECONDITION EXTENSION_SUPPORT_REQUIRED: the handler answered and requires an extension the probe did not declare; it is served`,
      evidence,
    );
  }
  if (answer.errorInfoReasons.includes('VERSION_NOT_SUPPORTED')) {
    return verdict(
      S.VersionNotSupported,
      `${ctx.what}: ${ctx.request} answered ${name} VERSION_NOT_SUPPORTED for a2a-version ${ctx.version}`,
      evidence,
    );
  }
  if (answer.code === GrpcStatus.NOT_FOUND) {
    if (
      answer.errorInfoReasons.includes('TASK_NOT_FOUND') ||
      (ctx.version === '0.3' && answer.grpcContentType)
    ) {
      return verdict(
        S.Verified,
        `${ctx.what}: ${ctx.request} answered NOT_FOUND${info} for a random id, the handler is served`,
        evidence,
      );
    }
    return verdict(
      S.Inconclusive,
      `${ctx.what}: ${ctx.request} answered NOT_FOUND without ErrorInfo TASK_NOT_FOUND, which does not prove a GetTask handler`,
      evidence,
    );
  }
  if (!answer.grpcContentType && answer.code !== GrpcStatus.DEADLINE_EXCEEDED) {
    return verdict(
      S.WrongBinding,
      `${ctx.what}: an HTTP/2 server answered without a gRPC status (grpc-js mapped it to ${name}: ${evidence.detail ?? ''}); it is not a gRPC server`,
      evidence,
    );
  }
  switch (answer.code) {
    case GrpcStatus.UNIMPLEMENTED:
      return verdict(
        S.Unimplemented,
        `${ctx.what}: ${ctx.request} answered UNIMPLEMENTED${info}; the gRPC server runs but the A2A service is not registered`,
        evidence,
      );
    case GrpcStatus.UNAUTHENTICATED:
    case GrpcStatus.PERMISSION_DENIED:
      return verdict(
        S.AuthRequired,
        ctx.bearerSent
          ? `${ctx.what}: ${name} although a bearer token was sent (token rejected or lacking permission)`
          : `${ctx.what}: ${name}: the gRPC server requires credentials; configure a probe token to verify the handler`,
        evidence,
      );
    case GrpcStatus.DEADLINE_EXCEEDED:
      return verdict(
        S.Timeout,
        `${ctx.what}: no answer within ${ctx.timeoutMs} ms (DEADLINE_EXCEEDED)`,
        evidence,
      );
    default:
      return verdict(
        S.Inconclusive,
        `${ctx.what}: ${ctx.request} answered ${name}${info}: ${evidence.detail ?? ''}`,
        evidence,
      );
  }
}
