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
import { makeCerts, makeClientCert } from './certs.js';
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
  /** Make the work folder in here instead of the temporary folder. */
  parentDir?: string;
  /**
   * For the real cluster (test/harness/real-cluster): listen and advertise on this address
   * instead of 127.0.0.1 (one pods can reach), let the `kubernetes` Service's endpoints follow
   * it, turn the ServiceAccount admission plugin back on (pods get their token), authorize
   * nodes (Node,RBAC), and reach kubelets with a client certificate.
   */
  node?: {
    address: string;
    serviceClusterIpRange: string;
    /** Extra serving-certificate SANs: the `kubernetes` Service IP, its DNS names. */
    servingSans: string[];
    /** More static tokens (token, user, groups): the node components' identities. */
    tokens: { token: string; user: string; groups: string[] }[];
  };
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
    const dir = mkdtempSync(join(opts.parentDir ?? tmpdir(), 'a2a-controlplane-'));
    const node = opts.node;
    const certs = makeCerts(dir, node?.servingSans);
    const adminToken = `admin-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
    const tokens = [
      { token: adminToken, user: ADMIN_TOKEN_USER, groups: ['system:masters'] },
      ...(node?.tokens ?? []),
    ];
    writeFileSync(
      join(dir, 'tokens.csv'),
      tokens.map((t) => `${t.token},${t.user},${t.user},"${t.groups.join(',')}"\n`).join(''),
    );
    const address = node?.address ?? '127.0.0.1';

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
      `--bind-address=${address}`,
      `--advertise-address=${address}`,
      // room for the benchmark's 1,000 agents' Services
      `--service-cluster-ip-range=${node?.serviceClusterIpRange ?? '10.96.0.0/16'}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      `--tls-cert-file=${certs.servingCert}`,
      `--tls-private-key-file=${certs.servingKey}`,
      `--cert-dir=${join(dir, 'certs')}`,
      '--allow-privileged=true',
      ...(node
        ? this.nodeArgs(dir)
        : [
            '--endpoint-reconciler-type=none',
            '--authorization-mode=RBAC',
            '--disable-admission-plugins=ServiceAccount',
          ]),
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${certs.saPub}`,
      `--service-account-signing-key-file=${certs.saKey}`,
      '--api-audiences=https://kubernetes.default.svc.cluster.local',
      ...(opts.extraApiserverArgs ?? []),
    ];
    const server = `https://${address}:${securePort}`;
    this.info = { server, caFile: certs.caCert, kubeconfigPath: join(dir, 'kubeconfig'), adminToken, dir };
    writeKubeconfig(this.info.kubeconfigPath, server, certs.caCert, adminToken);
    await this.startApiserver(apiserverBin);
    log(`control plane up: ${server} (kube-apiserver ${await this.version()}, etcd ${this.etcdUrl})`);
    return this.info;
  }

  /** Apiserver flags of a cluster with real nodes (see StartOptions.node). */
  private nodeArgs(dir: string): string[] {
    const kubeletClient = makeClientCert(
      dir,
      'apiserver-kubelet-client',
      'kube-apiserver-kubelet-client',
      'system:masters',
    );
    return [
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      `--kubelet-client-certificate=${kubeletClient.cert}`,
      `--kubelet-client-key=${kubeletClient.key}`,
      '--kubelet-preferred-address-types=InternalIP',
    ];
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

  /** The running processes' pids (the benchmark splits the machine's CPU by them). */
  get pids(): { apiserver?: number; etcd?: number } {
    return { apiserver: this.apiserver?.child.pid, etcd: this.etcd?.child.pid };
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
