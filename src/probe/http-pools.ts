/** undici connection pools, one per (pod address, port, TLS name and settings), reused across probes. */
import { Pool } from 'undici';
import { hostPort, type DialTarget } from './dial-target.js';
import { IdleCache } from './idle-cache.js';
import { checkIdentityFor, isIpLiteral, tlsKey, type TlsSettings } from './tls-settings.js';

export interface HttpPoolKey {
  target: DialTarget;
  tls: boolean;
  /** The URL's host: TLS SNI (unless an IP literal) and certificate name. */
  urlHost: string;
  tlsSettings?: TlsSettings;
}

export const MAX_HEADER_BYTES = 16 * 1024;

function createPool(k: HttpPoolKey, connectTimeoutMs: number, connections: number): Pool {
  const origin = `${k.tls ? 'https' : 'http'}://${hostPort(k.target.address, k.target.port)}`;
  const insecure = k.tlsSettings?.insecureSkipVerify === true;
  return new Pool(origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    maxHeaderSize: MAX_HEADER_BYTES,
    connect: {
      timeout: connectTimeoutMs,
      ...(k.tls
        ? {
            servername: isIpLiteral(k.urlHost) ? undefined : k.urlHost,
            ca: k.tlsSettings?.ca,
            rejectUnauthorized: !insecure,
            checkServerIdentity: insecure ? () => undefined : checkIdentityFor(k.urlHost),
          }
        : {}),
    },
  });
}

export class HttpPools {
  private readonly cache: IdleCache<Pool>;

  constructor(
    idleMs: number,
    private readonly connectTimeoutMs: number,
    /**
     * Connections per pool: at least as many as requests that can be in flight on it (the
     * prober passes its concurrency limit), so none waits for a connection inside its timeout.
     */
    private readonly connections = 32,
  ) {
    this.cache = new IdleCache<Pool>(idleMs, (pool) => pool.destroy().catch(() => undefined));
  }

  use<R>(k: HttpPoolKey, fn: (pool: Pool) => Promise<R>): Promise<R> {
    const key = [
      k.tls ? 'https' : 'http',
      k.target.address,
      k.target.port,
      k.urlHost,
      tlsKey(k.tlsSettings),
    ].join('|');
    return this.cache.use(key, () => createPool(k, this.connectTimeoutMs, this.connections), fn);
  }

  get size(): number {
    return this.cache.size;
  }

  close(): Promise<void> {
    return this.cache.close();
  }
}
