/**
 * Runs the operator as a user would: `a2a-operator run` (the image's entrypoint, from source
 * via tsx, or the compiled dist/ with `dist: true`) as a child process with a kubeconfig, its metrics/health and card servers on free
 * loopback ports.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './binaries.js';
import { imageEntrypoint, type ImageEntrypoint } from './image-entrypoint.js';
import { freePort } from './ports.js';
import { startProcess, type Managed } from './process.js';

export interface OperatorProcess {
  proc: Managed;
  metricsUrl: string;
  cardsUrl: string;
  logFile: string;
  waitReady(timeoutMs?: number): Promise<void>;
  metrics(): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface OperatorOptions {
  kubeconfig: string;
  namespaces?: string[];
  leaderElect?: boolean;
  leaseNamespace?: string;
  identity?: string;
  extraArgs?: string[];
  env?: NodeJS.ProcessEnv;
  /**
   * Run the compiled dist/cli/main.js with the image's Node.js options (as the image does; `npm run
   * build` first) instead of src via tsx.
   */
  dist?: boolean;
  /**
   * Node.js options before the entry point (e.g. --cpu-prof, which NODE_OPTIONS refuses); after the
   * image's, so they win.
   */
  nodeArgs?: string[];
}

/**
 * What `node` is given to run the operator: from source through tsx, or the image's script from
 * `dist` with the image's Node.js options first and the caller's after (V8 takes a flag's last
 * value, so the caller's win). Pure, so a test checks the command rather than this file's text.
 */
export function operatorArgv(
  opts: OperatorOptions,
  ports: { metrics: number; cards: number },
  image: () => ImageEntrypoint = imageEntrypoint,
): string[] {
  const nodeArgs = opts.nodeArgs ?? [];
  let entry = [...nodeArgs, '--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts')];
  if (opts.dist) {
    const { nodeOptions, script } = image();
    entry = [...nodeOptions, ...nodeArgs, join(REPO_ROOT, script)];
  }
  return [
    ...entry,
    'run',
    `--kubeconfig=${opts.kubeconfig}`,
    `--metrics-address=127.0.0.1:${ports.metrics}`,
    `--cards-address=127.0.0.1:${ports.cards}`,
    `--leader-elect=${opts.leaderElect ? 'true' : 'false'}`,
    '--log-level=debug',
    ...(opts.namespaces?.length ? [`--namespaces=${opts.namespaces.join(',')}`] : []),
    ...(opts.leaseNamespace ? [`--lease-namespace=${opts.leaseNamespace}`] : []),
    ...(opts.identity ? [`--identity=${opts.identity}`] : []),
    ...(opts.extraArgs ?? []),
  ];
}

export async function startOperator(opts: OperatorOptions): Promise<OperatorProcess> {
  const metricsPort = await freePort();
  const cardsPort = await freePort();
  const logFile = join(mkdtempSync(join(tmpdir(), 'a2a-operator-')), 'operator.log');
  const args = operatorArgv(opts, { metrics: metricsPort, cards: cardsPort });
  const proc = startProcess(process.execPath, args, logFile, { ...process.env, ...opts.env });
  const metricsUrl = `http://127.0.0.1:${metricsPort}`;
  const cardsUrl = `http://127.0.0.1:${cardsPort}`;
  return {
    proc,
    metricsUrl,
    cardsUrl,
    logFile,
    async waitReady(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (proc.child.exitCode !== null)
          throw new Error(`operator exited with ${proc.child.exitCode}:\n${proc.tail(40)}`);
        const ok = await fetch(`${metricsUrl}/readyz`)
          .then((r) => r.ok)
          .catch(() => false);
        if (ok) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`operator not ready in ${timeoutMs}ms:\n${proc.tail(40)}`);
    },
    async metrics() {
      return (await fetch(`${metricsUrl}/metrics`)).text();
    },
    stop: (signal: NodeJS.Signals = 'SIGTERM') => proc.stop(signal, 30_000),
  };
}

export { REPO_ROOT };
