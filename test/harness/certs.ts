/**
 * Certificates for the test control plane: a CA, a serving certificate for 127.0.0.1/localhost
 * (both made as the agents' test CA makes them, test/agents/test-certs.ts), and the
 * service-account signing key pair.
 */
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

export function makeCerts(dir: string): ControlPlaneCerts {
  writeCa(dir, 'a2a-test-ca');
  writeServerCert(dir, 'serving', ['127.0.0.1', 'localhost'], 'kube-apiserver');
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
