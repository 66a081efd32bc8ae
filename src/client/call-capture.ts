/**
 * What the wire said during one SDK call, kept beside the SDK's own error: the SDK turns a
 * route 404 or a 415 into a text-only Error, and the classifiers need the status, content type
 * and body (HTTP) or the headers and whether a connection was ever used (gRPC). The capture is
 * found through AsyncLocalStorage, so concurrent calls on one transport never mix.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  InterceptingCall,
  type InterceptingCall as Call,
  type Interceptor,
  type Metadata,
} from '@grpc/grpc-js';

/** Bytes of an error answer the classifiers read; an A2A error body is far smaller. */
const MAX_CAPTURED_BODY = 64 * 1024;

export interface CallCapture {
  http?: { status: number; contentType: string; body: Promise<Buffer> };
  /** What `fetch` threw (connect, TLS, framing). */
  fetchError?: unknown;
  grpc?: { headers?: Metadata; trailers?: Metadata; dispatched: boolean };
}

export const callCapture = new AsyncLocalStorage<CallCapture>();

async function boundedBody(res: Response): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    while (size < MAX_CAPTURED_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, MAX_CAPTURED_BODY);
}

/** `fetch` that records the answer (or the failure) of each call into the current capture. */
export function capturingFetch(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const capture = callCapture.getStore();
    let res: Response;
    try {
      res = await base(input, init);
    } catch (err) {
      if (capture) capture.fetchError = err;
      throw err;
    }
    if (capture) {
      const contentType = res.headers.get('content-type') ?? '';
      // A stream's body is the caller's: only its status matters, an event stream is not buffered.
      const body = contentType.startsWith('text/event-stream')
        ? Promise.resolve(Buffer.alloc(0))
        : boundedBody(res.clone());
      body.catch(() => {});
      capture.http = { status: res.status, contentType, body };
    }
    return res;
  };
}

/**
 * Records the response headers and trailers of a gRPC call, and whether it was ever dispatched
 * on a connection: grpc-js answers `getPeer()` with the channel's target until a connected
 * subchannel takes the call, and with the peer address after.
 */
export const capturingInterceptor: Interceptor = (options, nextCall): Call => {
  const capture = callCapture.getStore();
  const state = { headers: undefined as Metadata | undefined, trailers: undefined as Metadata | undefined };
  let targetPeer = '';
  const call: Call = new InterceptingCall(nextCall(options), {
    start: (metadata, listener, next) => {
      targetPeer = call.getPeer();
      next(metadata, {
        onReceiveMetadata: (md, n) => {
          state.headers = md;
          n(md);
        },
        onReceiveStatus: (status, n) => {
          if (capture) {
            capture.grpc = {
              headers: state.headers,
              trailers: status.metadata,
              dispatched: state.headers !== undefined || call.getPeer() !== targetPeer,
            };
          }
          n(status);
        },
      });
    },
  });
  return call;
};
