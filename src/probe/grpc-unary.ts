/**
 * One unary gRPC call, bytes in and out, on a grpc-js channel's own call API
 * (`Channel.createCall`, the layer under `Client.makeUnaryRequest`). The client's surface builds
 * an interceptor chain and an EventEmitter for every call, and reads two Error stacks for every
 * call that ends with an error status: every GetTask probe does (NOT_FOUND for a random id), and
 * that was ~40 µs of a ~140 µs call (docs/benchmarks.md). What the surface decides is kept: a
 * second response message cancels the call as UNIMPLEMENTED, and OK without a message is
 * UNIMPLEMENTED ("No message received"), as `makeUnaryRequest` reports them.
 */
import { status as GrpcStatus, type ChannelInterface, type Metadata, type StatusObject } from '@grpc/grpc-js';

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
    if (++this.messages > 1)
      this.call.cancelWithStatus(GrpcStatus.UNIMPLEMENTED, 'Too many responses received');
  }

  onReceiveStatus(status: StatusObject): void {
    if (this.settled) return;
    this.settled = true;
    this.request.signal?.removeEventListener('abort', this);
    const { code, details } =
      status.code !== GrpcStatus.OK
        ? status
        : this.messages === 0
          ? { code: GrpcStatus.UNIMPLEMENTED, details: 'No message received' }
          : { code: GrpcStatus.OK, details: '' };
    this.resolve({ code, details, headers: this.headers, trailers: status.metadata });
  }

  /** The caller's abort (an EventListener object). */
  handleEvent(): void {
    this.call.cancelWithStatus(GrpcStatus.CANCELLED, CANCELLED_ON_CLIENT);
  }
}
