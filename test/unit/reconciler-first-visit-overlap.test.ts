// A first visit's API round trips that do not depend on the probes run beside them (issue 15:
// the cold start's serial round trips were most of the gap to the bare probe loop): the
// InProgress status write and the reads of who holds the Service, card ConfigMap and slice
// names. What must not change with it: InProgress is still this generation's first status
// write, a failed one still fails the reconcile before anything is routed, a foreign Service
// found by an early read is still a ServiceConflict, and a name the caches hold is not read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { pino } from 'pino';
import { AgentReconciler, type AgentObject } from '../../src/controller/reconciler.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import type { ApiRequest, KubeClient } from '../../src/kube/client.js';
import { ApiError } from '../../src/kube/errors.js';
import type { EventRecorder } from '../../src/kube/events.js';
import { agentObject, oneInterfaceCard, readyPod } from './reconcile-fixtures.js';

interface Options {
  /** Holds every API request until the first interface probe starts. */
  holdApiUntilProbe?: boolean;
  /** The first status write (InProgress) fails with this status code. */
  failProgress?: number;
  /** GET of the Service answers this object (a foreign one). */
  service?: KubernetesObject;
  /** The owned caches hold these (ns/a's objects from an earlier reconcile). */
  cached?: Record<'services' | 'slices' | 'configMaps', KubernetesObject[]>;
}

interface Logged {
  what: string;
  /** Interface probes started when the request was made. */
  probesStarted: number;
}

function fixture(opts: Options = {}) {
  let rv = 10;
  const agent: AgentObject = agentObject({ routing: { mode: 'Enforce' } }, String(rv));
  const pod = readyPod();
  const log: Logged[] = [];
  let probesStarted = 0;
  let release: () => void = () => undefined;
  const probeStarted = new Promise<void>((resolve) => (release = resolve));
  let statusWrites = 0;
  const request = async (req: ApiRequest): Promise<unknown> => {
    const what = `${req.method} ${req.path.replace(/^\/apis?\/[^/]+(\/[^/]+)?\/namespaces\/ns\//, '')}${
      req.query?.fieldSelector ? `?${String(req.query.fieldSelector)}` : ''
    }`;
    log.push({ what, probesStarted });
    if (opts.holdApiUntilProbe) await probeStarted;
    if (req.path.endsWith('/status') && req.path.includes('a2aagents')) {
      statusWrites++;
      if (statusWrites === 1 && opts.failProgress)
        throw new ApiError(opts.failProgress, 'InternalError', 'etcd timeout', 'PATCH');
      return {
        ...agent,
        metadata: { ...agent.metadata, resourceVersion: String(++rv) },
        status: (req.body as { status: unknown }).status,
      };
    }
    if (req.method === 'GET') {
      if (req.path.endsWith('/services/a') && opts.service) return opts.service;
      if (req.path.endsWith('/endpointslices')) return { items: [] };
      throw new ApiError(404, 'NotFound', 'not found', 'GET');
    }
    return {};
  };
  const client = {
    request,
    get: (path: string, query?: Record<string, string>) => request({ method: 'GET', path, query }),
  } as unknown as KubeClient;
  const backend: ProbeBackend = {
    fetchCard: () => Promise.resolve({ kind: 'ok', body: oneInterfaceCard }),
    probe: () => {
      probesStarted++;
      release();
      return Promise.resolve({ state: 'Verified', reason: 'TaskNotFound', message: 'served', durationMs: 1 });
    },
  };
  // The caches hold plain objects; each kind's fields are not read here.
  const cache = <T>(items: KubernetesObject[] = []) => ({
    get: (_ns: string | undefined, name: string) =>
      items.find((o) => o.metadata?.name === name) as T | undefined,
    list: () => items as T[],
  });
  const reconciler = new AgentReconciler({
    client,
    agents: { get: () => agent, list: () => [agent] },
    pods: { get: () => pod, list: () => [pod] },
    owned: {
      services: cache(opts.cached?.services),
      slices: cache(opts.cached?.slices),
      configMaps: cache(opts.cached?.configMaps),
    },
    backend,
    events: { record: () => undefined } as unknown as EventRecorder,
    log: pino({ level: 'silent' }),
  });
  return { reconciler, log };
}

const signal = new AbortController().signal;
const ours = (kind: string, name: string, extra: Record<string, unknown> = {}): KubernetesObject =>
  ({
    kind,
    metadata: {
      name,
      namespace: 'ns',
      labels: { 'app.kubernetes.io/managed-by': 'a2a-operator', 'a2a.dev/agent': 'a' },
      ownerReferences: [
        { apiVersion: 'a2a.dev/v1alpha1', kind: 'A2AAgent', name: 'a', uid: 'u1', controller: true },
      ],
    },
    ...extra,
  }) as KubernetesObject;

void test(
  'first visit: the InProgress write and the claim reads are in flight while the probes run',
  { timeout: 20_000 },
  async () => {
    const { reconciler, log } = fixture({ holdApiUntilProbe: true });
    // Every API request waits for the first probe: before this change the InProgress write came
    // first and was awaited, so the probes never started and this reconcile never ended.
    await reconciler.reconcile('ns/a', signal);
    const early = log.filter((l) => l.probesStarted === 0).map((l) => l.what);
    assert.deepEqual(early, [
      'PATCH a2aagents/a/status',
      'GET services/a',
      'GET configmaps/a-agent-card',
      'GET endpointslices?metadata.name=a-http',
    ]);
    // Each name was read once: the apply step used the early answers.
    const reads = log.filter((l) => l.what.startsWith('GET ')).map((l) => l.what);
    assert.deepEqual(reads, early.slice(1));
    // InProgress stays the generation's first status write, and comes before any routing write.
    const writes = log.filter((l) => !l.what.startsWith('GET ')).map((l) => l.what);
    assert.equal(writes[0], 'PATCH a2aagents/a/status');
    assert.ok(writes.includes('PATCH services/a'), writes.join(', '));
    assert.equal(writes.at(-1), 'PATCH a2aagents/a/status', 'the verdict is written last');
  },
);

void test('a failed InProgress write fails the reconcile before anything is routed', async () => {
  const { reconciler, log } = fixture({ failProgress: 500 });
  await assert.rejects(reconciler.reconcile('ns/a', signal), /etcd timeout/);
  const writes = log.filter((l) => !l.what.startsWith('GET ')).map((l) => l.what);
  assert.deepEqual(writes, ['PATCH a2aagents/a/status'], 'no routing and no second status write');
});

void test('a foreign Service seen by the early read is a ServiceConflict; nothing is applied under its name', async () => {
  const foreign = { kind: 'Service', metadata: { name: 'a', namespace: 'ns', uid: 'someone-else' } };
  const { reconciler, log } = fixture({ service: foreign });
  await reconciler.reconcile('ns/a', signal);
  assert.equal(log.filter((l) => l.what === 'GET services/a').length, 1, 'one read of the Service');
  assert.ok(!log.some((l) => l.what === 'PATCH services/a'), 'the Service was not written');
  const status = log.filter((l) => l.what === 'PATCH a2aagents/a/status');
  assert.equal(status.length, 2);
});

void test('names the caches hold are not read (steady state and a fresh leader with synced caches)', async () => {
  const { reconciler, log } = fixture({
    cached: {
      services: [ours('Service', 'a')],
      configMaps: [ours('ConfigMap', 'a-agent-card')],
      slices: [ours('EndpointSlice', 'a-http', { addressType: 'IPv4' })],
    },
  });
  await reconciler.reconcile('ns/a', signal);
  assert.deepEqual(
    log.filter((l) => l.what.startsWith('GET ')).map((l) => l.what),
    [],
  );
});
