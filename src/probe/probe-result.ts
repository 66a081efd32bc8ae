/** What a probe reports: an interface state (docs/conditions.md), a stable reason, a message a person can act on, and the evidence. */
import type { InterfaceState } from '../api/conditions.js';

export interface ProbeEvidence {
  /** What was sent: `POST /a2a/jsonrpc GetTask`, `GET /a2a/rest/tasks/<id>`, `/lf.a2a.v1.A2AService/GetTask`. */
  request?: string;
  httpStatus?: number;
  contentType?: string;
  jsonRpcCode?: number;
  grpcCode?: number;
  grpcCodeName?: string;
  /** ErrorInfo.reason from the answer (JSON-RPC `error.data`, REST `error.details`, gRPC status details). */
  errorInfoReason?: string;
  /** Node / undici / OpenSSL error code of a transport failure (`ECONNREFUSED`, `ERR_SSL_WRONG_VERSION_NUMBER`). */
  errorCode?: string;
  /** The server's own message, truncated. */
  detail?: string;
}

export interface ProbeResult {
  state: InterfaceState;
  /** `InterfaceReason[state]`, or `Verified`. */
  reason: string;
  message: string;
  evidence: ProbeEvidence;
  durationMs: number;
}

/** A classification before timing is attached. */
export type Verdict = Omit<ProbeResult, 'durationMs'>;
