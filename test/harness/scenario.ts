/**
 * The prologue most operator scenarios share: a namespace on the shared control plane, agent pods
 * and manifests set up by the test file, one operator watching that namespace, and teardown of
 * the operator and pods. `scenario()` registers the before/after hooks; the file keeps its own
 * setup (which pods, which manifests, what to wait for) in `setup` and `ready`.
 */
import { after, before } from 'node:test';
import { useCluster, type Cluster } from './cluster.js';
import type { AgentPod } from './agent-pod.js';
import { startOperator, type OperatorProcess } from './operator.js';

export interface Scenario {
  readonly cluster: Cluster;
  readonly ns: string;
  readonly pods: AgentPod[];
  /** Settable, so a test that restarts the operator leaves the new one for teardown to stop. */
  operator: OperatorProcess;
}

export interface ScenarioOptions {
  /** Pods and manifests to create before the operator starts. */
  setup?: (s: Scenario) => Promise<void>;
  /** Runs once the operator is ready, e.g. to wait for an agent to settle. */
  ready?: (s: Scenario) => Promise<void>;
}

/** Registers the hooks; the returned fields are set once `before` has run. */
export function scenario(namespacePrefix: string, opts: ScenarioOptions = {}): Scenario {
  let cluster: Cluster | undefined;
  let ns: string | undefined;
  let operator: OperatorProcess | undefined;
  const pods: AgentPod[] = [];
  const unset = (what: string): never => {
    throw new Error(`scenario ${namespacePrefix}: ${what} is set in before()`);
  };
  const s: Scenario = {
    get cluster() {
      return cluster ?? unset('cluster');
    },
    get ns() {
      return ns ?? unset('ns');
    },
    pods,
    get operator() {
      return operator ?? unset('operator');
    },
    set operator(op: OperatorProcess) {
      operator = op;
    },
  };

  before(async () => {
    cluster = await useCluster();
    ns = await cluster.createNamespace(namespacePrefix);
    await opts.setup?.(s);
    operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
    await operator.waitReady();
    await opts.ready?.(s);
  });

  after(async () => {
    await operator?.stop();
    await Promise.all(pods.map((p) => p.destroy()));
  });

  return s;
}
