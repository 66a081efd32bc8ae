// Gate ownership reads only the agents that select a pod when the reconciler has the manager's
// selector index (ReconcilerDeps.selecting), and every agent of the namespace without it. The two
// must give the same answers: seeded random namespaces of agents (overlapping selectors, Enforce
// and Observe, being deleted, an invalid spec) and pods holding a False gate, asked of two
// reconcilers side by side: which pods hold an orphan gate (the pod-event path) and which gates
// a reconcile of a deleted agent releases, with what reason and message. The indexed one never
// lists the namespace's agents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Pod } from '@kubernetes/client-node';
import { pino } from 'pino';
import { AgentReconciler, type AgentObject } from '../../src/controller/reconciler.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import type { ApiRequest, KubeClient } from '../../src/kube/client.js';
import { ApiError } from '../../src/kube/errors.js';
import type { EventRecorder } from '../../src/kube/events.js';
import { SelectorIndex } from '../../src/kube/selector-index.js';
import { matchesSelector } from '../../src/kube/selector.js';
import { parsedAgentSpec } from '../../src/controller/agent-spec.js';
import { falseGateIndexValue } from '../../src/controller/gates.js';
import { NOW, pick, prng } from './reconcile-fixtures.js';

const GATE = 'a2a.dev/card-verified';
const NS = 'shop';
const APPS = ['billing', 'search', 'chat'];
const TIERS = ['web', 'api'];

function agent(random: () => number, i: number): AgentObject {
  const matchLabels: Record<string, string> = { app: pick(random, APPS) };
  if (random() < 0.4) matchLabels.tier = pick(random, TIERS);
  const invalid = random() < 0.1;
  return {
    apiVersion: 'a2a.dev/v1alpha1',
    kind: 'A2AAgent',
    metadata: {
      name: `agent-${i}`,
      namespace: NS,
      uid: `u${i}`,
      generation: 1,
      // few distinct times: ties are broken by name
      creationTimestamp: new Date(Date.UTC(2030, 0, 1 + Math.floor(random() * 4))),
      ...(random() < 0.15 ? { deletionTimestamp: new Date(Date.UTC(2030, 1, 1)) } : {}),
    },
    spec: invalid
      ? { selector: { matchLabels }, ports: 'not a list' }
      : {
          selector: { matchLabels },
          ports: [{ name: 'http', port: 8080 }],
          card: { port: 'http' },
          routing: { mode: random() < 0.3 ? 'Observe' : 'Enforce' },
        },
  };
}

function gatedPod(random: () => number, i: number): V1Pod {
  const labels: Record<string, string> = { app: pick(random, [...APPS, 'other']) };
  if (random() < 0.7) labels.tier = pick(random, TIERS);
  return {
    metadata: { name: `pod-${i}`, namespace: NS, uid: `p${i}`, labels },
    spec: { containers: [{ name: 'c' }], readinessGates: [{ conditionType: GATE }] },
    status: {
      phase: 'Running',
      podIP: `10.0.0.${i + 1}`,
      conditions: [
        { type: 'Ready', status: 'False' },
        { type: GATE, status: random() < 0.8 ? 'False' : 'True' },
      ],
    },
  };
}

function reconcilerOver(agents: AgentObject[], pods: V1Pod[], indexed: boolean) {
  const reads = { list: 0, get: 0 };
  const released: { pod: string; body: unknown }[] = [];
  const client = {
    request: (req: ApiRequest) => {
      if (req.method === 'PATCH' && req.path.includes('/pods/')) {
        released.push({ pod: req.path.split('/pods/')[1]!.split('/')[0]!, body: req.body });
        return Promise.resolve({});
      }
      return Promise.reject(new ApiError(404, 'NotFound', 'not found', req.method));
    },
  } as unknown as KubeClient;
  const index = new SelectorIndex();
  for (const a of agents) {
    const parsed = parsedAgentSpec(a.spec);
    if (parsed.success) index.set(`${NS}/${a.metadata!.name!}`, NS, parsed.data.selector);
  }
  const none = { get: () => undefined, list: () => [] };
  const reconciler = new AgentReconciler({
    client,
    agents: {
      get: (_ns, name) => (reads.get++, agents.find((a) => a.metadata?.name === name)),
      list: () => (reads.list++, agents),
    },
    pods: {
      get: (_ns, name) => pods.find((p) => p.metadata?.name === name),
      list: () => pods,
      select: (_ns, selector) => pods.filter((p) => matchesSelector(selector, p.metadata?.labels)),
      byIndex: (_ns, value) => pods.filter((p) => falseGateIndexValue(p) === value),
    },
    owned: { services: none, slices: none, configMaps: none },
    backend: {} as ProbeBackend,
    events: { record: () => undefined } as unknown as EventRecorder,
    log: pino({ level: 'silent' }),
    now: () => NOW.getTime(),
    ...(indexed
      ? { selecting: (ns: string, labels?: Record<string, string>) => index.matching(ns, labels) }
      : {}),
  });
  return { reconciler, reads, released };
}

void test('gate ownership: the selector index and a scan of the namespace agree (seeded)', async () => {
  const random = prng(15);
  for (let round = 0; round < 150; round++) {
    const agents = Array.from({ length: 1 + Math.floor(random() * 8) }, (_, i) => agent(random, i));
    const pods = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) => gatedPod(random, i));
    const scan = reconcilerOver(agents, pods, false);
    const indexed = reconcilerOver(agents, pods, true);
    for (const p of pods) {
      assert.equal(
        indexed.reconciler.orphanGate(p),
        scan.reconciler.orphanGate(p),
        `round ${round}: orphanGate(${p.metadata!.name!})`,
      );
    }
    const signal = new AbortController().signal;
    // a key naming no agent runs the deletion path, which releases the namespace's orphan gates
    await scan.reconciler.reconcile(`${NS}/gone`, signal);
    await indexed.reconciler.reconcile(`${NS}/gone`, signal);
    assert.deepEqual(indexed.released, scan.released, `round ${round}: released gates`);
    assert.equal(indexed.reads.list, 0, `round ${round}: the indexed reconciler listed the agents`);
  }
});

void test('gate ownership with the index reads only the agents selecting the pods, however many others', async () => {
  const others = Array.from({ length: 500 }, (_, i): AgentObject => ({
    apiVersion: 'a2a.dev/v1alpha1',
    kind: 'A2AAgent',
    metadata: { name: `other-${i}`, namespace: NS, uid: `o${i}`, generation: 1 },
    spec: {
      selector: { matchLabels: { app: `other-${i}` } },
      ports: [{ name: 'http', port: 8080 }],
      card: { port: 'http' },
    },
  }));
  const observer: AgentObject = {
    apiVersion: 'a2a.dev/v1alpha1',
    kind: 'A2AAgent',
    metadata: { name: 'watcher', namespace: NS, uid: 'w', generation: 1 },
    spec: {
      selector: { matchLabels: { app: 'billing' } },
      ports: [{ name: 'http', port: 8080 }],
      card: { port: 'http' },
      routing: { mode: 'Observe' },
    },
  };
  const pod = gatedPod(prng(1), 0);
  pod.metadata!.labels = { app: 'billing' };
  pod.status!.conditions![1]!.status = 'False';
  const { reconciler, reads, released } = reconcilerOver([...others, observer], [pod], true);
  assert.equal(reconciler.orphanGate(pod), true, 'only an Observe agent selects it');
  await reconciler.reconcile(`${NS}/gone`, new AbortController().signal);
  assert.equal(released.length, 1);
  assert.match(
    JSON.stringify(released[0]!.body),
    /only A2AAgents in mode Observe select this pod \(watcher\)/,
  );
  assert.equal(reads.list, 0);
  assert.ok(reads.get <= 4, `read ${reads.get} agents for one pod selected by one`);
});
