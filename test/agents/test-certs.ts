/**
 * A private CA and server certificates for TLS tests, made with the openssl CLI in a temporary
 * directory. `sans` are DNS names and IPs the server certificate is valid for.
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
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

export function createTestCa(name = 'a2a-test-ca'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-ca-'));
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
  ]);
  let serial = 0;
  return {
    dir,
    caCert: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    issue(sans) {
      const n = ++serial;
      const alt = sans.map((s) => (/^[\d.]+$|:/.test(s) ? `IP:${s}` : `DNS:${s}`)).join(',');
      writeFileSync(
        join(dir, `ext${n}.cnf`),
        `subjectAltName=${alt}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
      );
      openssl(dir, [
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `s${n}.key`,
        '-out',
        `s${n}.csr`,
        '-subj',
        `/CN=${sans[0]}`,
      ]);
      openssl(dir, [
        'x509',
        '-req',
        '-in',
        `s${n}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `s${n}.crt`,
        '-days',
        '2',
        '-extfile',
        `ext${n}.cnf`,
      ]);
      return {
        cert: readFileSync(join(dir, `s${n}.crt`), 'utf8'),
        key: readFileSync(join(dir, `s${n}.key`), 'utf8'),
      };
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
