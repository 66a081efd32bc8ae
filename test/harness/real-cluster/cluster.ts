/**
 * A real single-node Kubernetes: kube-apiserver + etcd (controlplane.ts), containerd with a CNI
 * bridge, kube-controller-manager, kube-scheduler, kubelet and kube-proxy, started in that order
 * and health-checked (controllers' /healthz, kubelet /healthz and the node Ready, kube-proxy
 * /healthz, the `default` ServiceAccount), stopped in reverse; then every host-wide side effect is
 * undone (host-state.ts). One per machine (machine-lock.ts): a second run waits; a run that finds
 * the record of a crashed one undoes that first.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { binaryPath, buildBinaries, buildNodeBinaries } from '../binaries.js';
import { ControlPlane, httpsGet, writeKubeconfig } from '../controlplane.js';
import type { Managed } from '../process.js';
import { startControllerManager, startScheduler } from './controllers.js';
import { CNI_BIN_DIR, Containerd, which } from './containerd.js';
import { healthzOk, waitHealthy } from './health.js';
import { readRecord, recordHost, undoHost, type HostRecord } from './host-state.js';
import { startKubelet } from './kubelet.js';
import { startKubeProxy } from './kube-proxy.js';
import {
  BRIDGE,
  GATEWAY,
  KUBERNETES_SERVICE_IP,
  LOCK_FILE,
  NODE_NAME,
  paths,
  POD_CIDR,
  SERVICE_CIDR,
  STATE_ROOT,
} from './layout.js';
import { takeMachineLock } from './machine-lock.js';
import { buildKubectlImage, buildPauseImage, KUBECTL_IMAGE, PAUSE_IMAGE } from './images.js';

export interface RealCluster {
  kubeconfigPath: string;
  server: string;
  caFile: string;
  /** containerd's socket (`ctr --address`). */
  containerdAddress: string;
  nodeName: string;
  pauseImage: string;
  /** kubectl in an image (entrypoint /kubectl): a pod that talks to the API server. */
  kubectlImage: string;
  kubectlPath: string;
  /** Imports a docker-archive tar into containerd's k8s.io namespace (the kubelet's images). */
  importImage(tarPath: string): Promise<void>;
  /** Stops everything in reverse and undoes the host's changes; throws if some could not be. */
  stop(): Promise<void>;
}

export interface RealClusterOptions {
  log?: (line: string) => void;
}

function requirePrerequisites(): void {
  const missing = ['containerd', 'ctr', 'runc', 'nft', 'iptables', 'flock', 'buildah', 'mmdebstrap', 'gcc']
    .filter((c) => which(c, '') === '')
    .concat(
      ['bridge', 'host-local', 'loopback']
        .filter((p) => !existsSync(join(CNI_BIN_DIR, p)))
        .map((p) => `${CNI_BIN_DIR}/${p}`),
    );
  if (missing.length > 0)
    throw new Error(
      `the real cluster needs ${missing.join(', ')} (Debian: apt-get install containerd runc containernetworking-plugins nftables iptables buildah mmdebstrap gcc)`,
    );
  if (process.getuid?.() !== 0) throw new Error('the real cluster needs root (netfilter, cgroups, mounts)');
}

/** Token of a node component: a static token in the API server's token file. */
function token(name: string): string {
  return `${name}-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
}

export async function startRealCluster(opts: RealClusterOptions = {}): Promise<RealCluster> {
  const log = opts.log ?? (() => {});
  requirePrerequisites();
  // builds first (safe across processes), so a waiting run does not build while holding the lock
  buildBinaries(log);
  buildNodeBinaries(log);
  const pauseTar = buildPauseImage(log);
  const kubectlTar = buildKubectlImage(log);
  const kubectlPath = binaryPath('kubectl');

  const lock = await takeMachineLock(LOCK_FILE, log);
  const procs: { name: string; proc: Managed }[] = [];
  let controlPlane: ControlPlane | undefined;
  let containerd: Containerd | undefined;
  let record: HostRecord | undefined;
  let stopped = false;

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    const started = Date.now();
    for (const { proc } of procs.reverse()) await proc.stop('SIGTERM', 10_000);
    await containerd?.stop();
    await controlPlane?.stop();
    const left = record ? await undoHost(record) : [];
    await lock.release();
    log(`real cluster stopped and host restored in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    if (left.length > 0) throw new Error(`the real cluster left behind:\n  ${left.join('\n  ')}`);
  };

  try {
    const stale = readRecord();
    if (stale) {
      log(`undoing the host changes of a previous run that did not stop (${STATE_ROOT})`);
      const left = await undoHost(stale);
      if (left.length > 0) throw new Error(`cannot clean up after a previous run:\n  ${left.join('\n  ')}`);
    }
    record = recordHost();
    const t0 = Date.now();
    const since = (): string => `${((Date.now() - t0) / 1000).toFixed(1)}s`;

    // The bridge exists before the CNI plugin's first pod: the API server listens on its gateway.
    execFileSync('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
    execFileSync('ip', ['addr', 'add', `${GATEWAY}/${POD_CIDR.split('/')[1]}`, 'dev', BRIDGE]);
    execFileSync('ip', ['link', 'set', BRIDGE, 'up']);

    const tokens = {
      kubelet: token('kubelet'),
      proxy: token('kube-proxy'),
      kcm: token('kcm'),
      scheduler: token('scheduler'),
    };
    controlPlane = new ControlPlane();
    const info = await controlPlane.start({
      log,
      parentDir: STATE_ROOT,
      node: {
        address: GATEWAY,
        serviceClusterIpRange: SERVICE_CIDR,
        servingSans: [
          `IP:${GATEWAY}`,
          `IP:${KUBERNETES_SERVICE_IP}`,
          'DNS:kubernetes',
          'DNS:kubernetes.default',
          'DNS:kubernetes.default.svc',
          'DNS:kubernetes.default.svc.cluster.local',
        ],
        tokens: [
          { token: tokens.kubelet, user: `system:node:${NODE_NAME}`, groups: ['system:nodes'] },
          { token: tokens.proxy, user: 'system:kube-proxy', groups: [] },
          { token: tokens.kcm, user: 'system:kube-controller-manager', groups: [] },
          { token: tokens.scheduler, user: 'system:kube-scheduler', groups: [] },
        ],
      },
    });
    log(`api server up (${since()})`);
    const kubeconfig = (name: keyof typeof tokens): string => {
      const p = join(paths.config, `${name}.kubeconfig`);
      writeKubeconfig(p, info.server, info.caFile, tokens[name], name);
      return p;
    };

    containerd = new Containerd();
    await containerd.start();
    await containerd.importImage(pauseTar);
    await containerd.importImage(kubectlTar);
    log(`containerd up, ${PAUSE_IMAGE} and ${KUBECTL_IMAGE} imported (${since()})`);

    const kcm = await startControllerManager({
      kubeconfig: kubeconfig('kcm'),
      caFile: info.caFile,
      saKey: join(info.dir, 'sa.key'),
      log,
    });
    procs.push({ name: 'kube-controller-manager', proc: kcm.proc });
    const scheduler = await startScheduler(kubeconfig('scheduler'), log);
    procs.push({ name: 'kube-scheduler', proc: scheduler.proc });
    const kubelet = await startKubelet({
      kubeconfig: kubeconfig('kubelet'),
      caFile: info.caFile,
      containerdSocket: containerd.address,
      log,
    });
    procs.push({ name: 'kubelet', proc: kubelet.proc });
    const proxy = await startKubeProxy(kubeconfig('proxy'), log);
    procs.push({ name: 'kube-proxy', proc: proxy.proc });

    const ca = readFileSync(info.caFile);
    const api = async (path: string): Promise<unknown> => {
      const r = await httpsGet(`${info.server}${path}`, ca, info.adminToken);
      if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
      return JSON.parse(r.body) as unknown;
    };
    await waitHealthy('kube-controller-manager', kcm.proc, () => healthzOk(kcm.healthz));
    await waitHealthy('kube-scheduler', scheduler.proc, () => healthzOk(scheduler.healthz));
    await waitHealthy('kubelet', kubelet.proc, () => healthzOk(kubelet.healthz));
    await waitHealthy('node Ready', kubelet.proc, async () => {
      const node = (await api(`/api/v1/nodes/${NODE_NAME}`)) as {
        status?: { conditions?: { type: string; status: string; message?: string }[] };
      };
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' || `Ready=${ready?.status}: ${ready?.message ?? ''}`;
    });
    log(`node ${NODE_NAME} Ready (${since()})`);
    await waitHealthy('kube-proxy', proxy.proc, () => healthzOk(proxy.healthz));
    await waitHealthy('default ServiceAccount', kcm.proc, async () => {
      await api('/api/v1/namespaces/default/serviceaccounts/default');
      return true;
    });
    log(
      `real cluster up in ${since()}: ${info.server}, pods ${POD_CIDR} on ${BRIDGE}, services ${SERVICE_CIDR}`,
    );

    return {
      kubeconfigPath: info.kubeconfigPath,
      server: info.server,
      caFile: info.caFile,
      containerdAddress: containerd.address,
      nodeName: NODE_NAME,
      pauseImage: PAUSE_IMAGE,
      kubectlImage: KUBECTL_IMAGE,
      kubectlPath,
      importImage: async (tarPath) => {
        await containerd?.importImage(tarPath);
      },
      stop,
    };
  } catch (err) {
    await stop().catch((e: unknown) => log(String(e)));
    throw err;
  }
}
