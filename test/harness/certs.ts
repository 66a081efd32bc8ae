/**
 * Certificates for the test control plane: a CA, a serving certificate for 127.0.0.1/localhost
 * (plus any extra SANs), both made as the agents' test CA makes them (test/agents/test-certs.ts),
 * the service-account signing key pair, and client certificates signed by the same CA (the real
 * cluster's API server → kubelet).
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCa, writeServerCert, writeSignedCert } from '../agents/test-certs.js';

export interface ControlPlaneCerts {
  caCert: string;
  servingCert: string;
  servingKey: string;
  saKey: string;
  saPub: string;
}

/** `extraSans`: more subjectAltName entries (`IP:10.0.0.1`, `DNS:kubernetes.default.svc`). */
export function makeCerts(dir: string, extraSans: string[] = []): ControlPlaneCerts {
  writeCa(dir, 'a2a-test-ca');
  writeServerCert(
    dir,
    'serving',
    ['127.0.0.1', 'localhost', ...extraSans.map((s) => s.replace(/^(IP|DNS):/, ''))],
    'kube-apiserver',
  );
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
  return {
    caCert: join(dir, 'ca.crt'),
    servingCert: join(dir, 'serving.crt'),
    servingKey: join(dir, 'serving.key'),
    saKey: join(dir, 'sa.key'),
    saPub: join(dir, 'sa.pub'),
  };
}

/** A client certificate (CN = user, O = group) signed by the CA makeCerts made in `dir`. */
export function makeClientCert(
  dir: string,
  name: string,
  user: string,
  group: string,
): { cert: string; key: string } {
  writeSignedCert(dir, name, `/O=${group}/CN=${user}`, 'extendedKeyUsage=clientAuth\n');
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}
