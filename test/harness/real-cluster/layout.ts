/**
 * Where the real single-node cluster lives: fixed names and addresses, because kube-proxy's nft
 * table, the kubelet's iptables chains and its `kubepods` cgroups have fixed names anyway (one
 * such cluster per machine, see machine-lock.ts). The subnets are its own: the simulated-pod
 * harness uses 10.244.0.0/16 (podhost.ts) and 10.96.0.0/16 for Services (controlplane.ts).
 */
import { join } from 'node:path';

/** Everything the cluster writes (except what the kernel keeps elsewhere) goes under here. */
export const STATE_ROOT = process.env.A2A_REAL_CLUSTER_ROOT ?? '/tmp/a2a-real-cluster';
/** Held (flock) for the life of a cluster: a second run on the machine waits for the first. */
export const LOCK_FILE = process.env.A2A_REAL_CLUSTER_LOCK ?? '/run/a2a-real-cluster.lock';
/** What was on the host before the cluster touched it, for undo after a crash too. */
export const HOST_STATE_FILE = join(STATE_ROOT, 'host-state.json');

export const NODE_NAME = 'a2a-real-node';
/** The CNI bridge; its gateway address is also where the API server listens (pods reach it). */
export const BRIDGE = 'a2a-real0';
export const CNI_NETWORK = 'a2a-real';
export const POD_CIDR = '10.248.0.0/24';
export const GATEWAY = '10.248.0.1';
export const SERVICE_CIDR = '10.112.0.0/24';
/** The first address of the service range: the `kubernetes` Service. */
export const KUBERNETES_SERVICE_IP = '10.112.0.1';

export const paths = {
  containerd: join(STATE_ROOT, 'containerd'),
  containerdSocket: join(STATE_ROOT, 'containerd', 'containerd.sock'),
  cniConf: join(STATE_ROOT, 'cni', 'net.d'),
  cniIpam: join(STATE_ROOT, 'cni', 'ipam'),
  kubelet: join(STATE_ROOT, 'kubelet'),
  podLogs: join(STATE_ROOT, 'pod-logs'),
  config: join(STATE_ROOT, 'config'),
  logs: join(STATE_ROOT, 'logs'),
};
