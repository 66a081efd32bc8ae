// A first visit's API round trips that do not depend on the probes run beside them (issue 15:
// the cold start's serial round trips were most of the gap to the bare probe loop): the
// InProgress status write and the reads of who holds the Service, card ConfigMap and slice
// names. What must not change with it: InProgress is still this generation's first status
// write, a failed one still fails the reconcile before anything is routed, a foreign Service
// found by an early read is still a ServiceConflict, and a name the caches hold is not read.
// An agent deleted, or deleted and recreated under its name, while its first visit probed gets
// nothing from that visit: no routing owned by the gone UID, no status on the new object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject, V1EndpointSlice } from '@kubernetes/client-node';
import { pino } from 'pino';
import { AgentReconciler, PROGRESS_GRACE_MS, type AgentObject } from '../../src/controller/reconciler.js';
import type { A2AAgentStatus } from '../../src/api/a2aagent.js';
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
  /** The reconciler's progressGraceMs; 0 here (InProgress written at once) unless a test says. */
  graceMs?: number;
  /** Status writes answer when this resolves (default: at once). */
  statusGate?: Promise<void>;
  /** Each interface probe answers when this resolves (default: at once). */
  probeGate?: (signal: AbortSignal | undefined) => Promise<void>;
  /** Called when a probe has answered. */
  afterProbe?: () => void;
  /** What the agents cache holds under ns/a once the first probe starts (default: unchanged). */
  replaceAgent?: (agent: AgentObject) => AgentObject | undefined;
  /** Replace the agent right after the visit's first read instead (before its grace can run out). */
  replaceAfterFirstRead?: boolean;
}

interface Logged {
  what: string;
  /** Interface probes started when the request was made. */
  probesStarted: number;
  /** The status a status write carried. */
  status?: A2AAgentStatus;
  /** The body of a write. */
  body?: unknown;
}

function fixture(opts: Options = {}) {
  let rv = 10;
  const agent: AgentObject = agentObject({ routing: { mode: 'Enforce' } }, String(rv));
  const pod = readyPod();
  let podList = [pod];
  const log: Logged[] = [];
  let probesStarted = 0;
  let release: () => void = () => undefined;
  const probeStarted = new Promise<void>((resolve) => (release = resolve));
  let statusWrites = 0;
  const request = async (req: ApiRequest): Promise<unknown> => {
    const what = `${req.method} ${req.path.replace(/^\/apis?\/[^/]+(\/[^/]+)?\/namespaces\/ns\//, '')}${
      req.query?.fieldSelector ? `?${String(req.query.fieldSelector)}` : ''
    }`;
    log.push({
      what,
      probesStarted,
      ...(req.method === 'PATCH' && req.path.endsWith('/status')
        ? { status: (req.body as { status: A2AAgentStatus }).status }
        : {}),
      ...(req.method !== 'GET' ? { body: req.body } : {}),
    });
    if (opts.holdApiUntilProbe) await probeStarted;
    if (req.path.endsWith('/status') && req.path.includes('a2aagents')) {
      statusWrites++;
      await opts.statusGate;
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
  let cached: AgentObject | undefined = agent;
  const backend: ProbeBackend = {
    fetchCard: () => Promise.resolve({ kind: 'ok', body: oneInterfaceCard }),
    probe: async (req) => {
      probesStarted++;
      if (probesStarted === 1 && opts.replaceAgent && !opts.replaceAfterFirstRead)
        cached = opts.replaceAgent(agent);
      release();
      await opts.probeGate?.(req.signal);
      opts.afterProbe?.();
      return { state: 'Verified', reason: 'TaskNotFound', message: 'served', durationMs: 1 };
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
    agents: {
      get: () => {
        const read = cached;
        if (opts.replaceAfterFirstRead && opts.replaceAgent) cached = opts.replaceAgent(agent);
        return read;
      },
      list: () => (cached ? [cached] : []),
    },
    pods: { get: () => podList[0], list: () => podList },
    owned: {
      services: cache(opts.cached?.services),
      slices: cache(opts.cached?.slices),
      configMaps: cache(opts.cached?.configMaps),
    },
    backend,
    events: { record: () => undefined } as unknown as EventRecorder,
    log: pino({ level: 'silent' }),
    progressGraceMs: opts.graceMs ?? 0,
  });
  const statuses = () => log.filter((l) => l.what === 'PATCH a2aagents/a/status').map((l) => l.status!);
  return { reconciler, log, statuses, removePod: () => (podList = []) };
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

for (const [what, replaceAgent] of [
  [
    'recreated under its name',
    (a: AgentObject): AgentObject => ({
      ...a,
      metadata: { ...a.metadata, uid: 'u2', resourceVersion: '99' },
    }),
  ],
  ['deleted', () => undefined],
  [
    'being deleted',
    (a: AgentObject): AgentObject => ({
      ...a,
      metadata: { ...a.metadata, deletionTimestamp: new Date('2030-01-01T00:00:00Z') },
    }),
  ],
] as const) {
  void test(`${what} while the first visit probed: that visit writes nothing after`, async () => {
    // A grace longer than the visit: nothing at all. No grace: the InProgress write, issued
    // before the probes (the agent was still there), and nothing after it.
    for (const graceMs of [60_000, 0]) {
      const { reconciler, log } = fixture({ replaceAgent, graceMs, holdApiUntilProbe: true });
      assert.deepEqual(await reconciler.reconcile('ns/a', signal), {});
      const writes = log.filter((l) => !l.what.startsWith('GET '));
      const expected = graceMs === 0 ? ['PATCH a2aagents/a/status'] : [];
      assert.deepEqual(
        writes.map((l) => l.what),
        expected,
        `grace ${graceMs} ms`,
      );
      for (const w of writes) {
        assert.equal(w.probesStarted, 0);
        assert.equal(w.status?.conditions?.find((c) => c.type === 'Reconciling')?.status, 'True');
      }
    }
  });
}

void test('recreated before the grace ran out: the InProgress write is not made either', async () => {
  // The grace runs out while the probe is held, after the agent was replaced: the deferred
  // InProgress write checks the cache too (a visit of the predecessor must not put Reconciling
  // on the new object).
  const { reconciler, log } = fixture({
    replaceAgent: (a) => ({ ...a, metadata: { ...a.metadata, uid: 'u2' } }),
    replaceAfterFirstRead: true,
    graceMs: 1,
    probeGate: () => new Promise((resolve) => setTimeout(resolve, 100)),
  });
  assert.deepEqual(await reconciler.reconcile('ns/a', signal), {});
  assert.deepEqual(
    log.filter((l) => !l.what.startsWith('GET ')).map((l) => l.what),
    [],
  );
});

void test('a pod that left after the decision, before the apply: its endpoint is not put back', async () => {
  // The decision is made while the InProgress write is held; the pod leaves (the fast
  // withdrawal path would have taken it out of the slice) before the apply runs.
  let releaseStatus: () => void = () => undefined;
  const statusGate = new Promise<void>((resolve) => (releaseStatus = resolve));
  const f = fixture({
    graceMs: 0,
    statusGate,
    afterProbe: () =>
      setImmediate(() => {
        f.removePod();
        releaseStatus();
      }),
  });
  await f.reconciler.reconcile('ns/a', signal);
  const verdict = f.statuses().at(-1)!;
  assert.equal(
    verdict.interfaces?.find((i) => i.advertised)?.protocolBinding,
    'JSONRPC',
    'decided with the pod routed',
  );
  const slice = f.log.find((l) => l.what === 'PATCH endpointslices/a-http')?.body as V1EndpointSlice;
  assert.ok(slice, f.log.map((l) => l.what).join(', '));
  assert.deepEqual(slice.endpoints, [], 'the endpoint of the pod that left');
});

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

/** A promise and the function that resolves it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A probe that answers only by failing when the visit is aborted. */
const untilAborted = (s: AbortSignal | undefined) =>
  new Promise<void>((_, reject) => s?.addEventListener('abort', () => reject(s.reason as Error)));

const reconciling = (s: A2AAgentStatus) => s.conditions?.find((c) => c.type === 'Reconciling')?.status;

void test('a first visit quicker than the grace writes one status, its verdict (no InProgress first)', async () => {
  // The shipped grace, or a longer one when a busy machine makes this visit slower than that.
  const graceMs = Math.max(PROGRESS_GRACE_MS, 30_000);
  const { reconciler, statuses } = fixture({ graceMs });
  await reconciler.reconcile('ns/a', signal);
  const written = statuses();
  assert.equal(written.length, 1, 'one status write');
  assert.equal(reconciling(written[0]!), 'False');
  assert.equal(written[0]!.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(written[0]!.observedGeneration, 1);
  // Nothing is left to fire after the visit (a timer left behind would also hold this file open).
});

void test(
  'a first visit that outlasts the grace writes InProgress while probing, then its verdict',
  { timeout: 20_000 },
  async () => {
    const seen = deferred();
    const fx = fixture({ graceMs: 50, probeGate: () => seen.promise });
    const visit = fx.reconciler.reconcile('ns/a', signal);
    // The probe holds until the InProgress write arrives: the grace, not the probe, starts it.
    const poll = setInterval(() => {
      if (fx.statuses().length > 0) seen.resolve();
    }, 5);
    await visit;
    clearInterval(poll);
    const written = fx.statuses();
    assert.equal(written.length, 2);
    assert.equal(reconciling(written[0]!), 'True', 'InProgress first');
    assert.equal(written[0]!.observedGeneration, 1);
    assert.equal(reconciling(written[1]!), 'False', 'then the verdict');
    const writes = fx.log.filter((l) => !l.what.startsWith('GET ')).map((l) => l.what);
    assert.equal(writes[0], 'PATCH a2aagents/a/status', 'before any routing write');
    const first = fx.log.find((l) => l.status)!;
    assert.ok(first.probesStarted > 0, 'written while the probe was running');
  },
);

void test(
  'a visit that ends before its verdict (aborted) leaves no InProgress write behind',
  { timeout: 20_000 },
  async () => {
    const abort = new AbortController();
    const fx = fixture({
      graceMs: 100,
      probeGate: untilAborted,
    });
    const visit = fx.reconciler.reconcile('ns/a', abort.signal);
    setTimeout(() => abort.abort(new Error('shutting down')), 20);
    await visit.then(
      () => undefined,
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(fx.statuses(), [], 'no status written after the visit ended');
  },
);

void test(
  'an InProgress write in flight when the visit fails ends before the visit does',
  { timeout: 20_000 },
  async () => {
    const statusGate = deferred();
    const abort = new AbortController();
    const fx = fixture({
      graceMs: 10,
      statusGate: statusGate.promise,
      probeGate: untilAborted,
    });
    let visitEnded = false;
    const visit = fx.reconciler.reconcile('ns/a', abort.signal).finally(() => (visitEnded = true));
    visit.catch(() => undefined);
    while (fx.statuses().length === 0) await new Promise((r) => setTimeout(r, 5));
    abort.abort(new Error('shutting down'));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(visitEnded, false, 'the visit waits for its InProgress write');
    statusGate.resolve();
    await assert.rejects(visit);
    assert.equal(fx.statuses().length, 1, 'InProgress only, no verdict');
  },
);
