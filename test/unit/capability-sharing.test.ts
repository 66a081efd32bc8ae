// An agent's pods usually answer the capability calls alike; their findings' messages were the
// largest text the operator kept per pod (12.5 MiB at 1,000 agents, docs/benchmarks.md). Equal
// findings are now held once per agent; different answers stay apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CapabilityState, InterfaceState } from '../../src/api/conditions.js';
import { MemoryStore } from '../../src/controller/agent-memory.js';
import { observePods } from '../../src/controller/observe-pods.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import { agentSpec, observeInput, podA0 } from './observe-fixtures.js';
import type { CapabilityFinding } from '../../src/observation/observed.js';

const CAPABILITIES = ['streaming', 'pushNotifications', 'extendedAgentCard'] as const;

/** Three pods; each answers with a fresh message string, its text chosen by `answer(address)`. */
function backend(answer: (address: string, capability: string) => string): ProbeBackend {
  return {
    fetchCard: () =>
      Promise.resolve({
        kind: 'ok',
        body: {
          name: 'a',
          capabilities: { streaming: true },
          supportedInterfaces: [
            { url: 'http://a.ns.svc:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
        },
      }),
    probe: () =>
      Promise.resolve({ state: InterfaceState.Verified, reason: 'Verified', message: 'm', durationMs: 1 }),
    probeCapabilities: (req) =>
      Promise.resolve(
        CAPABILITIES.map((c): CapabilityFinding => ({
          capability: c,
          declared: req.claims[c],
          state: CapabilityState.Verified,
          // Built at run time, as the prober builds them: equal text, distinct strings.
          message: [answer(req.address, c), c].join(': '),
        })),
      ),
  };
}

const pods = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((ip, i) => ({
  ...podA0(ip),
  name: `a-${i}`,
  uid: `u${i}`,
}));

async function findingsPerPod(answer: (address: string, capability: string) => string) {
  const memory = new MemoryStore().for('ns/a', 1);
  await observePods(observeInput(agentSpec(8080), backend(answer), { memory, pods }));
  return pods.map((p) => {
    const record = [...(memory.pods.get(p.uid)?.capabilities?.values() ?? [])];
    assert.equal(record.length, 1, `pod ${p.name}: one verified interface`);
    return record[0]!.findings;
  });
}

void test('pods that answer alike share one set of findings', async () => {
  const [a, b, c] = await findingsPerPod(() => 'served');
  assert.equal(a!.length, 3);
  for (let i = 0; i < 3; i++) {
    assert.equal(b![i], a![i], `finding ${i}: pod 2 holds pod 1's object`);
    assert.equal(c![i], a![i], `finding ${i}: pod 3 holds pod 1's object`);
  }
});

void test('a pod that answers differently keeps its own finding, and only that one', async () => {
  const [a, b, c] = await findingsPerPod((address, capability) =>
    address === '10.0.0.2' && capability === 'streaming' ? 'not served' : 'served',
  );
  assert.notEqual(b![0], a![0]);
  assert.match(b![0]!.message, /^not served/);
  assert.match(a![0]!.message, /^served/);
  assert.equal(b![1], a![1]);
  assert.equal(b![2], a![2]);
  assert.equal(c![0], a![0]);
});

void test('a finding in another state is not shared even with the same message', async () => {
  const memory = new MemoryStore().for('ns/a', 1);
  let calls = 0;
  const b = backend(() => 'same');
  const probeCapabilities = b.probeCapabilities!.bind(b);
  b.probeCapabilities = async (req) => {
    const found = await probeCapabilities(req);
    // The second pod's answers prove nothing, with the same words.
    return calls++ === 1 ? found.map((f) => ({ ...f, state: CapabilityState.Inconclusive })) : found;
  };
  await observePods(observeInput(agentSpec(8080), b, { memory, pods: pods.slice(0, 2) }));
  const [first, second] = pods
    .slice(0, 2)
    .map((p) => [...memory.pods.get(p.uid)!.capabilities!.values()][0]!);
  const inconclusive = first!.findings[0]!.state === CapabilityState.Inconclusive ? first! : second!;
  const verified = inconclusive === first ? second! : first!;
  assert.equal(inconclusive.findings[0]!.state, CapabilityState.Inconclusive);
  assert.equal(verified.findings[0]!.state, CapabilityState.Verified);
  assert.notEqual(inconclusive.findings[0], verified.findings[0]);
});
