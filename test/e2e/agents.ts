/**
 * Agent workloads on real pods: a Deployment of test agents from the agent image (the JS SDK
 * runtime by default, the Go one as an option) running a given AgentConfig, and the A2AAgent
 * that judges them. Card URLs name `<svc>.<ns>.svc:<port>`: the operator never dials card hosts,
 * it maps each URL's port through `spec.ports` (port -> targetPort, here the containerPort's
 * name) to the pod IP. There is no DNS in the cluster, and nothing needs it.
 */
import { stringify } from 'yaml';
import type * as k8s from '@kubernetes/client-node';
import type { AgentConfig } from '../agents/agent-config.js';
import { healthyAgentConfig } from '../harness/manifests.js';
import { waitFor, type AgentView } from '../harness/wait.js';
import type { E2ECluster } from './fixture.js';
import { e2eImages } from './operator.js';

export const GATE = 'a2a.dev/card-verified';

export interface AgentPort {
  /** containerPort name; also the A2AAgent's spec.ports[].name and targetPort. */
  name: string;
  containerPort: number;
}

export interface AgentDeploymentOptions {
  namespace: string;
  /** Deployment name; the pods carry `app: <app ?? name>`. */
  name: string;
  app?: string;
  /** The agent image ref (agentImage()). */
  image: string;
  config: AgentConfig;
  /** `js` (@a2a-js/sdk, the image's entrypoint) or `go` (/app/go-agent, official a2a-go). */
  runtime?: 'js' | 'go';
  replicas?: number;
  /** Opt the pods in to the `a2a.dev/card-verified` readiness gate. */
  gate?: boolean;
  /** Default: `http` 8080 and, when the config has gRPC, `grpc` 9090 (healthyAgentConfig's). */
  ports?: AgentPort[];
  /**
   * A rolling update that never takes an old pod away before a new one is Ready
   * (`maxUnavailable: 0`, `maxSurge: 1`) and fails after this many seconds without progress.
   */
  progressDeadlineSeconds?: number;
  /** Extra pod template labels. */
  labels?: Record<string, string>;
}

/** The listeners bind every address of the pod; everything else is the caller's config. */
export function podConfig(config: AgentConfig): AgentConfig {
  return { control: false, ...config, host: '0.0.0.0' };
}

function defaultPorts(config: AgentConfig): AgentPort[] {
  const http = config.http === false ? undefined : (config.http ?? {});
  const ports: AgentPort[] = [];
  if (http) ports.push({ name: 'http', containerPort: http.port ?? 8080 });
  if (config.grpc) ports.push({ name: 'grpc', containerPort: config.grpc.port ?? 9090 });
  return ports;
}

/** A healthy v1.0 agent (JSON-RPC + REST on :8080, gRPC on :9090) whose card names `<svc>.<ns>.svc`. */
export function healthyPodConfig(svc: string, ns: string, extra: Partial<AgentConfig> = {}): AgentConfig {
  return healthyAgentConfig(`${svc}.${ns}.svc`, extra);
}

/** The same card, but the gRPC server never registers the A2A service (UNIMPLEMENTED): a lying card. */
export function lyingPodConfig(svc: string, ns: string): AgentConfig {
  return healthyAgentConfig(`${svc}.${ns}.svc`, { grpc: { port: 9090, register: false } });
}

export function agentDeployment(opts: AgentDeploymentOptions): k8s.V1Deployment {
  const app = opts.app ?? opts.name;
  const ports = opts.ports ?? defaultPorts(opts.config);
  const json = JSON.stringify(podConfig(opts.config));
  const runtime = opts.runtime ?? 'js';
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: opts.name, namespace: opts.namespace, labels: { app } },
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: { app } },
      ...(opts.progressDeadlineSeconds !== undefined
        ? {
            progressDeadlineSeconds: opts.progressDeadlineSeconds,
            strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
          }
        : {}),
      template: {
        metadata: { labels: { app, ...opts.labels } },
        spec: {
          ...(opts.gate ? { readinessGates: [{ conditionType: GATE }] } : {}),
          terminationGracePeriodSeconds: 2,
          enableServiceLinks: false,
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532 },
          containers: [
            {
              name: 'agent',
              image: opts.image,
              imagePullPolicy: 'IfNotPresent',
              // the JS agent is the image's entrypoint; the Go one is /app/go-agent
              ...(runtime === 'go' ? { command: ['/app/go-agent'] } : {}),
              args: [json],
              ports: ports.map((p) => ({ name: p.name, containerPort: p.containerPort, protocol: 'TCP' })),
              // containers are ready once the first listener accepts, so the operator's first
              // probe finds a serving agent
              ...(ports[0]
                ? {
                    readinessProbe: {
                      tcpSocket: { port: ports[0].name },
                      periodSeconds: 1,
                      failureThreshold: 1,
                    },
                  }
                : {}),
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    },
  };
}

export interface A2AAgentOptions {
  namespace: string;
  name: string;
  /** Pods labelled `app: <app>`; default the agent's name. */
  app?: string;
  /** Default http 8080 -> containerPort `http`, grpc 9090 -> `grpc`. */
  ports?: { name: string; port: number; targetPort?: string | number }[];
  /** spec.ports entry that serves the card; default the first. */
  cardPort?: string;
  scheme?: 'HTTP' | 'HTTPS';
  probe?: Record<string, unknown>;
  /** Any other spec fields (hosts, tls, routing, …). */
  extra?: Record<string, unknown>;
}

/** The A2AAgent for the pods of agentDeployment(): ports mapped to the named containerPorts. */
export function a2aAgent(opts: A2AAgentOptions): Record<string, unknown> {
  const ports = opts.ports ?? [
    { name: 'http', port: 8080, targetPort: 'http' },
    { name: 'grpc', port: 9090, targetPort: 'grpc' },
  ];
  return {
    apiVersion: 'a2a.dev/v1alpha1',
    kind: 'A2AAgent',
    metadata: { name: opts.name, namespace: opts.namespace },
    spec: {
      selector: { matchLabels: { app: opts.app ?? opts.name } },
      ports,
      card: { port: opts.cardPort ?? ports[0]!.name, ...(opts.scheme ? { scheme: opts.scheme } : {}) },
      probe: opts.probe ?? { periodSeconds: 5, timeoutSeconds: 2, failureThreshold: 2 },
      ...opts.extra,
    },
  };
}

/** The agent image, built (or found in .cache/images) and imported into the cluster's containerd. */
export async function agentImage(cluster: E2ECluster, log: (line: string) => void): Promise<string> {
  // one build and import per process, shared with the operator image (operator.ts)
  return (await e2eImages(cluster, log)).agent.ref;
}

/** kubectl apply of objects; throws with kubectl's stderr. */
export async function applyObjects(cluster: E2ECluster, ...objects: object[]): Promise<void> {
  const r = await cluster.kubectl(['apply', '-f', '-'], objects.map((o) => stringify(o)).join('---\n'));
  if (r.code !== 0) throw new Error(`kubectl apply: ${r.stderr}`);
}

/** `kubectl get -o json` of one object or a list; throws with kubectl's stderr. */
export async function getJson<T>(cluster: E2ECluster, args: string[]): Promise<T> {
  const r = await cluster.kubectl(['get', ...args, '-o', 'json']);
  if (r.code !== 0) throw new Error(`kubectl get ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PodView {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string; conditions?: PodCondition[] };
}

export function podCondition(pod: PodView, type: string): PodCondition | undefined {
  return pod.status.conditions?.find((c) => c.type === type);
}

/** The pods of `app` (not being deleted). */
export async function agentPods(cluster: E2ECluster, ns: string, app: string): Promise<PodView[]> {
  const list = await getJson<{ items: PodView[] }>(cluster, ['pods', '-n', ns, '-l', `app=${app}`]);
  return list.items.filter((p) => !p.metadata.deletionTimestamp);
}

/** Waits until `count` pods of `app` run with their containers ready and an IP (gates aside). */
export function waitPodsRunning(
  cluster: E2ECluster,
  ns: string,
  app: string,
  count: number,
  timeoutMs = 180_000,
): Promise<PodView[]> {
  return waitFor(
    `${count} running pods of ${ns}/${app}`,
    async () => {
      const pods = (await agentPods(cluster, ns, app)).filter(
        (p) =>
          p.status.phase === 'Running' &&
          p.status.podIP &&
          podCondition(p, 'ContainersReady')?.status === 'True',
      );
      return pods.length === count ? pods : undefined;
    },
    timeoutMs,
    500,
  );
}

/** The A2AAgent as stored. */
export function getAgent(cluster: E2ECluster, ns: string, name: string): Promise<AgentView> {
  return getJson<AgentView>(cluster, ['a2a', name, '-n', ns]);
}

/** Waits until the agent's status, written for its current generation, matches `pred`. */
export async function waitAgent(
  cluster: E2ECluster,
  ns: string,
  name: string,
  what: string,
  pred: (a: AgentView) => boolean,
  timeoutMs = 180_000,
): Promise<AgentView> {
  let seen: AgentView | undefined;
  try {
    return await waitFor(
      `${ns}/${name}: ${what}`,
      async () => {
        const a = (seen = await getAgent(cluster, ns, name));
        return a.status?.observedGeneration === a.metadata.generation && pred(a) ? a : undefined;
      },
      timeoutMs,
      500,
    );
  } catch (err) {
    throw new Error(`${String(err)}\nlast seen status: ${JSON.stringify(seen?.status?.conditions)}`);
  }
}
