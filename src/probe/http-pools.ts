/**
 * HTTP connections per (pod address, port, TLS name and settings), reused across probes and
 * closed when idle; each origin's are an OriginClients (why not undici's Pool: see there).
 */
import { buildConnector, Client } from 'undici';
import { hostPort, type DialTarget } from './dial-target.js';
import { IdleCache } from './idle-cache.js';
import { OriginClients } from './origin-clients.js';
import { checkIdentityFor, isIpLiteral, tlsKey, type TlsSettings } from './tls-settings.js';

export interface HttpPoolKey {
  target: DialTarget;
  tls: boolean;
  /** The URL's host: TLS SNI (unless an IP literal) and certificate name. */
  urlHost: string;
  tlsSettings?: TlsSettings;
}

export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Makes an origin's Clients. They share one connector, as a Pool's did: one TLS session cache,
 * so a second connection to the pod resumes the first one's session.
 */
function clientFactory(k: HttpPoolKey, connectTimeoutMs: number): () => Client {
  const origin = `${k.tls ? 'https' : 'http'}://${hostPort(k.target.address, k.target.port)}`;
  const insecure = k.tlsSettings?.insecureSkipVerify === true;
  const connect = buildConnector({
    timeout: connectTimeoutMs,
    ...(k.tls
      ? {
          servername: isIpLiteral(k.urlHost) ? undefined : k.urlHost,
          ca: k.tlsSettings?.ca,
          rejectUnauthorized: !insecure,
          checkServerIdentity: insecure ? () => undefined : checkIdentityFor(k.urlHost),
        }
      : {}),
  });
  return () =>
    new Client(origin, { pipelining: 1, keepAliveTimeout: 30_000, maxHeaderSize: MAX_HEADER_BYTES, connect });
}

export class HttpPools {
  private readonly cache: IdleCache<OriginClients>;

  constructor(
    idleMs: number,
    private readonly connectTimeoutMs: number,
    /**
     * Connections per origin: at least as many as requests that can be in flight on it (the
     * prober passes its concurrency limit), so none waits for a connection inside its timeout.
     */
    private readonly connections = 32,
  ) {
    this.cache = new IdleCache<OriginClients>(idleMs, (clients) => clients.destroy());
  }

  use<R>(k: HttpPoolKey, fn: (client: Client) => Promise<R>): Promise<R> {
    const key = [
      k.tls ? 'https' : 'http',
      k.target.address,
      k.target.port,
      k.urlHost,
      tlsKey(k.tlsSettings),
    ].join('|');
    return this.cache.use(
      key,
      () => new OriginClients(clientFactory(k, this.connectTimeoutMs), this.connections),
      (clients) => clients.use(fn),
    );
  }

  get size(): number {
    return this.cache.size;
  }

  close(): Promise<void> {
    return this.cache.close();
  }
}
