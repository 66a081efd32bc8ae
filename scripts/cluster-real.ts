// `npm run cluster:real`: a real single-node Kubernetes (kubelet, containerd, kube-proxy,
// controller-manager, scheduler, API server) for a person to explore (docs/real-cluster.md).
// Stays up until Ctrl-C or SIGTERM, then stops everything and undoes its host changes.
import { startRealCluster, type RealCluster } from '../test/harness/real-cluster/cluster.js';
import { StopRequested, stopOnSignal } from '../test/harness/stop-signal.js';

const stop = stopOnSignal('a2a-cluster-real');
const log = (line: string): void => console.log(`[real-cluster] ${line}`);
let cluster: RealCluster | undefined;
let code = 0;
try {
  cluster = await startRealCluster({ log });
  stop.checkpoint();
  console.log(`
Real single-node cluster is up (node ${cluster.nodeName}). In another shell:

  export KUBECONFIG=${cluster.kubeconfigPath}
  export PATH=${cluster.kubectlPath.replace(/\/kubectl$/, '')}:$PATH
  kubectl get nodes -o wide

Images: pods use imagePullPolicy: Never; import a docker-archive tar with
  ctr --address ${cluster.containerdAddress} -n k8s.io images import <image.tar>
The sandbox image is ${cluster.pauseImage}.

Ctrl-C stops everything and restores the host.`);
  await stop.stopped;
} catch (err) {
  if (!(err instanceof StopRequested)) {
    process.stderr.write(
      `cluster:real failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    code = 1;
  }
}
try {
  await cluster?.stop();
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  code = 1;
}
stop.removeTmp();
process.exit(code);
