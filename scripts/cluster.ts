// `npm run cluster`: a local control plane (real kube-apiserver + etcd, built from Go modules)
// with the CRDs applied, for a person to explore. Stays up until Ctrl-C.
import { startSharedCluster } from '../test/harness/cluster.js';

const { kubeconfigPath, stop } = await startSharedCluster();
console.log(`
Control plane is up. In another shell:

  export KUBECONFIG=${kubeconfigPath}
  export PATH=${(await import('../test/harness/binaries.js')).binaryPath('kubectl').replace(/\/kubectl$/, '')}:$PATH
  kubectl get a2aagents -A

Press Ctrl-C to stop (everything is removed).`);

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping control plane…');
    void stop().then(() => process.exit(0));
  });
}
setInterval(() => {}, 1 << 30);
