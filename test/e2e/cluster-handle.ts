/**
 * A handle on a running real cluster (test/harness/real-cluster) for code that drives it: the
 * e2e tests (through test/e2e/fixture.ts) and `npm run demo -- --real`. No node:test import
 * here, so scripts can use it.
 */
import { execFile } from 'node:child_process';
import * as k8s from '@kubernetes/client-node';
import { importImage as ctrImport } from '../harness/real-cluster/containerd.js';
import type { RealCluster } from '../harness/real-cluster/cluster.js';

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

export type Description = Pick<
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

export function wrap(d: Description): E2ECluster {
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

/** The handle on a cluster this process started. */
export function handleOf(c: RealCluster): E2ECluster {
  return wrap(JSON.parse(describeForTests(c)) as Description);
}
