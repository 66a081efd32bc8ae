/**
 * kube-controller-manager (Deployment, ReplicaSet, EndpointSlice, garbage collector,
 * ServiceAccount tokens: every default controller, each with its own service-account
 * credentials) and kube-scheduler, both on loopback ports of their own, no leader election.
 */
import { join } from 'node:path';
import { binaryPath } from '../binaries.js';
import { freePort } from '../ports.js';
import { startProcess, type Managed } from '../process.js';
import { paths, POD_CIDR, SERVICE_CIDR } from './layout.js';

export interface Started {
  proc: Managed;
  healthz: string;
}

function delegated(kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    '--leader-elect=false',
  ];
}

export async function startControllerManager(opts: {
  kubeconfig: string;
  caFile: string;
  saKey: string;
  log: (line: string) => void;
}): Promise<Started> {
  const port = await freePort();
  const proc = startProcess(
    binaryPath('kube-controller-manager', opts.log),
    [
      ...delegated(opts.kubeconfig),
      `--secure-port=${port}`,
      `--service-account-private-key-file=${opts.saKey}`,
      `--root-ca-file=${opts.caFile}`,
      '--use-service-account-credentials=true',
      `--cluster-cidr=${POD_CIDR}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--cluster-name=a2a-real',
      '--v=1',
    ],
    join(paths.logs, 'kube-controller-manager.log'),
  );
  return { proc, healthz: `https://127.0.0.1:${port}/healthz` };
}

export async function startScheduler(kubeconfig: string, log: (line: string) => void): Promise<Started> {
  const port = await freePort();
  const proc = startProcess(
    binaryPath('kube-scheduler', log),
    [...delegated(kubeconfig), `--secure-port=${port}`, '--v=1'],
    join(paths.logs, 'kube-scheduler.log'),
  );
  return { proc, healthz: `https://127.0.0.1:${port}/healthz` };
}
