/**
 * Classifies a failure below the application protocol (connect, TLS, HTTP framing, time) by the
 * error's `code`, never its text. Node, undici and OpenSSL all set stable codes.
 */
import { InterfaceState } from '../api/conditions.js';
import type { ProbeEvidence, Verdict } from './probe-result.js';
import { verdict } from './verdict.js';

/** OpenSSL X509 verification results as Node reports them. */
const certificateCodes = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

/** OpenSSL record-layer errors seen when the peer does not speak TLS at all. */
const plaintextPeerCodes = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_HTTP_REQUEST',
  'ERR_SSL_RECORD_LAYER_FAILURE',
]);

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const timeoutCodes = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ABORT_ERR',
  'UND_ERR_ABORTED',
  'ERR_PROBE_TIMEOUT',
]);

/** The first `code` found on the error or its `cause` chain. */
export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  if (name === 'TimeoutError') return 'ERR_PROBE_TIMEOUT';
  // undici's HTTPParserError carries no code when the answer is not HTTP/1 at all.
  if (name === 'HTTPParserError') return 'HPE_INVALID_RESPONSE';
  return undefined;
}

export function isTlsFailureCode(code: string): boolean {
  return (
    certificateCodes.has(code) ||
    plaintextPeerCodes.has(code) ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_')
  );
}

export interface TransportContext {
  /** `JSONRPC GetTask to agent.internal:8443 (10.0.0.7:8443)`: what was attempted, for messages. */
  what: string;
  tls: boolean;
  timeoutMs: number;
  evidence: ProbeEvidence;
}

export function classifyTransportFailure(err: unknown, ctx: TransportContext): Verdict {
  const code = errorCode(err) ?? 'UNKNOWN';
  const evidence: ProbeEvidence = { ...ctx.evidence, errorCode: code };
  if (code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL') {
    return verdict(
      InterfaceState.WrongBinding,
      `${ctx.what}: the TLS server refused ALPN h2 (${code}): it serves no HTTP/2, so no gRPC, on this port`,
      evidence,
    );
  }
  if (ctx.tls && plaintextPeerCodes.has(code)) {
    return verdict(
      InterfaceState.TLSError,
      `${ctx.what}: the URL means TLS but the server answered in plaintext (${code}); serve TLS there, or advertise an http:// URL for plaintext (a bare host:port gRPC URL means TLS)`,
      evidence,
    );
  }
  if (certificateCodes.has(code) || (ctx.tls && isTlsFailureCode(code))) {
    return verdict(
      InterfaceState.TLSError,
      `${ctx.what}: TLS handshake failed (${code}); check the server certificate against the CA bundle and the URL's host name`,
      evidence,
    );
  }
  if (timeoutCodes.has(code)) {
    return verdict(
      InterfaceState.Timeout,
      `${ctx.what}: no answer within ${ctx.timeoutMs} ms (${code})`,
      evidence,
    );
  }
  if (code.startsWith('HPE_')) {
    const data = (err as { data?: unknown }).data;
    const http2 = typeof data === 'string' && data.length >= 9 && data.charCodeAt(3) === 0x4;
    return verdict(
      InterfaceState.WrongBinding,
      http2
        ? `${ctx.what}: an HTTP/2-only server (such as a gRPC listener) answered the HTTP/1.1 request with a SETTINGS frame`
        : `${ctx.what}: the answer is not HTTP/1.1 (${code}: HTTP/0.9 or another protocol)`,
      evidence,
    );
  }
  if (unreachableCodes.has(code)) {
    return verdict(InterfaceState.Unreachable, `${ctx.what}: connection failed (${code})`, evidence);
  }
  return verdict(InterfaceState.Inconclusive, `${ctx.what}: transport failure ${code}`, evidence);
}

/**
 * Codes that prove the request never left the client: the connection or its TLS handshake
 * failed. Any other failure (a reset, a closed socket, a timeout waiting for the answer) may
 * come after the server read the request, so a caller must not assume it was not acted on.
 */
const beforeRequestCodes = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL',
]);

export function failedBeforeRequest(code: string): boolean {
  return beforeRequestCodes.has(code) || certificateCodes.has(code) || plaintextPeerCodes.has(code);
}
