import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyStatus, patchPodConditions, resourcePath, semanticEqual } from '../../src/kube/apply.js';
import { Backoff } from '../../src/kube/backoff.js';
import { resourceOf, type ApiRequest, type Requester } from '../../src/kube/client.js';
import { ApiError, isAlreadyExists, isConflict, isForbidden, isNotFound } from '../../src/kube/errors.js';
import { EventRecorder } from '../../src/kube/events.js';

function fakeClient(respond: (req: ApiRequest) => unknown = () => ({})) {
  const reqs: ApiRequest[] = [];
  const client: Requester = {
    request: <T>(req: ApiRequest) => {
      reqs.push(req);
      try {
        return Promise.resolve(respond(req) as T);
      } catch (err) {
        return Promise.reject(err as Error);
      }
    },
  };
  return { client, reqs };
}

describe('apply helpers', () => {
  it('builds REST paths', () => {
    assert.equal(
      resourcePath({ apiVersion: 'v1', kind: 'Service', namespace: 'ns', name: 's' }),
      '/api/v1/namespaces/ns/services/s',
    );
    assert.equal(
      resourcePath({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', namespace: 'ns' }),
      '/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices',
    );
    assert.throws(() => resourcePath({ apiVersion: 'x/v1', kind: 'Unknown' }));
  });

  it('names the resource of a path', () => {
    assert.equal(resourceOf('/api/v1/namespaces/a/pods/p/status'), 'pods/status');
    assert.equal(resourceOf('/apis/a2a.dev/v1alpha1/a2aagents'), 'a2aagents');
    assert.equal(resourceOf('/apis/a2a.dev/v1alpha1/namespaces/n/a2aagents/x/status'), 'a2aagents/status');
    assert.equal(resourceOf('/api/v1/namespaces/a'), 'namespaces');
  });

  it('applyStatus sends an SSA patch of only status to /status, forced, with our manager', async () => {
    const { client, reqs } = fakeClient();
    await applyStatus(
      client,
      {
        group: 'a2a.dev',
        version: 'v1alpha1',
        plural: 'a2aagents',
        kind: 'A2AAgent',
        namespace: 'ns',
        name: 'a',
      },
      { observedGeneration: 2 },
    );
    assert.deepEqual(reqs[0], {
      method: 'PATCH',
      path: '/apis/a2a.dev/v1alpha1/namespaces/ns/a2aagents/a/status',
      query: { fieldManager: 'a2a-operator', force: true },
      body: {
        apiVersion: 'a2a.dev/v1alpha1',
        kind: 'A2AAgent',
        metadata: { name: 'a', namespace: 'ns' },
        status: { observedGeneration: 2 },
      },
      contentType: 'application/apply-patch+yaml',
      signal: undefined,
    });
  });

  it('patchPodConditions uses strategic merge so conditions merge by type', async () => {
    const { client, reqs } = fakeClient();
    await patchPodConditions(client, 'ns', 'p', [{ type: 'a2a.dev/verified', status: 'True' }]);
    assert.equal(reqs[0]?.contentType, 'application/strategic-merge-patch+json');
    assert.equal(reqs[0]?.path, '/api/v1/namespaces/ns/pods/p/status');
  });

  it('semanticEqual ignores key order and undefined fields', () => {
    assert.ok(semanticEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
    assert.ok(semanticEqual({ a: 1, x: undefined }, { a: 1 }));
    assert.ok(!semanticEqual({ a: [1, 2] }, { a: [2, 1] }));
    assert.ok(!semanticEqual({ a: 1 }, { a: '1' }));
    assert.ok(!semanticEqual([], {}));
  });
});

describe('errors', () => {
  it('classifies by status and reason, not message', () => {
    const e = (s: number, r: string) => new ApiError(s, r, 'whatever text', 'GET /x');
    assert.ok(isConflict(e(409, 'Conflict')));
    assert.ok(isAlreadyExists(e(409, 'AlreadyExists')));
    assert.ok(!isAlreadyExists(e(409, 'Conflict')));
    assert.ok(isNotFound(e(404, 'NotFound')));
    assert.ok(isForbidden(e(403, 'Forbidden')));
    assert.ok(!isNotFound(new Error('404 not found')));
  });
});

describe('Backoff', () => {
  it('doubles to the cap with jitter below the base', () => {
    const b = new Backoff({ initialMs: 500, maxMs: 30_000, random: () => 0 });
    assert.deepEqual(
      Array.from({ length: 9 }, () => b.next()),
      [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
    );
    b.reset();
    assert.equal(b.next(), 500);
    assert.equal(new Backoff({ initialMs: 1000, random: () => 1 }).next(), 500);
  });
});

describe('EventRecorder', () => {
  const regarding = {
    apiVersion: 'a2a.dev/v1alpha1',
    kind: 'A2AAgent',
    namespace: 'ns',
    name: 'a',
    uid: 'u1',
  };

  it('creates once, then raises series.count for identical events, also when others come between', async () => {
    const { client, reqs } = fakeClient();
    const rec = new EventRecorder({ client, reportingInstance: 'op-0' });
    rec.record(regarding, 'Warning', 'CardUnreachable', 'refused');
    rec.record(regarding, 'Warning', 'CardUnreachable', 'refused');
    rec.record(regarding, 'Warning', 'CardUnreachable', 'refused');
    rec.record(regarding, 'Normal', 'Verified', 'ok');
    rec.record(regarding, 'Warning', 'CardUnreachable', 'refused');
    await rec.flush();
    assert.deepEqual(
      reqs.map((r) => r.method),
      ['POST', 'PATCH', 'PATCH', 'POST', 'PATCH'],
    );
    assert.deepEqual((reqs[2]?.body as { series: { count: number } }).series.count, 3);
    assert.deepEqual((reqs[4]?.body as { series: { count: number } }).series.count, 4);
    assert.equal(reqs[4]?.path, reqs[1]?.path, 'the series of the first Event');
    const created = reqs[0]?.body as Record<string, unknown>;
    assert.equal(created.reportingController, 'a2a.dev/operator');
    assert.equal(created.reportingInstance, 'op-0');
    assert.equal(created.action, 'CardUnreachable');
  });

  it('a flapping interface (two Events per transition, in turn) aggregates into two series', async () => {
    const { client, reqs } = fakeClient();
    const rec = new EventRecorder({ client, reportingInstance: 'op-0' });
    for (let flap = 0; flap < 10; flap++) {
      rec.record(regarding, 'Warning', 'InterfaceWithdrawn', 'GRPC grpc://a:9 withdrawn: Unimplemented');
      rec.record(regarding, 'Warning', 'InterfaceUnimplemented', 'GRPC grpc://a:9 is not served');
      rec.record(regarding, 'Normal', 'InterfaceAdvertised', 'GRPC grpc://a:9 advertised');
      rec.record(regarding, 'Normal', 'Succeeded', '3/3 interfaces verified');
    }
    await rec.flush();
    assert.equal(reqs.filter((r) => r.method === 'POST').length, 4, 'one Event per distinct event');
    assert.equal(reqs.filter((r) => r.method === 'PATCH').length, 36);
    const last = reqs.at(-1)!;
    assert.equal((last.body as { series: { count: number } }).series.count, 10);
  });

  it('keeps series per object, and forgets the least recently used beyond its cap', async () => {
    const { client, reqs } = fakeClient();
    const rec = new EventRecorder({ client, reportingInstance: 'op-0', maxTracked: 2 });
    const other = { ...regarding, name: 'b', uid: 'u2' };
    rec.record(regarding, 'Normal', 'A', 'a'); // POST
    rec.record(other, 'Normal', 'A', 'a'); // POST: another object
    rec.record(regarding, 'Normal', 'A', 'a'); // PATCH, now most recent
    rec.record(regarding, 'Normal', 'B', 'b'); // POST, evicts other's
    rec.record(other, 'Normal', 'A', 'a'); // POST again: forgotten
    await rec.flush();
    assert.deepEqual(
      reqs.map((r) => r.method),
      ['POST', 'POST', 'PATCH', 'POST', 'POST'],
    );
  });

  it('starts a new Event when the old one expired, and never throws', async () => {
    let n = 0;
    const errors: unknown[] = [];
    const { client, reqs } = fakeClient((req) => {
      n++;
      if (req.method === 'PATCH') throw new ApiError(404, 'NotFound', 'gone', 'PATCH');
      if (n === 4) throw new ApiError(500, 'InternalError', 'boom', 'POST');
      return {};
    });
    const rec = new EventRecorder({ client, reportingInstance: 'op-0', onError: (e) => errors.push(e) });
    rec.record(regarding, 'Warning', 'R', 'm');
    rec.record(regarding, 'Warning', 'R', 'm');
    rec.record(regarding, 'Normal', 'S', 'x');
    await rec.flush();
    assert.deepEqual(
      reqs.map((r) => r.method),
      ['POST', 'PATCH', 'POST', 'POST'],
    );
    assert.equal(errors.length, 1);
  });
});
