/**
 * One HTTP request and its bounded answer, on undici's dispatch API, under one deadline and the
 * caller's signal.
 *
 * Why not `dispatcher.request()`: a probe wrapped it in a per-request AbortController and timer
 * (the deadline), a second timer racing the whole exchange (undici keeps a TLS handshake to a
 * silent peer past any abort) and a listener on the caller's signal, and read the body through a
 * Readable and its async iterator. That was about half of a JSON-RPC probe's CPU, twice what a
 * bare undici request costs (docs/benchmarks.md, `bench:probe`). Here one handler does it all:
 * one timer, one listener, chunks collected up to the limit. The outcome is the same: the
 * promise settles at the deadline or the abort whatever stage undici is in, and the request is
 * cut as soon as undici lets it be (at once once it is on a socket, else when it gets one).
 */
import type { Dispatcher } from 'undici';
import { DeadlineError, ProbeAbortedError } from './deadline.js';

export interface ExchangeRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange, connection included: past it the promise rejects with a DeadlineError. */
  timeoutMs: number;
  /**
   * Answer bytes kept; past them reading stops, the request is cut and `truncated` is set. An
   * answer whose Content-Length is already past them is not read at all (`truncated`, empty body).
   */
  maxBodyBytes: number;
  /** The caller's: an abort rejects with a ProbeAbortedError and cuts the request. */
  signal?: AbortSignal;
  /**
   * Asked once the headers are in, with the Content-Type: a test fed every chunk kept, or none.
   * Once it says true the answer is complete as read, the rest is never read and the request is
   * cut (an event stream read to its first event).
   */
  readUntil?: (contentType: string) => ((chunk: Buffer) => boolean) | undefined;
}

export interface ExchangeAnswer {
  status: number;
  /** As undici parsed them: lower-case names, repeated ones as arrays. */
  headers: Dispatcher.ResponseData['headers'];
  /** The first Content-Type header, or '' when there is none. */
  contentType: string;
  body: Buffer;
  /** True when the body was longer than the limit (reading stopped at the limit). */
  truncated: boolean;
}

export function exchange(dispatcher: Dispatcher, req: ExchangeRequest): Promise<ExchangeAnswer> {
  if (req.signal?.aborted) return Promise.reject(new ProbeAbortedError('aborted'));
  return new Promise<ExchangeAnswer>((resolve, reject) => {
    const handler = new BoundedExchange(req, resolve, reject);
    dispatcher.dispatch(
      {
        method: req.method,
        path: req.path,
        headers: req.headers,
        body: req.body,
        // undici's own timers, a second line behind the deadline above (they cover the waits
        // for headers and between body chunks, not the connection).
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      },
      handler,
    );
  });
}

class BoundedExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  /** Set when the exchange ended before undici handed over its controller: cut it then. */
  private cutReason: Error | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort: (() => void) | undefined;
  private status = 0;
  private headers: Dispatcher.ResponseData['headers'] = {};
  private contentType = '';
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private enough: ((chunk: Buffer) => boolean) | undefined;

  constructor(
    private readonly req: ExchangeRequest,
    private readonly resolve: (a: ExchangeAnswer) => void,
    private readonly reject: (e: Error) => void,
  ) {
    this.timer = setTimeout(
      () => this.fail(new DeadlineError(`no answer within ${req.timeoutMs} ms`)),
      req.timeoutMs,
    );
    // Like AbortSignal.timeout: a pending deadline never keeps the process alive.
    this.timer.unref();
    if (req.signal) {
      this.onAbort = () => this.fail(new ProbeAbortedError('aborted'));
      req.signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cutReason) controller.abort(this.cutReason);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Dispatcher.ResponseData['headers'],
  ): void {
    this.status = statusCode;
    this.headers = headers;
    this.contentType = first(headers['content-type']) ?? '';
    const declared = Number(first(headers['content-length']));
    if (declared > this.req.maxBodyBytes) this.endEarly(controller, true);
    else this.enough = this.req.readUntil?.(this.contentType);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const room = this.req.maxBodyBytes - this.size;
    if (chunk.length > room) {
      this.chunks.push(chunk.subarray(0, room));
      this.endEarly(controller, true);
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.enough?.(chunk)) this.endEarly(controller, false);
  }

  onResponseEnd(): void {
    this.finish(false);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    // undici has ended the request itself: nothing left to cut.
    if (this.end()) this.reject(err);
  }

  /**
   * The answer ends here, the rest never read: past the limit (`truncated`), or where readUntil
   * said it was complete. It is answered as read so far, and the request is cut.
   */
  private endEarly(controller: Dispatcher.DispatchController, truncated: boolean): void {
    this.finish(truncated);
    controller.abort(new Error(truncated ? 'answer longer than the limit' : 'answer read as far as needed'));
  }

  private finish(truncated: boolean): void {
    if (!this.end()) return;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.resolve({
      status: this.status,
      headers: this.headers,
      contentType: this.contentType,
      body,
      truncated,
    });
  }

  /** Ends the exchange from this side (deadline, abort): rejects now, cuts the request. */
  private fail(err: Error): void {
    if (!this.end()) return;
    this.reject(err);
    if (this.controller) this.controller.abort(err);
    else this.cutReason = err;
  }

  /** False when the exchange had already ended; else ends it (timer and listener gone). */
  private end(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    if (this.onAbort) this.req.signal!.removeEventListener('abort', this.onAbort);
    return true;
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
