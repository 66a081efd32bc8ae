/**
 * Certificates for the test control plane, made with the openssl CLI: a CA, a serving
 * certificate for 127.0.0.1/localhost, and the service-account signing key pair.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

export function makeCerts(dir: string): ControlPlaneCerts {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '2',
      '-subj',
      '/CN=a2a-test-ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  writeFileSync(
    join(dir, 'serving.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'serving.key',
      '-out',
      'serving.csr',
      '-subj',
      '/CN=kube-apiserver',
    ],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'serving.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'serving.crt',
      '-days',
      '2',
      '-extfile',
      'serving.ext',
    ],
    dir,
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
