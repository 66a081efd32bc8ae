/**
 * A real control plane for tests, the envtest model: etcd and kube-apiserver as child
 * processes on free loopback ports, RBAC authorization, service-account token signing, and an
 * admin kubeconfig (static token in system:masters). No kubelet, scheduler or controller
 * manager: tests create Pods and set their status themselves.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { binaryPath } from './binaries.js';
import { makeCerts } from './certs.js';
import { freePort } from './ports.js';
import { startProcess, type Managed } from './process.js';

export const ADMIN_TOKEN_USER = 'a2a-test-admin';

export interface ControlPlaneInfo {
  server: string;
  caFile: string;
  kubeconfigPath: string;
  adminToken: string;
  dir: string;
}

export interface StartOptions {
  log?: (line: string) => void;
  /** Keep etcd data in this folder (restart tests reuse it). */
  dataDir?: string;
  extraApiserverArgs?: string[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function httpsGet(url: string, ca: Buffer, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: { authorization: `Bearer ${token}` }, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

export function writeKubeconfig(
  path: string,
  server: string,
  caFile: string,
  token: string,
  user = 'admin',
): void {
  const cfg = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'a2a-test', cluster: { server, 'certificate-authority': caFile } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: user, context: { cluster: 'a2a-test', user, namespace: 'default' } }],
    'current-context': user,
  };
  writeFileSync(path, stringify(cfg), { mode: 0o600 });
}

export class ControlPlane {
  private etcd?: Managed;
  private apiserver?: Managed;
  info?: ControlPlaneInfo;
  private etcdUrl = '';
  private apiArgs: string[] = [];

  async start(opts: StartOptions = {}): Promise<ControlPlaneInfo> {
    const log = opts.log ?? (() => {});
    const apiserverBin = binaryPath('kube-apiserver', log);
    const etcdBin = binaryPath('etcd', log);
    const dir = mkdtempSync(join(tmpdir(), 'a2a-controlplane-'));
    const certs = makeCerts(dir);
    const adminToken = `admin-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
    writeFileSync(
      join(dir, 'tokens.csv'),
      `${adminToken},${ADMIN_TOKEN_USER},${ADMIN_TOKEN_USER},"system:masters"\n`,
    );

    const etcdPort = await freePort();
    const peerPort = await freePort();
    this.etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const dataDir = opts.dataDir ?? join(dir, 'etcd');
    this.etcd = startProcess(
      etcdBin,
      [
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${this.etcdUrl}`,
        `--advertise-client-urls=${this.etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        '--unsafe-no-fsync',
      ],
      join(dir, 'etcd.log'),
    );

    const securePort = await freePort();
    this.apiArgs = [
      `--etcd-servers=${this.etcdUrl}`,
      `--secure-port=${securePort}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      '--endpoint-reconciler-type=none',
      '--service-cluster-ip-range=10.96.0.0/16', // room for the benchmark's 1,000 agents' Services
      '--authorization-mode=RBAC',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      `--tls-cert-file=${certs.servingCert}`,
      `--tls-private-key-file=${certs.servingKey}`,
      `--cert-dir=${join(dir, 'certs')}`,
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${certs.saPub}`,
      `--service-account-signing-key-file=${certs.saKey}`,
      '--api-audiences=https://kubernetes.default.svc.cluster.local',
      ...(opts.extraApiserverArgs ?? []),
    ];
    const server = `https://127.0.0.1:${securePort}`;
    this.info = { server, caFile: certs.caCert, kubeconfigPath: join(dir, 'kubeconfig'), adminToken, dir };
    writeKubeconfig(this.info.kubeconfigPath, server, certs.caCert, adminToken);
    await this.startApiserver(apiserverBin);
    log(`control plane up: ${server} (kube-apiserver ${await this.version()}, etcd ${this.etcdUrl})`);
    return this.info;
  }

  private async startApiserver(bin?: string): Promise<void> {
    const info = this.requireInfo();
    this.apiserver = startProcess(
      bin ?? binaryPath('kube-apiserver'),
      this.apiArgs,
      join(info.dir, 'kube-apiserver.log'),
    );
    await this.waitReady(120_000);
  }

  private requireInfo(): ControlPlaneInfo {
    if (!this.info) throw new Error('control plane not started');
    return this.info;
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const info = this.requireInfo();
    const ca = readFileSync(info.caFile);
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      if (this.apiserver?.child.exitCode !== null) {
        throw new Error(`kube-apiserver exited:\n${this.apiserver?.tail(40)}`);
      }
      try {
        const res = await httpsGet(`${info.server}/readyz`, ca, info.adminToken);
        if (res.status === 200) return;
        last = `${res.status} ${res.body.slice(0, 300)}`;
      } catch (err) {
        last = String(err);
      }
      await sleep(250);
    }
    throw new Error(`kube-apiserver not ready after ${timeoutMs}ms: ${last}\n${this.apiserver?.tail(40)}`);
  }

  async version(): Promise<string> {
    const info = this.requireInfo();
    const res = await httpsGet(`${info.server}/version`, readFileSync(info.caFile), info.adminToken);
    return (JSON.parse(res.body) as { gitVersion: string }).gitVersion;
  }

  /** Restarts only the API server (etcd and its data stay): watches must recover by themselves. */
  async restartApiserver(downMs = 0): Promise<void> {
    await this.apiserver?.stop('SIGTERM', 15_000);
    if (downMs > 0) await sleep(downMs);
    await this.startApiserver();
  }

  get etcdEndpoint(): string {
    return this.etcdUrl;
  }

  /** For process 'exit' handlers, where nothing async runs: kill and remove the work folder. */
  stopSync(): void {
    this.apiserver?.child.kill('SIGKILL');
    this.etcd?.child.kill('SIGKILL');
    if (this.info && !process.env.A2A_KEEP_CONTROLPLANE)
      rmSync(this.info.dir, { recursive: true, force: true });
  }

  async stop(): Promise<void> {
    await this.apiserver?.stop('SIGTERM', 15_000);
    await this.etcd?.stop('SIGTERM', 5_000);
    if (this.info && !process.env.A2A_KEEP_CONTROLPLANE)
      rmSync(this.info.dir, { recursive: true, force: true });
  }
}
