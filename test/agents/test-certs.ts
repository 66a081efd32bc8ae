/**
 * A private CA and server certificates for TLS tests, made with the openssl CLI in a temporary
 * directory. `sans` are DNS names and IPs the server certificate is valid for. The control
 * plane's certificates (test/harness/certs.ts) are made with the same two steps.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  caCert: string;
  /** Issue a server certificate for these names (DNS names or IP literals). */
  issue(sans: string[]): { cert: string; key: string };
  dir: string;
  dispose(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed CA, valid two days, as `ca.crt` and `ca.key` in `dir`. */
export function writeCa(dir: string, name: string): void {
  openssl(dir, [
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
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

/**
 * A server certificate for `sans` (DNS names or IP literals), signed by the CA in `dir`, as
 * `<base>.crt` and `<base>.key` there.
 */
export function writeServerCert(dir: string, base: string, sans: string[], cn = sans[0]!): void {
  const alt = sans.map((s) => (/^[\d.]+$|:/.test(s) ? `IP:${s}` : `DNS:${s}`)).join(',');
  writeSignedCert(
    dir,
    base,
    `/CN=${cn}`,
    `subjectAltName=${alt}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
}

/**
 * A key and a certificate for `subject` (`/O=…/CN=…`) with the given extensions, signed by the
 * CA in `dir`, as `<base>.crt` and `<base>.key` there.
 */
export function writeSignedCert(dir: string, base: string, subject: string, extensions: string): void {
  writeFileSync(join(dir, `${base}.ext`), extensions);
  openssl(dir, [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${base}.key`,
    '-out',
    `${base}.csr`,
    '-subj',
    subject,
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${base}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${base}.crt`,
    '-days',
    '2',
    '-extfile',
    `${base}.ext`,
  ]);
}

export function createTestCa(name = 'a2a-test-ca'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-ca-'));
  writeCa(dir, name);
  let serial = 0;
  return {
    caCert: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    dir,
    issue(sans) {
      const base = `s${++serial}`;
      writeServerCert(dir, base, sans);
      return {
        cert: readFileSync(join(dir, `${base}.crt`), 'utf8'),
        key: readFileSync(join(dir, `${base}.key`), 'utf8'),
      };
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
