/** TLS settings of a probe or card fetch, and how they key connection reuse. */
import { createHash } from 'node:crypto';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';

export interface TlsSettings {
  /** PEM CA bundle; the system roots when absent. */
  ca?: string;
  /** Accept any certificate. Explicit, for development only. */
  insecureSkipVerify?: boolean;
}

export function tlsKey(tls: TlsSettings | undefined): string {
  if (!tls) return 'sys';
  const ca = tls.ca ? createHash('sha256').update(tls.ca).digest('hex').slice(0, 16) : 'sys';
  return `${ca}${tls.insecureSkipVerify ? '+insecure' : ''}`;
}

export function isIpLiteral(host: string): boolean {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(':');
}

/**
 * Verifies the certificate against the card URL's host, not the dialled address: the probe
 * dials a pod IP but must behave as a client of the URL would.
 */
export function checkIdentityFor(
  urlHost: string,
): (host: string, cert: PeerCertificate) => Error | undefined {
  return (_dialled, cert) => checkServerIdentity(urlHost, cert);
}
