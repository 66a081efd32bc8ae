// Regression (found by test/faults/competing-writer.test.ts): another writer renumbered a port of
// the managed Service (8080 → 18080). Service ports are a list-map keyed by port and protocol, so
// server-side apply kept the renumbered entry beside ours and the API server refused the
// duplicate name on every reconcile: the Service was never restored and the agent's routing
// and status stopped updating. Foreign port entries are now replaced with a merge patch first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { applyRouting, type OwnedCaches } from '../../src/controller/apply-routing.js';
import type { ApiRequest, KubeClient } from '../../src/kube/client.js';
import { ApiError } from '../../src/kube/errors.js';

const owner = { name: 'a', namespace: 'ns', uid: 'uid-1' };
const ownerReferences = [
  { apiVersion: 'a2a.dev/v1alpha1', kind: 'A2AAgent', name: 'a', uid: 'uid-1', controller: true },
];

function service(ports: { name: string; port: number }[]): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'a', namespace: 'ns', ownerReferences },
    spec: { type: 'ClusterIP', ports: ports.map((p) => ({ ...p, protocol: 'TCP' })) },
  };
}

function fixture(actual: V1Service) {
  const reqs: ApiRequest[] = [];
  const client = {
    request: (req: ApiRequest) => (reqs.push(req), Promise.resolve({})),
    get: () => Promise.reject(new ApiError(404, 'NotFound', 'not found', 'GET')),
  } as unknown as KubeClient;
  const caches: OwnedCaches = {
    services: { get: () => actual, list: () => [actual] },
    slices: { get: () => undefined, list: () => [] as V1EndpointSlice[] },
    configMaps: { get: () => undefined, list: () => [] as V1ConfigMap[] },
  };
  return { reqs, client, caches };
}

const cm: V1ConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a-agent-card', namespace: 'ns', ownerReferences },
  data: {},
};

void test('a renumbered Service port is replaced whole before the apply', async () => {
  const desired = service([{ name: 'http', port: 8080 }]);
  const { reqs, client, caches } = fixture(service([{ name: 'http', port: 18080 }]));
  await applyRouting(client, caches, owner, 'a', { service: desired, slices: [], configMap: cm });
  const svc = reqs.filter((r) => r.path === '/api/v1/namespaces/ns/services/a');
  assert.equal(svc.length, 2, JSON.stringify(svc.map((r) => r.contentType)));
  assert.equal(svc[0]!.contentType, 'application/merge-patch+json');
  assert.deepEqual(svc[0]!.body, { spec: { ports: desired.spec!.ports } });
  assert.equal(svc[1]!.contentType, 'application/apply-patch+yaml');
});

void test('a Service whose ports are ours is not merge-patched', async () => {
  const desired = service([{ name: 'http', port: 8080 }]);
  const { reqs, client, caches } = fixture(service([{ name: 'http', port: 8080 }]));
  await applyRouting(client, caches, owner, 'a', { service: desired, slices: [], configMap: cm });
  assert.equal(reqs.filter((r) => r.contentType === 'application/merge-patch+json').length, 0);
});

void test('a selector another writer added to the managed Service is removed', async () => {
  const desired = service([{ name: 'http', port: 8080 }]);
  const actual = service([{ name: 'http', port: 8080 }]);
  actual.spec!.selector = { app: 'a' };
  const { reqs, client, caches } = fixture(actual);
  await applyRouting(client, caches, owner, 'a', { service: desired, slices: [], configMap: cm });
  const merge = reqs.filter((r) => r.contentType === 'application/merge-patch+json');
  assert.deepEqual(
    merge.map((r) => r.body),
    [{ spec: { selector: null } }],
  );
});
