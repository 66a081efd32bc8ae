/**
 * containerd for the real cluster: its own config, root, state and socket under the state root;
 * the CRI plugin with runc (not crun: cgroups in hybrid mode), cgroupfs (no systemd here),
 * restrict_oom_score_adj (root here lacks CAP_SYS_RESOURCE: without it every sandbox fails with
 * "can't get final child's PID from pipe"), the local pause image as sandbox image, Debian's CNI
 * plugins and a bridge network on the cluster's own subnet.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, type Managed } from '../process.js';
import { BRIDGE, CNI_NETWORK, GATEWAY, paths, POD_CIDR } from './layout.js';
import { PAUSE_IMAGE } from './images.js';

export function which(cmd: string, fallback: string): string {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin', '/sbin'])) {
    const p = join(dir, cmd);
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return fallback;
}

export const CNI_BIN_DIR = process.env.A2A_CNI_BIN_DIR ?? '/usr/lib/cni';

function config(runc: string): string {
  const d = paths.containerd;
  return `version = 2
root = "${join(d, 'root')}"
state = "${join(d, 'state')}"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "${paths.containerdSocket}"

[plugins."io.containerd.internal.v1.opt"]
  path = "${join(d, 'opt')}"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "${runc}"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${CNI_BIN_DIR}"
    conf_dir = "${paths.cniConf}"
    max_conf_num = 1
`;
}

function cniConflist(): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: CNI_NETWORK,
      plugins: [
        {
          type: 'bridge',
          bridge: BRIDGE,
          isGateway: true,
          // no masquerading: pods talk only to the node and to each other
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: POD_CIDR, gateway: GATEWAY }]],
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: paths.cniIpam,
          },
        },
      ],
    },
    null,
    2,
  );
}

export class Containerd {
  private proc?: Managed;
  readonly address = paths.containerdSocket;

  async start(): Promise<void> {
    const runc = which('runc', '/usr/sbin/runc');
    mkdirSync(paths.containerd, { recursive: true });
    mkdirSync(paths.cniConf, { recursive: true });
    mkdirSync(paths.logs, { recursive: true });
    const configFile = join(paths.config, 'containerd.toml');
    mkdirSync(paths.config, { recursive: true });
    writeFileSync(configFile, config(runc));
    writeFileSync(join(paths.cniConf, `10-${CNI_NETWORK}.conflist`), cniConflist());
    this.proc = startProcess(
      which('containerd', '/usr/bin/containerd'),
      ['--config', configFile],
      join(paths.logs, 'containerd.log'),
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (this.proc.child.exitCode !== null) throw new Error(`containerd exited:\n${this.proc.tail(30)}`);
      if (
        await ctr(this.address, ['version'])
          .then(() => true)
          .catch(() => false)
      )
        return;
      if (Date.now() > deadline) throw new Error(`containerd not answering:\n${this.proc.tail(30)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Imports a docker-archive (or OCI) tar into the k8s.io namespace, where the kubelet finds it. */
  importImage(tarPath: string): Promise<string> {
    return importImage(tarPath, this.address);
  }

  async stop(): Promise<void> {
    await this.proc?.stop('SIGTERM', 10_000);
  }
}

/** Runs `ctr` against the given containerd socket. */
export function ctr(address: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'ctr',
      ['--address', address, ...args],
      { timeout: 300_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`ctr ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
}

/** Imports an image tar into the cluster's containerd (for the e2e fixture; see fixture.ts). */
export function importImage(tarPath: string, address = paths.containerdSocket): Promise<string> {
  return ctr(address, ['-n', 'k8s.io', 'images', 'import', tarPath]);
}
