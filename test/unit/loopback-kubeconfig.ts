/**
 * The kube client's unit tests answer from a `node:http` server on loopback: this starts it on a
 * free port and returns a KubeConfig whose current cluster is that server (plain HTTP, which the
 * client accepts only with skipTLSVerify).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export async function loopbackKubeConfig(server: Server): Promise<KubeConfig> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}
