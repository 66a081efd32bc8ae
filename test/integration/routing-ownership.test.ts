// What the operator will and will not touch: a Service it did not create is never taken over
// (Advertised=False, ServiceConflict); Observe mode writes status only; a named targetPort that
// no container declares stalls the agent with PortNotFound.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';

let cluster: Cluster;
let ns: string;
let operator: OperatorProcess;
const pods: AgentPod[] = [];

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('ownership');
  pods.push(
    await startAgentPod(cluster, {
      namespace: ns,
      name: 'owned-0',
      labels: { app: 'owned' },
      config: healthyAgentConfig(`owned.${ns}.svc`),
      containerPorts: [{ name: 'web', containerPort: 8080 }],
    }),
  );
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
});

after(async () => {
  await operator?.stop();
  await Promise.all(pods.map((p) => p.destroy()));
});

describe('ownership', () => {
  test('a Service the operator did not create is never taken over', async () => {
    const foreign = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'taken', namespace: ns, labels: { team: 'someone-else' } },
      spec: { selector: { app: 'owned' }, ports: [{ name: 'web', port: 80, targetPort: 8080 }] },
    };
    await apply(cluster, foreign);
    const before = (
      await cluster.kubectl([
        'get',
        'service',
        'taken',
        '-n',
        ns,
        '-o',
        'jsonpath={.metadata.resourceVersion}',
      ])
    ).stdout;
    await apply(cluster, agentManifest(ns, 'taken', healthySpec('owned')));
    const a = await waitAgent(
      cluster,
      ns,
      'taken',
      'ServiceConflict, with the interfaces probed',
      // The conflict is known before the first probes finish (a busy machine shows it).
      (x) =>
        condition(x, 'Advertised')?.reason === 'ServiceConflict' &&
        condition(x, 'InterfacesVerified')?.status !== 'Unknown',
    );
    assert.equal(condition(a, 'Advertised')?.status, 'False');
    assert.match(condition(a, 'Advertised')!.message, /was not created by this A2AAgent/);
    assert.equal(condition(a, 'InterfacesVerified')?.status, 'True', 'probing still happens');
    const after = JSON.parse(
      (await cluster.kubectl(['get', 'service', 'taken', '-n', ns, '-o', 'json'])).stdout,
    ) as {
      metadata: { resourceVersion: string; ownerReferences?: unknown[] };
    };
    assert.equal(after.metadata.resourceVersion, before, 'the foreign Service was not written');
    assert.equal(after.metadata.ownerReferences, undefined);
    const slices = await cluster.kubectl([
      'get',
      'endpointslices',
      '-n',
      ns,
      '-l',
      'kubernetes.io/service-name=taken',
      '-o',
      'name',
    ]);
    assert.equal(slices.stdout.trim(), '', 'no slices attached to a Service we do not own');
  });

  test('Observe mode writes status only', async () => {
    await apply(
      cluster,
      agentManifest(ns, 'watched', { ...healthySpec('owned'), routing: { mode: 'Observe' } }),
    );
    const a = await waitAgent(
      cluster,
      ns,
      'watched',
      'Ready',
      (x) => condition(x, 'Ready')?.status === 'True',
    );
    assert.equal(condition(a, 'Advertised')?.reason, 'ObserveMode');
    for (const kind of ['service/watched', 'configmap/watched-agent-card']) {
      const r = await cluster.kubectl(['get', kind, '-n', ns]);
      assert.notEqual(r.code, 0, `${kind} must not exist in Observe mode`);
    }
  });

  test('a named targetPort that no container declares stalls the agent with PortNotFound', async () => {
    const spec = healthySpec('owned');
    spec.ports = [
      { name: 'http', port: 8080, targetPort: 'web' },
      { name: 'grpc', port: 9090, targetPort: 'grpc' },
    ];
    await apply(cluster, agentManifest(ns, 'named', spec));
    const a = await waitAgent(
      cluster,
      ns,
      'named',
      'Stalled',
      (x) => condition(x, 'Stalled')?.status === 'True',
    );
    assert.equal(condition(a, 'Stalled')?.reason, 'PortNotFound');
    assert.match(condition(a, 'Stalled')!.message, /targetPort "grpc" names no containerPort on pod owned-0/);
  });
});
