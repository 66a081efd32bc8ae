// What the operator will and will not touch: a Service it did not create is never taken over
// (Advertised=False, ServiceConflict); Observe mode writes status only; a named targetPort that
// no container declares stalls the agent with PortNotFound.
//
// Owned objects follow the spec (issue 11 item 5; routing/inventory.ts): a serviceName change
// prunes the old Service and its slices; Enforce -> Observe prunes everything and the card
// endpoint stops serving; Observe -> Enforce recreates it; a same-named EndpointSlice or
// ConfigMap the operator did not create is never taken over (SliceConflict, ConfigMapConflict);
// a selector another writer adds to the managed Service is removed; an agent deleted and
// recreated under its name adopts nothing of its predecessor's (this control plane has no
// garbage collector: the operator deletes the predecessor's leftovers itself).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';
import { endpointSliceName } from '../../src/routing/objects.js';

interface Meta {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    ownerReferences?: { uid: string }[];
  };
}

async function getJson<T>(kind: string, name: string): Promise<T | undefined> {
  const r = await s.cluster.kubectl(['get', kind, name, '-n', s.ns, '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as T) : undefined;
}

/** The operator's slices for a Service name (found by label, whatever their names). */
async function slicesOf(service: string): Promise<Meta[]> {
  const r = await s.cluster.kubectl([
    'get',
    'endpointslices',
    '-n',
    s.ns,
    '-l',
    `kubernetes.io/service-name=${service}`,
    '-o',
    'json',
  ]);
  return (JSON.parse(r.stdout) as { items: Meta[] }).items;
}

async function cardStatus(name: string): Promise<number> {
  return (await fetch(`${s.operator.cardsUrl}/cards/${s.ns}/${name}`)).status;
}

const advertised = (name: string) =>
  waitAgent(s.cluster, s.ns, name, 'Advertised=True', (x) => condition(x, 'Advertised')?.status === 'True');

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

  test('changing routing.serviceName prunes the old Service and its slices', async () => {
    const spec = (serviceName: string) => ({ ...healthySpec('owned'), routing: { serviceName } });
    await apply(s.cluster, agentManifest(s.ns, 'renamed', spec('first')));
    await advertised('renamed');
    assert.ok(await getJson('service', 'first'));
    assert.ok((await slicesOf('first')).length > 0);
    await apply(s.cluster, agentManifest(s.ns, 'renamed', spec('second')));
    await advertised('renamed');
    await waitFor('the old Service and slices pruned', async () =>
      !(await getJson('service', 'first')) && (await slicesOf('first')).length === 0 ? true : undefined,
    );
    assert.ok(await getJson('service', 'second'));
    assert.ok((await slicesOf('second')).length > 0);
    assert.ok(
      await getJson('configmap', 'renamed-agent-card'),
      'the card ConfigMap is rewritten, not dropped',
    );
  });

  test('Enforce -> Observe prunes what the operator created and stops serving the card; back to Enforce recreates it', async () => {
    const spec = (mode: string) => ({ ...healthySpec('owned'), routing: { mode } });
    await apply(s.cluster, agentManifest(s.ns, 'modes', spec('Enforce')));
    await advertised('modes');
    assert.equal(await cardStatus('modes'), 200);
    await apply(s.cluster, agentManifest(s.ns, 'modes', spec('Observe')));
    await waitFor('Service, slices and card ConfigMap pruned', async () =>
      !(await getJson('service', 'modes')) &&
      !(await getJson('configmap', 'modes-agent-card')) &&
      (await slicesOf('modes')).length === 0
        ? true
        : undefined,
    );
    assert.equal(await cardStatus('modes'), 503, 'no frozen card is served in Observe mode');
    await apply(s.cluster, agentManifest(s.ns, 'modes', spec('Enforce')));
    await advertised('modes');
    assert.ok(await getJson('service', 'modes'));
    assert.ok((await slicesOf('modes')).length > 0);
    await waitFor('the card served again', async () =>
      (await cardStatus('modes')) === 200 ? true : undefined,
    );
  });

  test('a same-named EndpointSlice the operator did not create is never taken over (SliceConflict)', async () => {
    const name = endpointSliceName('squat', 'http', 'IPv4');
    await apply(s.cluster, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name, namespace: s.ns, labels: { team: 'someone-else' } },
      addressType: 'IPv4',
      endpoints: [],
    });
    const before = (await getJson<Meta>('endpointslice', name))!;
    await apply(s.cluster, agentManifest(s.ns, 'squat', healthySpec('owned')));
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'squat',
      'SliceConflict',
      (x) => condition(x, 'Advertised')?.reason === 'SliceConflict',
    );
    assert.equal(condition(a, 'Advertised')?.status, 'False');
    assert.match(condition(a, 'Advertised')!.message, new RegExp(`EndpointSlice ${s.ns}/${name} exists`));
    const after = (await getJson<Meta>('endpointslice', name))!;
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'not written');
    assert.equal(after.metadata.ownerReferences, undefined);
    // The fix: delete the foreign slice; the next period routes.
    await s.cluster.kubectl(['delete', 'endpointslice', name, '-n', s.ns]);
    await advertised('squat');
  });

  test('a same-named ConfigMap the operator did not create is never taken over nor served (ConfigMapConflict)', async () => {
    await apply(s.cluster, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cmsquat-agent-card', namespace: s.ns },
      data: { 'agent-card.json': '{"name":"not this agent"}' },
    });
    const before = (await getJson<Meta>('configmap', 'cmsquat-agent-card'))!;
    await apply(s.cluster, agentManifest(s.ns, 'cmsquat', healthySpec('owned')));
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'cmsquat',
      'ConfigMapConflict',
      (x) => condition(x, 'Advertised')?.reason === 'ConfigMapConflict',
    );
    assert.equal(condition(a, 'Advertised')?.status, 'False');
    const after = (await getJson<Meta>('configmap', 'cmsquat-agent-card'))!;
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'not written');
    assert.equal(await cardStatus('cmsquat'), 503, 'a ConfigMap of another writer is not served');
  });

  test('a selector another writer adds to the managed Service is removed', async () => {
    await apply(s.cluster, agentManifest(s.ns, 'sel', healthySpec('owned')));
    await advertised('sel');
    const r = await s.cluster.kubectl([
      'patch',
      'service',
      'sel',
      '-n',
      s.ns,
      '--type=merge',
      '-p',
      '{"spec":{"selector":{"app":"owned"}}}',
    ]);
    assert.equal(r.code, 0, r.stderr);
    await waitFor('the foreign selector removed', async () => {
      const svc = await getJson<{ spec: { selector?: unknown } }>('service', 'sel');
      return svc && svc.spec.selector === undefined ? true : undefined;
    });
  });

  test('an agent recreated under its name adopts nothing of its predecessor (no garbage collector here)', async () => {
    await apply(s.cluster, agentManifest(s.ns, 'again', healthySpec('owned')));
    const first = await advertised('again');
    assert.equal((await s.cluster.kubectl(['delete', 'a2a', 'again', '-n', s.ns])).code, 0);
    // Creation times have a one-second resolution: the leftovers must be provably older.
    await new Promise((r) => setTimeout(r, 1100));
    await apply(s.cluster, agentManifest(s.ns, 'again', healthySpec('owned')));
    const second = await advertised('again');
    assert.notEqual(second.metadata.uid, first.metadata.uid);
    await waitFor("no object of the predecessor's left", async () => {
      const objs = [
        await getJson<Meta>('service', 'again'),
        await getJson<Meta>('configmap', 'again-agent-card'),
        ...(await slicesOf('again')),
      ];
      return objs.every((o) => o?.metadata.ownerReferences?.[0]?.uid === second.metadata.uid)
        ? true
        : undefined;
    });
  });

  test('two agents whose slice names would collide (coll + grpc-v1, coll-grpc + v1) both route', async () => {
    const spec = (grpcPort: string) => ({
      ...healthySpec('owned'),
      ports: [
        { name: 'http', port: 8080 },
        { name: grpcPort, port: 9090 },
      ],
    });
    await apply(
      s.cluster,
      agentManifest(s.ns, 'coll', spec('grpc-v1')),
      agentManifest(s.ns, 'coll-grpc', spec('v1')),
    );
    for (const name of ['coll', 'coll-grpc']) {
      const a = await advertised(name);
      assert.equal(condition(a, 'Ready')?.status, 'True', `${name}: ${condition(a, 'Ready')?.message}`);
    }
    const grpcSlice = async (service: string, port: string) =>
      waitFor(`${service}: a ${port} slice with the pod`, async () => {
        const found = (await slicesOf(service)).find(
          (x) => (x as unknown as { ports: { name: string }[] }).ports[0]?.name === port,
        ) as (Meta & { endpoints?: unknown[] }) | undefined;
        return found && found.endpoints?.length === 1 ? found : undefined;
      });
    const a = await grpcSlice('coll', 'grpc-v1');
    const b = await grpcSlice('coll-grpc', 'v1');
    assert.notEqual(a.metadata.name, b.metadata.name);
  });
});
