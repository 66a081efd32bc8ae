/**
 * The gRPC side of a test agent: grpc-js with the SDK's v1.0 service and, with legacy compat,
 * the v0.3 `a2a.v1.A2AService`. It can run with nothing registered (every call UNIMPLEMENTED,
 * the seed's half-started listener) and be stopped and restarted on the same port.
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  ServerInterceptingCall,
  status,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { UserBuilder as GrpcUserBuilder, A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { TlsFiles } from './agent-config.js';

export interface GrpcListenerOptions {
  host: string;
  port: number;
  tls?: TlsFiles;
  register: boolean;
  legacy: boolean;
  authToken?: string;
  requestHandler: A2ARequestHandler;
  /** Receives the authorization metadata of every call. */
  onAuthorization?: (value: string) => void;
  /** Called once per call to a method the listener serves (grpc-js answers others UNIMPLEMENTED first). */
  onCall?: () => void;
  /** Answer every call INTERNAL with the request metadata quoted in the details. */
  echoHeaders?: boolean;
}

function recordingInterceptor(opts: GrpcListenerOptions): ServerInterceptor {
  return (_method, call) => {
    opts.onCall?.();
    return new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, mdNext) => {
            const auth = metadata.get('authorization')[0];
            if (typeof auth === 'string') opts.onAuthorization?.(auth);
            if (!opts.echoHeaders) {
              mdNext(metadata);
              return;
            }
            call.sendStatus({
              code: status.INTERNAL,
              details: `refused: authorization=${String(auth ?? '(none)')}; metadata=${JSON.stringify(metadata.getMap())}`,
              metadata: new Metadata(),
            });
          },
        }),
    });
  };
}

function bearerInterceptor(token: string): ServerInterceptor {
  return (_method, call) =>
    new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, mdNext) => {
            if (metadata.get('authorization')[0] === `Bearer ${token}`) {
              mdNext(metadata);
              return;
            }
            call.sendStatus({
              code: status.UNAUTHENTICATED,
              details: 'bearer token required',
              metadata: new Metadata(),
            });
          },
        }),
    });
}

export class GrpcListener {
  private server: Server | undefined;
  port: number;

  constructor(private readonly opts: GrpcListenerOptions) {
    this.port = opts.port;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  async start(register = this.opts.register): Promise<number> {
    if (this.server) return this.port;
    const server = new Server({
      interceptors: [
        recordingInterceptor(this.opts),
        ...(this.opts.authToken ? [bearerInterceptor(this.opts.authToken)] : []),
      ],
    });
    if (register) {
      const common = {
        requestHandler: this.opts.requestHandler,
        userBuilder: GrpcUserBuilder.noAuthentication,
      };
      server.addService(A2AService, grpcService(common));
      if (this.opts.legacy) server.addService(LegacyA2AService, legacyGrpcService(common));
    }
    const creds = this.opts.tls
      ? ServerCredentials.createSsl(
          null,
          [{ cert_chain: Buffer.from(this.opts.tls.cert), private_key: Buffer.from(this.opts.tls.key) }],
          false,
        )
      : ServerCredentials.createInsecure();
    const hostPort = this.opts.host.includes(':')
      ? `[${this.opts.host}]:${this.port}`
      : `${this.opts.host}:${this.port}`;
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(hostPort, creds, (err, port) => (err ? reject(err) : resolve(port))),
    );
    this.server = server;
    return this.port;
  }

  stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    server.forceShutdown();
    return Promise.resolve();
  }
}
