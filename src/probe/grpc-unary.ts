/**
 * One unary gRPC call, bytes in and out, on a grpc-js channel's own call API
 * (`Channel.createCall`, the layer under `Client.makeUnaryRequest`). The client's surface builds
 * an interceptor chain and an EventEmitter for every call, and reads two Error stacks for every
 * call that ends with an error status: every GetTask probe does (NOT_FOUND for a random id), and
 * that was ~40 µs of a ~140 µs call (docs/benchmarks.md). What the surface decides is kept: a
 * second response message cancels the call as UNIMPLEMENTED, and OK without a message is
 * UNIMPLEMENTED ("No message received"), as `makeUnaryRequest` reports them.
 *
 * With `firstMessage`, a server-streaming call read to its first message: that message answers
 * OK and the call is cancelled at once (nothing is kept open); a stream that ends OK without one
 * is OK, as `makeServerStreamRequest`'s status says.
 */
import { Metadata, status as GrpcStatus, type ChannelInterface, type StatusObject } from '@grpc/grpc-js';

export interface GrpcUnaryRequest {
  /** `/package.Service/Method`. */
  method: string;
  /** The serialized request message (grpc-js frames it). */
  message: Buffer;
  metadata: Metadata;
  /** Epoch ms: the call ends DEADLINE_EXCEEDED then. */
  deadline: number;
  /** Cancels the call: it ends CANCELLED. */
  signal?: AbortSignal;
  /** A server-streaming call: its first message is the answer (see the module comment). */
  firstMessage?: boolean;
}

export interface GrpcUnaryAnswer {
  code: GrpcStatus;
  /** The status message; empty for OK. */
  details: string;
  /** The response headers, when any arrived (none on a trailers-only answer). */
  headers?: Metadata;
  /** The trailers (or a trailers-only answer's headers); grpc-js's own on a local status. */
  trailers: Metadata;
}

export const CANCELLED_ON_CLIENT = 'Cancelled on client';

export function grpcUnary(channel: ChannelInterface, request: GrpcUnaryRequest): Promise<GrpcUnaryAnswer> {
  return new Promise((resolve) => new UnaryExchange(channel, request, resolve));
}

/** The call's listener and its abort listener in one object: no closures per call. */
class UnaryExchange {
  private readonly call: ReturnType<ChannelInterface['createCall']>;
  private headers: Metadata | undefined;
  private messages = 0;
  private settled = false;

  constructor(
    channel: ChannelInterface,
    private readonly request: GrpcUnaryRequest,
    private readonly resolve: (answer: GrpcUnaryAnswer) => void,
  ) {
    this.call = channel.createCall(request.method, request.deadline, undefined, null, undefined);
    this.call.start(request.metadata, this);
    this.call.startRead();
    this.call.sendMessageWithContext({}, request.message);
    this.call.halfClose();
    if (request.signal?.aborted) this.handleEvent();
    else request.signal?.addEventListener('abort', this, { once: true });
  }

  onReceiveMetadata(headers: Metadata): void {
    this.headers = headers;
  }

  onReceiveMessage(): void {
    if (this.request.firstMessage) {
      // The stream is served: answered now, closed now (its status, CANCELLED, is ignored).
      if (this.settle())
        this.resolve({ code: GrpcStatus.OK, details: '', headers: this.headers, trailers: new Metadata() });
      this.call.cancelWithStatus(GrpcStatus.CANCELLED, CANCELLED_ON_CLIENT);
      return;
    }
    if (++this.messages > 1)
      this.call.cancelWithStatus(GrpcStatus.UNIMPLEMENTED, 'Too many responses received');
  }

  onReceiveStatus(status: StatusObject): void {
    if (!this.settle()) return;
    const { code, details } =
      status.code !== GrpcStatus.OK
        ? status
        : this.messages === 0 && !this.request.firstMessage
          ? { code: GrpcStatus.UNIMPLEMENTED, details: 'No message received' }
          : { code: GrpcStatus.OK, details: '' };
    this.resolve({ code, details, headers: this.headers, trailers: status.metadata });
  }

  /** False when already answered; else marks it answered and drops the abort listener. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.request.signal?.removeEventListener('abort', this);
    return true;
  }

  /** The caller's abort (an EventListener object). */
  handleEvent(): void {
    this.call.cancelWithStatus(GrpcStatus.CANCELLED, CANCELLED_ON_CLIENT);
  }
}
