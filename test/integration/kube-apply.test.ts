// Server-side apply of A2AAgent status on the real API server, typed errors, and counting
// writes ("write nothing when nothing changed").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { useCluster, type Cluster } from '../harness/cluster.js';
import {
  applyObject,
  applyStatus,
  FIELD_MANAGER,
  semanticEqual,
  type StatusTarget,
} from '../../src/kube/apply.js';
import { KubeClient, RequestCounter } from '../../src/kube/client.js';
import { ApiError, isConflict, isForbidden, isNotFound } from '../../src/kube/errors.js';
import { EventRecorder } from '../../src/kube/events.js';

let cluster: Cluster;
let client: KubeClient;
let counter: RequestCounter;
let ns: string;

interface Agent {
  metadata: {
    generation: number;
    resourceVersion: string;
    uid: string;
    managedFields?: { manager: string; subresource?: string }[];
  };
  status?: Record<string, unknown>;
}

const target = (name: string): StatusTarget => ({
  group: 'a2a.dev',
  version: 'v1alpha1',
  plural: 'a2aagents',
  kind: 'A2AAgent',
  namespace: ns,
  name,
});

function status(generation: number, ready: 'True' | 'False') {
  return {
    observedGeneration: generation,
    conditions: [
      {
        type: 'Ready',
        status: ready,
        reason: ready === 'True' ? 'Verified' : 'CardUnreachable',
        message: '',
        lastTransitionTime: '2025-01-01T00:00:00Z',
      },
    ],
  };
}

async function getAgent(name: string): Promise<Agent> {
  return client.get<Agent>(`/apis/a2a.dev/v1alpha1/namespaces/${ns}/a2aagents/${name}`);
}

/**
 * The reconciler's write-skip rule (`writeStatus` in src/controller/reconciler.ts, which also
 * ignores probe times), reduced to its core: compare with the status as read back, write only when
 * different. What this file checks is that `semanticEqual` holds across the server's round trip;
 * the reconciler's own zero steady writes are asserted on a live operator by
 * test/faults/competing-writer.test.ts and counted by the bench.
 */
async function applyIfChanged(
  name: string,
  current: Agent,
  desired: Record<string, unknown>,
): Promise<boolean> {
  if (semanticEqual(current.status, desired)) return false;
  await applyStatus(client, target(name), desired);
  return true;
}

before(async () => {
  cluster = await useCluster();
  counter = new RequestCounter();
  client = new KubeClient(cluster.kc, { observer: counter });
  ns = await cluster.createNamespace('kapply');
  const agent = {
    apiVersion: 'a2a.dev/v1alpha1',
    kind: 'A2AAgent',
    metadata: { name: 'billing', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'billing' } },
      ports: [{ name: 'http', port: 8443, targetPort: 8443 }],
      card: { port: 'http' },
    },
  };
  const res = await cluster.kubectl(['apply', '-f', '-'], { input: stringify(agent) });
  assert.equal(res.code, 0, res.stderr);
});

after(() => client.close());

describe('server-side apply helpers on a real API server', () => {
  test('applyStatus writes status through /status with our field manager', async () => {
    const before = await getAgent('billing');
    counter.reset();
    const out = await applyStatus<Agent>(
      client,
      target('billing'),
      status(before.metadata.generation, 'False'),
    );
    assert.equal(counter.writes, 1);
    assert.equal(counter.writesByResource.get('a2aagents/status'), 1);
    assert.deepEqual(out.status, status(before.metadata.generation, 'False'));
    const mine = out.metadata.managedFields?.find((m) => m.manager === FIELD_MANAGER);
    assert.equal(mine?.subresource, 'status');
    const after = await getAgent('billing');
    assert.equal(
      after.metadata.generation,
      before.metadata.generation,
      'status writes do not bump generation',
    );
  });

  test('a status read back from the server is semanticEqual to the one applied: zero writes while steady, one for a change', async () => {
    const desired = status((await getAgent('billing')).metadata.generation, 'False');
    counter.reset();
    for (let i = 0; i < 5; i++) {
      const cached = await getAgent('billing');
      assert.equal(await applyIfChanged('billing', cached, desired), false);
    }
    assert.equal(counter.writes, 0);
    assert.equal(counter.requests, 5);
    const cached = await getAgent('billing');
    const changed = status(cached.metadata.generation, 'True');
    assert.equal(await applyIfChanged('billing', cached, changed), true);
    assert.equal(counter.writes, 1);
  });

  test('re-applying an identical status is a no-op on the server (resourceVersion unchanged)', async () => {
    const cur = await getAgent('billing');
    const out = await applyStatus<Agent>(client, target('billing'), cur.status);
    assert.equal(out.metadata.resourceVersion, cur.metadata.resourceVersion);
  });

  test('errors are typed by HTTP status', async () => {
    const missing = await applyStatus(client, target('nope'), status(1, 'True')).catch((e: unknown) => e);
    assert.ok(missing instanceof ApiError);
    assert.equal(missing.status, 404);
    assert.ok(isNotFound(missing));

    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: ns },
      data: { a: '1' },
    };
    const created = await applyObject<{ metadata: { resourceVersion: string } }>(client, cm);
    await applyObject(client, { ...cm, data: { a: '2' } });
    const stale = await client
      .request({
        method: 'PUT',
        path: `/api/v1/namespaces/${ns}/configmaps/c`,
        body: { ...cm, metadata: { ...cm.metadata, resourceVersion: created.metadata.resourceVersion } },
      })
      .catch((e: unknown) => e);
    assert.ok(isConflict(stale), String(stale));
    assert.equal((stale as ApiError).reason, 'Conflict');

    // A service account without RBAC grants: 403.
    await client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/serviceaccounts`,
      body: { metadata: { name: 'nobody' } },
    });
    const token = await cluster.mintToken(ns, 'nobody');
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(cluster.kc.getCurrentCluster()!, { name: 'nobody', token });
    const weak = new KubeClient(kc);
    const denied = await weak.get(`/api/v1/namespaces/${ns}/configmaps`).catch((e: unknown) => e);
    assert.ok(isForbidden(denied), String(denied));
    assert.equal((denied as ApiError).reason, 'Forbidden');
    await weak.close();
  });

  test('EventRecorder aggregates identical consecutive events into a series', async () => {
    const agent = await getAgent('billing');
    const rec = new EventRecorder({ client, reportingInstance: 'test-0' });
    const regarding = {
      apiVersion: 'a2a.dev/v1alpha1',
      kind: 'A2AAgent',
      namespace: ns,
      name: 'billing',
      uid: agent.metadata.uid,
    };
    counter.reset();
    rec.record(
      regarding,
      'Warning',
      'CardUnreachable',
      'GET /.well-known/agent-card.json: connection refused',
    );
    rec.record(
      regarding,
      'Warning',
      'CardUnreachable',
      'GET /.well-known/agent-card.json: connection refused',
    );
    rec.record(
      regarding,
      'Warning',
      'CardUnreachable',
      'GET /.well-known/agent-card.json: connection refused',
    );
    rec.record(regarding, 'Normal', 'Verified', 'all interfaces verified');
    await rec.flush();
    assert.equal(counter.writes, 4); // create, patch, patch, create
    const list = await client.get<{
      items: { reason: string; series?: { count: number }; reportingController: string }[];
    }>(`/apis/events.k8s.io/v1/namespaces/${ns}/events`);
    const byReason = new Map(list.items.map((e) => [e.reason, e]));
    assert.equal(list.items.length, 2);
    assert.equal(byReason.get('CardUnreachable')?.series?.count, 3);
    assert.equal(byReason.get('Verified')?.reportingController, 'a2a.dev/operator');
    const described = await cluster.kubectl(['describe', 'a2a', 'billing', '-n', ns]);
    assert.match(described.stdout, /CardUnreachable/);
  });
});
