/**
 * Certificates for the test control plane: a CA, a serving certificate for 127.0.0.1/localhost
 * (plus any extra SANs), both made as the agents' test CA makes them (test/agents/test-certs.ts),
 * the service-account signing key pair, and client certificates signed by the same CA (the real
 * cluster's API server → kubelet).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeCa, writeServerCert } from '../agents/test-certs.js';

export interface ControlPlaneCerts {
  caCert: string;
  servingCert: string;
  servingKey: string;
  saKey: string;
  saPub: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
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
  writeFileSync(join(dir, `${name}.ext`), 'extendedKeyUsage=clientAuth\n');
  openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
      '-subj',
      `/O=${group}/CN=${user}`,
    ],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}
