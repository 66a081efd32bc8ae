/**
 * The operator installed on the real cluster the way a user installs it: the image built from
 * the Dockerfile (test/harness/images/build.ts), imported into containerd, and `helm install` of
 * charts/a2a-operator with that image, in a namespace of its own, leader election on, watching
 * only the namespaces given (two operators on one cluster must never watch the same namespace).
 * `installOperator` returns once the Deployment is Available, every replica passed its /readyz
 * probe and one of them holds the Lease.
 */
import * as k8s from '@kubernetes/client-node';
import { buildImages, type BuiltImages } from '../harness/images/build.js';
import { CHART_DIR, helm } from '../harness/helm.js';
import { waitFor } from '../harness/wait.js';
import type { E2ECluster } from './fixture.js';

export interface InstallOptions {
  /** Namespace of the release: created when missing (and then deleted by uninstall). Default: a fresh `a2a-op-xxxxxx`. */
  namespace?: string;
  /** Helm release name. Default: `op-<random>`. */
  release?: string;
  /** Namespaces whose A2AAgents this operator watches (RBAC granted in each). */
  watchNamespaces: string[];
  /** Default 2 (the chart's). */
  replicas?: number;
  /** Further `--set` values, e.g. `logLevel=debug`, `rbac.namespaced=false`. */
  set?: string[];
  /** How long to wait for the rollout (default 180 s: the machine is busy). */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface InstalledOperator {
  namespace: string;
  release: string;
  /** `localhost/a2a-operator:<content hash>`. */
  imageRef: string;
  /** The Deployment's name (the chart's fullname). */
  deployment: string;
  leaseName: string;
  /** Label selector of the operator pods. */
  selector: string;
  /** The `--set` values it was installed with (for `helm template` of the same release). */
  values: string[];
  /** The operator pods (terminating ones included: check deletionTimestamp). */
  pods(): Promise<k8s.V1Pod[]>;
  /** The Lease as stored, or undefined before anyone created it. */
  lease(): Promise<k8s.V1Lease | undefined>;
  /** The pod holding the Lease (the operator's identity is its pod name), or undefined. */
  leaderPod(): Promise<string | undefined>;
  /** Waits until every replica is Ready and a live pod holds the Lease; returns the leader. */
  waitReady(timeoutMs?: number): Promise<string>;
  /** Logs of every operator pod (and of their previous containers), for failure messages. */
  logs(tail?: number): Promise<string>;
  /** `helm uninstall --wait`, then the namespace if this install created it. Idempotent. */
  uninstall(): Promise<void>;
}

let images: BuiltImages | undefined;
const imported = new Set<string>();

/**
 * Both images (operator and test agent), built once per process (cached on disk across runs) and
 * imported into the cluster's containerd.
 */
export async function e2eImages(
  cluster: E2ECluster,
  log: (line: string) => void = stderrLog,
): Promise<BuiltImages> {
  images ??= buildImages(log);
  for (const image of [images.operator, images.agent]) {
    if (imported.has(image.ref)) continue;
    await cluster.importImage(image.tar);
    imported.add(image.ref);
  }
  return images;
}

function stderrLog(line: string): void {
  process.stderr.write(`[e2e:operator] ${line}\n`);
}

function suffix(): string {
  return Math.random().toString(36).slice(2, 8);
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: number; statusCode?: number; response?: { statusCode?: number } };
  return e.code === 404 || e.statusCode === 404 || e.response?.statusCode === 404;
}

/** waitFor (every 500 ms), with the operator's logs and events appended when it times out. */
async function poll<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs: number,
  diagnose: () => Promise<string>,
): Promise<T> {
  try {
    return await waitFor(what, fn, timeoutMs, 500);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${await diagnose()}`);
  }
}

export async function installOperator(cluster: E2ECluster, opts: InstallOptions): Promise<InstalledOperator> {
  const log = opts.log ?? stderrLog;
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  const apps = cluster.kc.makeApiClient(k8s.AppsV1Api);
  const coordination = cluster.kc.makeApiClient(k8s.CoordinationV1Api);

  const { operator } = await e2eImages(cluster, log);
  const [repository, tag] = [
    operator.ref.slice(0, operator.ref.lastIndexOf(':')),
    operator.ref.split(':').pop()!,
  ];

  let namespace: string;
  let ownNamespace = false;
  if (opts.namespace) {
    namespace = opts.namespace;
    try {
      await core.readNamespace({ name: namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      ownNamespace = true;
    }
  } else {
    namespace = await cluster.createNamespace('a2a-op');
    ownNamespace = true;
  }
  const release = opts.release ?? `op-${suffix()}`;
  const replicas = opts.replicas ?? 2;
  // The chart's fullname: the release name when it already contains the chart's name.
  const deployment = release.includes('a2a-operator') ? release : `${release}-a2a-operator`;
  const leaseName = 'a2a-operator';
  const selector = `app.kubernetes.io/name=a2a-operator,app.kubernetes.io/instance=${release}`;
  const values = [
    `image.repository=${repository}`,
    `image.tag=${tag}`,
    'image.pullPolicy=IfNotPresent',
    `replicaCount=${replicas}`,
    'leaderElection.enabled=true',
    `leaderElection.leaseName=${leaseName}`,
    // Roles in the watched namespaces only: nothing cluster-scoped, so releases of the three
    // e2e engineers (and a crashed run) never collide on a ClusterRole.
    'rbac.namespaced=true',
    `watchNamespaces={${opts.watchNamespaces.join(',')}}`,
    ...(opts.set ?? []),
  ];

  const pods = async (): Promise<k8s.V1Pod[]> =>
    (await core.listNamespacedPod({ namespace, labelSelector: selector })).items;
  const lease = async (): Promise<k8s.V1Lease | undefined> => {
    try {
      return await coordination.readNamespacedLease({ name: leaseName, namespace });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const leaderPod = async (): Promise<string | undefined> =>
    (await lease())?.spec?.holderIdentity || undefined;

  const logs = async (tail = 200): Promise<string> => {
    const out: string[] = [];
    let list: k8s.V1Pod[] = [];
    try {
      list = await pods();
    } catch (err) {
      return `(could not list operator pods: ${String(err)})`;
    }
    for (const p of list) {
      const name = p.metadata!.name!;
      const cs = p.status?.containerStatuses?.[0];
      out.push(
        `--- pod ${name}: phase ${p.status?.phase}, ready ${cs?.ready}, restarts ${cs?.restartCount ?? 0}, state ${JSON.stringify(cs?.state)}`,
      );
      if ((cs?.restartCount ?? 0) > 0) {
        const prev = await cluster.kubectl(['-n', namespace, 'logs', name, '--previous', `--tail=${tail}`]);
        out.push(`(previous container)\n${prev.stdout}${prev.stderr}`);
      }
      const cur = await cluster.kubectl(['-n', namespace, 'logs', name, `--tail=${tail}`]);
      out.push(cur.stdout + cur.stderr);
    }
    const events = await cluster.kubectl(['-n', namespace, 'get', 'events', '--sort-by=.lastTimestamp']);
    out.push(`--- events in ${namespace}\n${events.stdout}${events.stderr}`);
    return out.join('\n');
  };

  const waitReady = async (waitMs = timeoutMs): Promise<string> => {
    await poll(
      `Deployment ${namespace}/${deployment} Available with ${replicas} ready replicas`,
      async () => {
        const d = await apps.readNamespacedDeployment({ name: deployment, namespace });
        const available = d.status?.conditions?.find((c) => c.type === 'Available')?.status === 'True';
        const s = d.status;
        const done =
          available &&
          (s?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) &&
          s?.readyReplicas === replicas &&
          s?.updatedReplicas === replicas &&
          (s?.replicas ?? 0) === replicas;
        return done ? true : undefined;
      },
      waitMs,
      () => logs(),
    );
    return poll(
      `a live operator pod of ${release} to hold Lease ${namespace}/${leaseName}`,
      async () => {
        const holder = await leaderPod();
        if (!holder) return undefined;
        const live = (await pods()).some(
          (p) => p.metadata?.name === holder && !p.metadata?.deletionTimestamp,
        );
        return live ? holder : undefined;
      },
      waitMs,
      () => logs(),
    );
  };

  let uninstalled = false;
  const uninstall = async (): Promise<void> => {
    if (uninstalled) return;
    uninstalled = true;
    const r = await helm(['uninstall', release, '--namespace', namespace, '--wait', '--timeout', '2m'], {
      kubeconfig: cluster.kubeconfigPath,
      timeoutMs: 180_000,
    });
    if (r.code !== 0 && !/not found/i.test(r.stderr)) log(`helm uninstall ${release}: ${r.stderr.trim()}`);
    if (ownNamespace) await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  };

  const started = Date.now();
  const args = [
    'install',
    release,
    CHART_DIR,
    '--namespace',
    namespace,
    ...values.flatMap((v) => ['--set', v]),
  ];
  const r = await helm(args, { kubeconfig: cluster.kubeconfigPath, timeoutMs: 180_000 });
  if (r.code !== 0) {
    await uninstall();
    throw new Error(`helm ${args.join(' ')} failed:\n${r.stderr}`);
  }
  try {
    const leader = await waitReady();
    log(
      `release ${release} in ${namespace}: ${replicas} replicas Ready in ${((Date.now() - started) / 1000).toFixed(1)}s, leader ${leader}, watching ${opts.watchNamespaces.join(',')}`,
    );
  } catch (err) {
    await uninstall();
    throw err;
  }

  return {
    namespace,
    release,
    imageRef: operator.ref,
    deployment,
    leaseName,
    selector,
    values,
    pods,
    lease,
    leaderPod,
    waitReady,
    logs,
    uninstall,
  };
}
