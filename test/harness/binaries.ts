/**
 * Finds the control-plane binaries the tests run: the envtest conventions first
 * (TEST_ASSET_KUBE_APISERVER / TEST_ASSET_ETCD / TEST_ASSET_KUBECTL, then KUBEBUILDER_ASSETS),
 * otherwise builds them from the Go module in test/controlplane into
 * .cache/bin/<hash of the module>, so a rebuild happens only when the module changes.
 *
 * helm comes from its own module, test/helm (its Kubernetes libraries would fight the control
 * plane's pins), built into .cache/bin/helm-<hash> the same way; TEST_ASSET_HELM overrides it.
 *
 * The Go test agent (the second runtime of the probe tests, on the official A2A Go SDK) comes
 * from test/agents/go, built into .cache/bin/go-agent-<hash> the same way.
 *
 * The node binaries of the real single-node cluster (kubelet, kube-controller-manager,
 * kube-scheduler, kube-proxy) come from test/node: the same k8s.io/kubernetes release and
 * `replace` pins as test/controlplane, in a module of its own so adding them does not change the
 * control plane's hash (nor rebuild it); both share Go's build cache. Built into
 * .cache/bin/node-<hash>; TEST_ASSET_KUBELET etc. override them.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const MODULE_DIR = join(REPO_ROOT, 'test', 'controlplane');
const CACHE_DIR = join(REPO_ROOT, '.cache', 'bin');

/** The Kubernetes release the module pins; stamped into the binaries' version. */
export const KUBERNETES_VERSION = 'v1.37.2';

export type BinaryName =
  'kube-apiserver' | 'etcd' | 'kubectl' | 'kstatus-check' | 'cel-eval' | 'helm' | NodeBinaryName;

export type NodeBinaryName = 'kubelet' | 'kube-controller-manager' | 'kube-scheduler' | 'kube-proxy';

const NODE_BUILT: NodeBinaryName[] = ['kubelet', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy'];
const NODE_MODULE_DIR = join(REPO_ROOT, 'test', 'node');

const BUILT: BinaryName[] = ['kube-apiserver', 'etcd', 'kubectl', 'kstatus-check', 'cel-eval'];

const HELM_MODULE_DIR = join(REPO_ROOT, 'test', 'helm');
/** The helm release test/helm/go.mod pins (`tool helm.sh/helm/v3/cmd/helm`). */
export const HELM_VERSION = 'v3.22.0';

function listFiles(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(listFiles(p));
    else if (/\.(go|mod|sum)$/.test(name)) out.push(p);
  }
  return out;
}

function moduleHash(dir: string): string {
  const h = createHash('sha256');
  for (const f of listFiles(dir)) {
    h.update(f.slice(dir.length));
    h.update(readFileSync(f));
  }
  return h.digest('hex').slice(0, 16);
}

function envAsset(name: BinaryName): string | undefined {
  const specific = process.env[`TEST_ASSET_${name.toUpperCase().replace(/-/g, '_')}`];
  if (specific) return specific;
  const assets = process.env.KUBEBUILDER_ASSETS;
  if (assets && existsSync(join(assets, name))) return join(assets, name);
  return undefined;
}

interface GoBuild {
  /** The module built; its hash names the cache folder, so a change rebuilds. */
  moduleDir: string;
  /** Prefix of the cache folder's name (before the hash). */
  prefix: string;
  /** Files the build leaves in the folder; all present means already built. */
  outputs: string[];
  /** For the log line. */
  what: string;
  /** `go` arguments that build into `out` (a folder). */
  args: (out: string) => string[];
}

/**
 * Runs a `go build` into .cache/bin/<prefix><hash> once (idempotent, safe across processes): it
 * builds into a temporary folder and renames it, so nobody sees a half-built folder.
 */
function buildCached(b: GoBuild, log: (line: string) => void): string {
  const dir = join(CACHE_DIR, `${b.prefix}${moduleHash(b.moduleDir)}`);
  if (b.outputs.every((o) => existsSync(join(dir, o)))) return dir;
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  log(`building ${b.what} into ${dir}`);
  const started = Date.now();
  execFileSync('go', b.args(tmp), { cwd: b.moduleDir, stdio: ['ignore', 'inherit', 'inherit'] });
  log(`built in ${Math.round((Date.now() - started) / 1000)}s`);
  try {
    renameSync(tmp, dir);
  } catch {
    // another process finished the same build first: its result is identical
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/** The version stamp of the Kubernetes binaries (what `--version` and the node's status say). */
function kubernetesLdflags(): string {
  const minor = KUBERNETES_VERSION.split('.')[1];
  return [
    '-s',
    '-w',
    `-X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION}`,
    '-X k8s.io/component-base/version.gitMajor=1',
    `-X k8s.io/component-base/version.gitMinor=${minor}`,
    `-X k8s.io/client-go/pkg/version.gitVersion=${KUBERNETES_VERSION}`,
  ].join(' ');
}

/** Builds every binary of the Go module into the cache (idempotent, safe across processes). */
export function buildBinaries(log: (line: string) => void = () => {}): string {
  const ldflags = kubernetesLdflags();
  return buildCached(
    {
      moduleDir: MODULE_DIR,
      prefix: '',
      outputs: BUILT,
      what: `control-plane binaries from test/controlplane (Kubernetes ${KUBERNETES_VERSION})`,
      args: (out) => ['build', '-o', out + '/', '-ldflags', ldflags, './cmd/...'],
    },
    log,
  );
}

/**
 * Builds helm from test/helm (idempotent, safe across processes), stamped as the release
 * Makefile does: without the ldflags `helm version` says v3.x and helm's default Kubernetes
 * version (capabilities, lint) would be v1.20.
 */
export function buildHelm(log: (line: string) => void = () => {}): string {
  const minor = KUBERNETES_VERSION.split('.')[1];
  const ldflags = [
    '-s',
    '-w',
    `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
    '-X helm.sh/helm/v3/internal/version.gitTreeState=clean',
    '-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1',
    `-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${minor}`,
    '-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1',
    `-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${minor}`,
  ].join(' ');
  const dir = buildCached(
    {
      moduleDir: HELM_MODULE_DIR,
      prefix: 'helm-',
      outputs: ['helm'],
      what: `helm ${HELM_VERSION} from test/helm`,
      args: (out) => [
        'build',
        '-trimpath',
        '-o',
        join(out, 'helm'),
        '-ldflags',
        ldflags,
        'helm.sh/helm/v3/cmd/helm',
      ],
    },
    log,
  );
  return join(dir, 'helm');
}

const GO_AGENT_MODULE_DIR = join(REPO_ROOT, 'test', 'agents', 'go');

/** Builds the Go test agent from test/agents/go (idempotent, safe across processes). */
export function buildGoAgent(log: (line: string) => void = () => {}): string {
  const dir = buildCached(
    {
      moduleDir: GO_AGENT_MODULE_DIR,
      prefix: 'go-agent-',
      outputs: ['go-agent'],
      what: 'the Go test agent from test/agents/go',
      args: (out) => ['build', '-trimpath', '-o', join(out, 'go-agent'), '-ldflags', '-s -w', '.'],
    },
    log,
  );
  return join(dir, 'go-agent');
}

/** Builds the four node binaries of test/node into the cache (idempotent, safe across processes). */
export function buildNodeBinaries(log: (line: string) => void = () => {}): string {
  const ldflags = kubernetesLdflags();
  return buildCached(
    {
      moduleDir: NODE_MODULE_DIR,
      prefix: 'node-',
      outputs: NODE_BUILT,
      what: `node binaries (${NODE_BUILT.join(', ')}) from test/node (Kubernetes ${KUBERNETES_VERSION})`,
      args: (out) => ['build', '-o', out + '/', '-ldflags', ldflags, './cmd/...'],
    },
    log,
  );
}

function isNodeBinary(name: BinaryName): name is NodeBinaryName {
  return (NODE_BUILT as string[]).includes(name);
}

/** Path of one binary: from the envtest variables when set, else built from its module. */
export function binaryPath(name: BinaryName, log?: (line: string) => void): string {
  const fromEnv = envAsset(name);
  if (fromEnv) return fromEnv;
  if (name === 'helm') return buildHelm(log);
  if (isNodeBinary(name)) return join(buildNodeBinaries(log), name);
  return join(buildBinaries(log), name);
}
