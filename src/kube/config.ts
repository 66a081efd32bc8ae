/**
 * Loads a KubeConfig the way kubectl users expect: an explicit path wins, then KUBECONFIG,
 * then ~/.kube/config, then the in-cluster service account.
 */
import { KubeConfig } from '@kubernetes/client-node';

export interface LoadKubeConfigOptions {
  /** Path to a kubeconfig file; overrides KUBECONFIG and the in-cluster config. */
  path?: string;
  /** Context to use instead of the file's current-context. */
  context?: string;
}

export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  if (opts.path) kc.loadFromFile(opts.path);
  // loadFromDefault covers KUBECONFIG (colon-separated), ~/.kube/config and in-cluster.
  else kc.loadFromDefault();
  if (opts.context) kc.setCurrentContext(opts.context);
  if (!kc.getCurrentCluster()) throw new Error('kubeconfig has no current cluster');
  return kc;
}

/** The namespace of the current context (in-cluster: the pod's namespace), or undefined. */
export function currentNamespace(kc: KubeConfig): string | undefined {
  const ctx = kc.getContextObject(kc.getCurrentContext());
  return ctx?.namespace;
}
