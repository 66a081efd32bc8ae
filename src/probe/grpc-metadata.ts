/**
 * What the gRPC probes (GetTask, grpc-probe.ts; capability calls, capability-probe.ts) read from
 * an answer's metadata, and the interceptor that captures its response headers.
 */
import { InterceptingCall, type Interceptor, type Metadata } from '@grpc/grpc-js';
import { errorInfoReasonsOf } from './grpc-wire-messages.js';

/** Whether the metadata says `application/grpc`: false means something else answered over HTTP/2. */
export function isGrpcContentType(md: Metadata | undefined): boolean {
  const ct = md?.get('content-type')[0];
  return typeof ct === 'string' && ct.startsWith('application/grpc');
}

/** The ErrorInfo reasons in the trailers' `grpc-status-details-bin`. */
export function errorInfoReasons(md: Metadata | undefined): string[] {
  return errorInfoReasonsOf(md?.get('grpc-status-details-bin')[0]);
}

/** An interceptor that hands the response headers to `onHeaders`. */
export function captureHeaders(onHeaders: (m: Metadata) => void): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start: (md, _listener, next) =>
        next(md, {
          onReceiveMetadata: (m, n) => {
            onHeaders(m);
            n(m);
          },
        }),
    });
}
