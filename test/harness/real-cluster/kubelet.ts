/**
 * The kubelet of the single node: KubeletConfiguration with the settings this kind of machine
 * needs (cgroup v1 allowed explicitly, cgroupfs, swap tolerated, containerd's socket), listening
 * on the bridge gateway (the API server reaches it there for exec/logs, with its client
 * certificate checked against the cluster CA), root and pod logs under the state root.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { binaryPath } from '../binaries.js';
import { freePort } from '../ports.js';
import { startProcess, type Managed } from '../process.js';
import { GATEWAY, NODE_NAME, paths } from './layout.js';

export interface KubeletOptions {
  kubeconfig: string;
  caFile: string;
  containerdSocket: string;
  log: (line: string) => void;
}

export async function startKubelet(opts: KubeletOptions): Promise<{ proc: Managed; healthz: string }> {
  const bin = binaryPath('kubelet', opts.log);
  const healthzPort = await freePort();
  const port = await freePort();
  mkdirSync(paths.kubelet, { recursive: true });
  mkdirSync(paths.podLogs, { recursive: true });
  const configFile = join(paths.config, 'kubelet.yaml');
  writeFileSync(
    configFile,
    stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      failCgroupV1: false,
      cgroupDriver: 'cgroupfs',
      failSwapOn: false,
      containerRuntimeEndpoint: `unix://${opts.containerdSocket}`,
      address: GATEWAY,
      port,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      healthzPort,
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: true },
        x509: { clientCAFile: opts.caFile },
      },
      authorization: { mode: 'Webhook' },
      podLogsDir: paths.podLogs,
      // a busy shared disk must not evict the tests' pods
      evictionHard: { 'memory.available': '50Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      nodeStatusUpdateFrequency: '4s',
      syncFrequency: '10s',
      serializeImagePulls: false,
    }),
  );
  const proc = startProcess(
    bin,
    [
      `--config=${configFile}`,
      `--kubeconfig=${opts.kubeconfig}`,
      `--root-dir=${paths.kubelet}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${GATEWAY}`,
      '--v=1',
    ],
    join(paths.logs, 'kubelet.log'),
  );
  return { proc, healthz: `http://127.0.0.1:${healthzPort}/healthz` };
}
