/**
 * The cluster the integration tests run against, shared by every test file of a run:
 *
 * - `scripts/run-tests.ts` calls `startSharedCluster()` once and passes A2A_TEST_KUBECONFIG
 *   (and A2A_TEST_CLUSTER, a JSON description) to the test processes;
 * - a test file run on its own starts a private control plane on first `useCluster()`;
 * - `USE_EXISTING_CLUSTER=true` runs against the cluster in KUBECONFIG instead (envtest's
 *   convention); `KUBEBUILDER_ASSETS` binaries are used when present (see binaries.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { parse } from 'yaml';
import { binaryPath, REPO_ROOT } from './binaries.js';
import { ControlPlane, writeKubeconfig } from './controlplane.js';

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

interface SharedDescription {
  kubeconfigPath: string;
  server: string;
  caFile?: string;
  version: string;
  existing: boolean;
}

export interface Cluster extends SharedDescription {
  kc: k8s.KubeConfig;
  kubectlPath: string;
  /** The in-process control plane when this process started it (restart tests need it). */
  controlPlane?: ControlPlane;
  kubectl(
    args: string[],
    opts?: { input?: string; kubeconfig?: string; timeoutMs?: number },
  ): Promise<KubectlResult>;
  /** Mints a ServiceAccount token with the TokenRequest API. */
  mintToken(namespace: string, serviceAccount: string, expirationSeconds?: number): Promise<string>;
  /** A kubeconfig file that authenticates with the given bearer token. */
  kubeconfigForToken(token: string): string;
  /** Creates a namespace with a unique name starting with prefix. */
  createNamespace(prefix: string): Promise<string>;
}

function log(line: string): void {
  process.stderr.write(`[harness] ${line}\n`);
}

/** Applies every CRD in crds/ and waits until each is Established. */
async function applyCrds(kubectl: Cluster['kubectl']): Promise<void> {
  const dir = join(REPO_ROOT, 'crds');
  const res = await kubectl(['apply', '--server-side', '--force-conflicts', '-f', dir]);
  if (res.code !== 0) throw new Error(`applying CRDs failed: ${res.stderr}`);
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
    const name = (parse(readFileSync(join(dir, f), 'utf8')) as { metadata: { name: string } }).metadata.name;
    const wait = await kubectl(['wait', '--for=condition=Established', '--timeout=60s', `crd/${name}`]);
    if (wait.code !== 0) throw new Error(`CRD ${name} not established: ${wait.stderr}`);
  }
}

function makeCluster(desc: SharedDescription, controlPlane?: ControlPlane): Cluster {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(desc.kubeconfigPath);
  const kubectlPath = binaryPath('kubectl', log);
  const kubectl: Cluster['kubectl'] = (args, opts = {}) =>
    new Promise((resolve) => {
      const child = execFile(
        kubectlPath,
        args,
        {
          env: { ...process.env, KUBECONFIG: opts.kubeconfig ?? desc.kubeconfigPath },
          timeout: opts.timeoutMs ?? 120_000,
          maxBuffer: 32 * 1024 * 1024,
        },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ stdout, stderr, code });
        },
      );
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      else child.stdin?.end();
    });
  const core = kc.makeApiClient(k8s.CoreV1Api);
  return {
    ...desc,
    kc,
    kubectlPath,
    controlPlane,
    kubectl,
    async mintToken(namespace, serviceAccount, expirationSeconds = 3600) {
      const res = await core.createNamespacedServiceAccountToken({
        name: serviceAccount,
        namespace,
        body: { spec: { audiences: [], expirationSeconds } },
      });
      const token = res.status?.token;
      if (!token) throw new Error('TokenRequest returned no token');
      return token;
    },
    kubeconfigForToken(token) {
      const path = join(mkdtempSync(join(tmpdir(), 'a2a-kubeconfig-')), 'kubeconfig');
      const cluster = kc.getCurrentCluster();
      if (!cluster) throw new Error('no current cluster');
      if (desc.caFile) writeKubeconfig(path, cluster.server, desc.caFile, token, 'token-user');
      else throw new Error('kubeconfigForToken needs a CA file (not available for existing clusters)');
      return path;
    },
    async createNamespace(prefix) {
      const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
      await core.createNamespace({ body: { metadata: { name } } });
      return name;
    },
  };
}

/** Starts a control plane of our own, with the CRDs applied. */
async function startOwnCluster(): Promise<{ cluster: Cluster; desc: SharedDescription; cp: ControlPlane }> {
  const cp = new ControlPlane();
  const info = await cp.start({ log });
  const desc: SharedDescription = {
    kubeconfigPath: info.kubeconfigPath,
    server: info.server,
    caFile: info.caFile,
    version: await cp.version(),
    existing: false,
  };
  const cluster = makeCluster(desc, cp);
  await applyCrds(cluster.kubectl);
  return { cluster, desc, cp };
}

/** Starts a control plane for a whole test run; the caller passes the env on and calls stop(). */
export async function startSharedCluster(): Promise<{ kubeconfigPath: string; stop: () => Promise<void> }> {
  if (process.env.USE_EXISTING_CLUSTER === 'true') {
    const kubeconfigPath = process.env.KUBECONFIG ?? join(process.env.HOME ?? '', '.kube', 'config');
    return { kubeconfigPath, stop: async () => {} };
  }
  const { desc, cp } = await startOwnCluster();
  process.env.A2A_TEST_CLUSTER = JSON.stringify(desc);
  process.env.A2A_TEST_KUBECONFIG = desc.kubeconfigPath;
  return { kubeconfigPath: desc.kubeconfigPath, stop: () => cp.stop() };
}

let current: Promise<Cluster> | undefined;

async function connect(): Promise<Cluster> {
  const shared = process.env.A2A_TEST_CLUSTER;
  if (shared) return makeCluster(JSON.parse(shared) as SharedDescription);
  if (process.env.USE_EXISTING_CLUSTER === 'true' || process.env.A2A_TEST_KUBECONFIG) {
    const kubeconfigPath =
      process.env.A2A_TEST_KUBECONFIG ??
      process.env.KUBECONFIG ??
      join(process.env.HOME ?? '', '.kube', 'config');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const server = kc.getCurrentCluster()?.server ?? '';
    const cluster = makeCluster({ kubeconfigPath, server, version: 'unknown', existing: true });
    const v = await cluster.kubectl(['version', '-o', 'json']);
    const version =
      v.code === 0
        ? ((JSON.parse(v.stdout) as { serverVersion?: { gitVersion?: string } }).serverVersion?.gitVersion ??
          'unknown')
        : 'unknown';
    await applyCrds(cluster.kubectl);
    return { ...cluster, version };
  }
  const { cluster, cp } = await startOwnCluster();
  process.on('exit', () => cp.stopSync());
  return cluster;
}

/** The cluster of this test run (started on first use when the runner did not start one). */
export function useCluster(): Promise<Cluster> {
  current ??= connect();
  return current;
}
