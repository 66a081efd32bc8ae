// `npm run cluster`: a local control plane (real kube-apiserver + etcd, built from Go modules)
// with the CRDs applied, for a person to explore. Stays up until Ctrl-C or SIGTERM, then
// removes everything it started (test/harness/stop-signal.ts).
import { binaryPath } from '../test/harness/binaries.js';
import { startSharedCluster } from '../test/harness/cluster.js';
import { StopRequested, stopOnSignal } from '../test/harness/stop-signal.js';

const stop = stopOnSignal('a2a-cluster');
let cluster: { kubeconfigPath: string; stop: () => Promise<void> } | undefined;
try {
  cluster = await startSharedCluster();
  stop.checkpoint();
  console.log(`
Control plane is up. In another shell:

  export KUBECONFIG=${cluster.kubeconfigPath}
  export PATH=${binaryPath('kubectl').replace(/\/kubectl$/, '')}:$PATH
  kubectl get a2aagents -A

Ctrl-C stops everything.`);
  await stop.stopped;
} catch (err) {
  if (!(err instanceof StopRequested)) {
    process.stderr.write(
      `cluster failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    await cluster?.stop().catch(() => undefined);
    stop.removeTmp();
    process.exit(1);
  }
}
await cluster?.stop().catch(() => undefined);
stop.removeTmp();
process.exit(0);
