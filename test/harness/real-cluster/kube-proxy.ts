/**
 * kube-proxy in nftables mode (its own table `ip kube-proxy`), with every conntrack sysctl it
 * would otherwise raise left alone (all 0) and NodePorts only on the node's address (not
 * 127.0.0.1: that would turn route_localnet on).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { binaryPath } from '../binaries.js';
import { freePort } from '../ports.js';
import { startProcess, type Managed } from '../process.js';
import { GATEWAY, NODE_NAME, paths, POD_CIDR } from './layout.js';

export async function startKubeProxy(
  kubeconfig: string,
  log: (line: string) => void,
): Promise<{ proc: Managed; healthz: string }> {
  const bin = binaryPath('kube-proxy', log);
  const healthzPort = await freePort();
  const metricsPort = await freePort();
  const configFile = join(paths.config, 'kube-proxy.yaml');
  writeFileSync(
    configFile,
    stringify({
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      mode: 'nftables',
      clientConnection: { kubeconfig },
      hostnameOverride: NODE_NAME,
      clusterCIDR: POD_CIDR,
      healthzBindAddress: `127.0.0.1:${healthzPort}`,
      metricsBindAddress: `127.0.0.1:${metricsPort}`,
      nodePortAddresses: [`${GATEWAY}/32`],
      conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
    }),
  );
  const proc = startProcess(bin, [`--config=${configFile}`, '--v=1'], join(paths.logs, 'kube-proxy.log'));
  return { proc, healthz: `http://127.0.0.1:${healthzPort}/healthz` };
}
