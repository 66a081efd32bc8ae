/**
 * Loads a KubeConfig the way kubectl users expect: an explicit path wins, then KUBECONFIG,
 * then ~/.kube/config, then the in-cluster service account.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigError } from './errors.js';

export interface LoadKubeConfigOptions {
  /** Path to a kubeconfig file; overrides KUBECONFIG and the in-cluster config. */
  path?: string;
  /** Context to use instead of the file's current-context. */
  context?: string;
}

/** @throws KubeConfigError naming the file (or "the default kubeconfig") and what was wrong. */
export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  const source = opts.path
    ? `kubeconfig ${opts.path}`
    : 'the default kubeconfig (KUBECONFIG, ~/.kube/config or in-cluster)';
  try {
    if (opts.path) kc.loadFromFile(opts.path);
    // loadFromDefault covers KUBECONFIG (colon-separated), ~/.kube/config and in-cluster.
    else kc.loadFromDefault();
  } catch (err) {
    throw new KubeConfigError(`cannot load ${source}: ${loadFailure(err)}`, { cause: err });
  }
  if (opts.context) kc.setCurrentContext(opts.context);
  if (!kc.getCurrentCluster()) throw new KubeConfigError(`${source} names no current cluster`);
  return kc;
}

/** The namespace of the current context (in-cluster: the pod's namespace), or undefined. */
export function currentNamespace(kc: KubeConfig): string | undefined {
  const ctx = kc.getContextObject(kc.getCurrentContext());
  return ctx?.namespace;
}

/**
 * Why a kubeconfig did not load, without quoting the file: a YAML error's message carries a
 * snippet of the lines around it, and those may hold a token or a key.
 */
function loadFailure(err: unknown): string {
  const e = err as {
    code?: unknown;
    name?: unknown;
    reason?: unknown;
    mark?: { line?: unknown };
    message?: unknown;
  };
  if (typeof e.code === 'string') return e.code;
  if (e.name === 'YAMLException') {
    const line = typeof e.mark?.line === 'number' ? ` at line ${e.mark.line + 1}` : '';
    return `invalid YAML (${String(e.reason)}${line})`;
  }
  return String(e.message ?? err);
}
