/**
 * The real cluster of the end-to-end tests. `npm run test:e2e` (scripts/run-e2e.ts) starts one
 * for the whole run and passes it in A2A_E2E_CLUSTER; a test file run on its own
 * (`node --import tsx --test test/e2e/x.test.ts`) starts one itself and stops it after its tests.
 */
import { execFile } from 'node:child_process';
import { after } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { importImage as ctrImport } from '../harness/real-cluster/containerd.js';
import { startRealCluster, type RealCluster } from '../harness/real-cluster/cluster.js';

export interface E2ECluster {
  kubeconfigPath: string;
  kubectlPath: string;
  containerdAddress: string;
  nodeName: string;
  /** The sandbox image, also handy as a do-nothing container. */
  pauseImage: string;
  /** kubectl in an image (entrypoint /kubectl), for pods that talk to the API server. */
  kubectlImage: string;
  kc: k8s.KubeConfig;
  kubectl(args: string[], input?: string): Promise<{ stdout: string; stderr: string; code: number }>;
  /** Imports a docker-archive tar (the image builds' output) into containerd's k8s.io namespace. */
  importImage(tarPath: string): Promise<void>;
  /** Creates a namespace with a unique name starting with prefix. */
  createNamespace(prefix: string): Promise<string>;
}

type Description = Pick<
  E2ECluster,
  'kubeconfigPath' | 'kubectlPath' | 'containerdAddress' | 'nodeName' | 'pauseImage' | 'kubectlImage'
>;

/** What the runner hands to the test processes. */
export function describeForTests(c: RealCluster): string {
  const d: Description = {
    kubeconfigPath: c.kubeconfigPath,
    kubectlPath: c.kubectlPath,
    containerdAddress: c.containerdAddress,
    nodeName: c.nodeName,
    pauseImage: c.pauseImage,
    kubectlImage: c.kubectlImage,
  };
  return JSON.stringify(d);
}

function wrap(d: Description): E2ECluster {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(d.kubeconfigPath);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  return {
    ...d,
    kc,
    kubectl: (args, input) =>
      new Promise((resolve) => {
        const child = execFile(
          d.kubectlPath,
          args,
          { env: { ...process.env, KUBECONFIG: d.kubeconfigPath }, timeout: 120_000, maxBuffer: 32 << 20 },
          (err, stdout, stderr) =>
            resolve({ stdout, stderr, code: err ? (typeof err.code === 'number' ? err.code : 1) : 0 }),
        );
        child.stdin?.end(input);
      }),
    importImage: async (tarPath) => {
      await ctrImport(tarPath, d.containerdAddress);
    },
    async createNamespace(prefix) {
      const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
      await core.createNamespace({ body: { metadata: { name } } });
      return name;
    },
  };
}

let current: Promise<E2ECluster> | undefined;
let own: RealCluster | undefined;

// Registered at load (top level: the file's root), not from inside a hook, where it would run
// as soon as that hook ended.
if (!process.env.A2A_E2E_CLUSTER) after(() => own?.stop());

async function connect(): Promise<E2ECluster> {
  const shared = process.env.A2A_E2E_CLUSTER;
  if (shared) return wrap(JSON.parse(shared) as Description);
  own = await startRealCluster({ log: (l) => process.stderr.write(`[real-cluster] ${l}\n`) });
  return wrap(JSON.parse(describeForTests(own)) as Description);
}

/** The real cluster of this run (started on first use when no runner started one). */
export function useRealCluster(): Promise<E2ECluster> {
  current ??= connect();
  return current;
}
