/**
 * Long-lived grpc-js clients, one per (pod address, port, authority, TLS settings), closed when
 * idle. The channel dials the pod while `:authority` and TLS SNI/name checks use the URL's host.
 */
import { Client, credentials, type ChannelOptions } from '@grpc/grpc-js';
import { IdleCache } from './idle-cache.js';
import type { DialTarget } from './dial-target.js';
import { checkIdentityFor, isIpLiteral, tlsKey, type TlsSettings } from './tls-settings.js';
import { MAX_PROBE_BODY_BYTES } from './http-probe.js';

export interface GrpcChannelKey {
  target: DialTarget;
  tls: boolean;
  urlHost: string;
  authority: string;
  tlsSettings?: TlsSettings;
}

export function grpcTargetString(t: DialTarget): string {
  if (t.address.includes(':')) return `ipv6:[${t.address}]:${t.port}`;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(t.address)) return `ipv4:${t.address}:${t.port}`;
  return `dns:${t.address}:${t.port}`;
}

function createClient(k: GrpcChannelKey): Client {
  const insecure = k.tlsSettings?.insecureSkipVerify === true;
  const creds = k.tls
    ? credentials.createSsl(k.tlsSettings?.ca ? Buffer.from(k.tlsSettings.ca) : null, null, null, {
        rejectUnauthorized: !insecure,
        checkServerIdentity: insecure ? () => undefined : checkIdentityFor(k.urlHost),
      })
    : credentials.createInsecure();
  const options: ChannelOptions = {
    'grpc.default_authority': k.authority,
    'grpc.max_receive_message_length': MAX_PROBE_BODY_BYTES,
    // No metadata-size option here: grpc-js ignores `grpc.max_metadata_size` (not among its
    // recognised options). Answer metadata is bounded by Node's http2 session defaults, which
    // grpc-js keeps: a 64 KiB SETTINGS_MAX_HEADER_LIST_SIZE (a larger block is not taken in; the
    // call ends at its deadline, test/unit/grpc-metadata-bound.test.ts) and 128 header pairs.
    'grpc.enable_retries': 0,
    // Nobody reads channelz here, and its per-channel trackers and traces are kept for every pod
    // address's channel (3,000 at 1,000 agents).
    'grpc.enable_channelz': 0,
    // The channel owns its connection: closing it (idle, or the Prober closed) closes the
    // connection at once, and no other channel in the process (another Prober: `check`, the
    // benchmark's bound) finds it open in grpc-js's global pool, which keeps it up to a 10 s sweep.
    'grpc.use_local_subchannel_pool': 1,
    // A failed connection must surface at once as UNAVAILABLE rather than be retried silently.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 1000,
  };
  if (k.tls && !isIpLiteral(k.urlHost)) options['grpc.ssl_target_name_override'] = k.urlHost;
  return new Client(grpcTargetString(k.target), creds, options);
}

export class GrpcChannels {
  private readonly cache: IdleCache<Client>;

  constructor(idleMs: number) {
    this.cache = new IdleCache<Client>(idleMs, (client) => client.close());
  }

  private key(k: GrpcChannelKey): string {
    return [k.tls ? 'tls' : 'h2c', k.target.address, k.target.port, k.authority, tlsKey(k.tlsSettings)].join(
      '|',
    );
  }

  use<R>(k: GrpcChannelKey, fn: (client: Client) => Promise<R>): Promise<R> {
    return this.cache.use(this.key(k), () => createClient(k), fn);
  }

  /** Closes a channel whose transport failed, so the next probe dials afresh. */
  evict(k: GrpcChannelKey): Promise<void> {
    return this.cache.evict(this.key(k));
  }

  get size(): number {
    return this.cache.size;
  }

  close(): Promise<void> {
    return this.cache.close();
  }
}
