// What the operator will and will not touch: a Service it did not create is never taken over
// (Advertised=False, ServiceConflict); Observe mode writes status only; a named targetPort that
// no container declares stalls the agent with PortNotFound.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';

const s = scenario('ownership', {
  async setup({ cluster, ns, pods }) {
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'owned-0',
        labels: { app: 'owned' },
        config: healthyAgentConfig(`owned.${ns}.svc`),
        containerPorts: [{ name: 'web', containerPort: 8080 }],
      }),
    );
  },
});

describe('ownership', () => {
  test('a Service the operator did not create is never taken over', async () => {
    const foreign = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'taken', namespace: s.ns, labels: { team: 'someone-else' } },
      spec: { selector: { app: 'owned' }, ports: [{ name: 'web', port: 80, targetPort: 8080 }] },
    };
    await apply(s.cluster, foreign);
    const before = (
      await s.cluster.kubectl([
        'get',
        'service',
        'taken',
        '-n',
        s.ns,
        '-o',
        'jsonpath={.metadata.resourceVersion}',
      ])
    ).stdout;
    await apply(s.cluster, agentManifest(s.ns, 'taken', healthySpec('owned')));
    const a = await waitAgent(
      s.cluster,
      s.ns,
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
      (await s.cluster.kubectl(['get', 'service', 'taken', '-n', s.ns, '-o', 'json'])).stdout,
    ) as {
      metadata: { resourceVersion: string; ownerReferences?: unknown[] };
    };
    assert.equal(after.metadata.resourceVersion, before, 'the foreign Service was not written');
    assert.equal(after.metadata.ownerReferences, undefined);
    const slices = await s.cluster.kubectl([
      'get',
      'endpointslices',
      '-n',
      s.ns,
      '-l',
      'kubernetes.io/service-name=taken',
      '-o',
      'name',
    ]);
    assert.equal(slices.stdout.trim(), '', 'no slices attached to a Service we do not own');
  });

  test('Observe mode writes status only', async () => {
    await apply(
      s.cluster,
      agentManifest(s.ns, 'watched', { ...healthySpec('owned'), routing: { mode: 'Observe' } }),
    );
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'watched',
      'Ready',
      (x) => condition(x, 'Ready')?.status === 'True',
    );
    assert.equal(condition(a, 'Advertised')?.reason, 'ObserveMode');
    for (const kind of ['service/watched', 'configmap/watched-agent-card']) {
      const r = await s.cluster.kubectl(['get', kind, '-n', s.ns]);
      assert.notEqual(r.code, 0, `${kind} must not exist in Observe mode`);
    }
  });

  test('a named targetPort that no container declares stalls the agent with PortNotFound', async () => {
    const spec = healthySpec('owned');
    spec.ports = [
      { name: 'http', port: 8080, targetPort: 'web' },
      { name: 'grpc', port: 9090, targetPort: 'grpc' },
    ];
    await apply(s.cluster, agentManifest(s.ns, 'named', spec));
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'named',
      'Stalled',
      (x) => condition(x, 'Stalled')?.status === 'True',
    );
    assert.equal(condition(a, 'Stalled')?.reason, 'PortNotFound');
    assert.match(condition(a, 'Stalled')!.message, /targetPort "grpc" names no containerPort on pod owned-0/);
  });
});
