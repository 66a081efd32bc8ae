// Dual-stack pods: every address in status.podIPs is read, probed and routed in the
// EndpointSlice of its family; a pod's verdict for an interface is Verified only when every one
// of its addresses serves it (an advertised interface is never routed to an address that does
// not serve it). Pure parts here; test/integration/routing-dual-stack.test.ts runs it for real.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { A2AAgentSpec } from '../../src/api/a2aagent.js';
import { InterfaceState } from '../../src/api/conditions.js';
import { combineAddressAnswers, probeEveryAddress } from '../../src/controller/address-verdict.js';
import type { PodObservation } from '../../src/observation/observed.js';
import { observePod } from '../../src/controller/pod-state.js';
import type { ProbeAnswer } from '../../src/controller/probe-backend.js';
import { hostPort } from '../../src/probe/dial-target.js';
import { addressFamily, buildEndpointSlices } from '../../src/routing/objects.js';

function pod(status: V1Pod['status']): V1Pod {
  return {
    metadata: { name: 'p', uid: 'u' },
    spec: { containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'ContainersReady', status: 'True' }],
      ...status,
    },
  };
}

describe('observePod: addresses', () => {
  it('reads every podIPs entry, the primary (podIP) first', () => {
    const p = observePod(pod({ podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00:a2a::1' }] }));
    assert.equal(p.ip, '10.0.0.1');
    assert.deepEqual(p.ips, ['10.0.0.1', 'fd00:a2a::1']);
    assert.equal(p.candidate, true);
  });
  it('an IPv6-only pod is a candidate with its IPv6 address', () => {
    const p = observePod(pod({ podIP: 'fd00:a2a::2', podIPs: [{ ip: 'fd00:a2a::2' }] }));
    assert.deepEqual(p.ips, ['fd00:a2a::2']);
    assert.equal(p.candidate, true);
  });
  it('podIP alone (older API servers) and podIPs alone both work', () => {
    assert.deepEqual(observePod(pod({ podIP: '10.0.0.3' })).ips, ['10.0.0.3']);
    const only = observePod(pod({ podIPs: [{ ip: 'fd00:a2a::3' }, { ip: '10.0.0.3' }] }));
    assert.equal(only.ip, 'fd00:a2a::3');
    assert.deepEqual(only.ips, ['fd00:a2a::3', '10.0.0.3']);
  });
  it('no address: not a candidate', () => {
    const p = observePod(pod({}));
    assert.deepEqual(p.ips, []);
    assert.equal(p.candidate, false);
  });
});

const answer = (state: InterfaceState, message: string = state, durationMs = 1): ProbeAnswer => ({
  state,
  reason: state,
  message,
  durationMs,
});

describe('combineAddressAnswers: one verdict per pod from its addresses', () => {
  const V = InterfaceState.Verified;
  const cases: { name: string; answers: ProbeAnswer[]; state: InterfaceState; message: string }[] = [
    { name: 'one address', answers: [answer(V, 'v4 ok')], state: V, message: 'v4 ok' },
    {
      name: 'every address verified',
      answers: [answer(V, 'v4 ok'), answer(V, 'v6 ok')],
      state: V,
      message: 'v4 ok',
    },
    {
      name: 'IPv6 fails: the pod fails with the IPv6 answer',
      answers: [answer(V, 'v4 ok'), answer(InterfaceState.Unreachable, 'v6 refused')],
      state: InterfaceState.Unreachable,
      message: 'v6 refused',
    },
    {
      name: 'IPv4 fails',
      answers: [answer(InterfaceState.WrongBinding, 'v4 html'), answer(V, 'v6 ok')],
      state: InterfaceState.WrongBinding,
      message: 'v4 html',
    },
    {
      name: 'any address not probed: Pending (no verdict), even beside a failure',
      answers: [answer(InterfaceState.Timeout, 'v4 slow'), answer(InterfaceState.Pending, 'v6 cut')],
      state: InterfaceState.Pending,
      message: 'v6 cut',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = combineAddressAnswers(c.answers);
      assert.equal(r.state, c.state);
      assert.equal(r.message, c.message);
    });
  }
  it('the duration is the longest (the addresses are probed at once)', async () => {
    const seen: string[] = [];
    const r = await probeEveryAddress(['10.0.0.1', 'fd00:a2a::1'], (a) => {
      seen.push(a);
      return Promise.resolve(answer(InterfaceState.Verified, a, a.includes(':') ? 7 : 3));
    });
    assert.deepEqual(seen, ['10.0.0.1', 'fd00:a2a::1']);
    assert.equal(r.durationMs, 7);
  });
  it('no address is a programming error', () => {
    assert.throws(() => combineAddressAnswers([]), RangeError);
  });
});

describe('buildEndpointSlices: one slice per port per address family', () => {
  const spec = A2AAgentSpec.parse({
    selector: { matchLabels: { app: 'a' } },
    ports: [{ name: 'http', port: 8080 }],
    card: { port: 'http' },
  });
  const owner = { name: 'a', namespace: 'ns', uid: 'agent-uid' };
  const obs = (uid: string, ips: string[]): PodObservation => ({
    pod: {
      name: `pod-${uid}`,
      uid,
      ip: ips[0],
      ips,
      candidate: true,
      terminating: false,
      containerPorts: {},
      gateListed: false,
    },
    verdicts: new Map(),
  });
  const pods = [
    obs('v4', ['10.244.1.2']),
    obs('dual', ['10.244.1.3', 'fd00:a2a::3']),
    obs('v6', ['fd00:a2a::4']),
  ];
  const slices = (uids: string[]) =>
    buildEndpointSlices(
      owner,
      'a',
      spec,
      { advertised: ['k'], endpoints: new Map([['http', uids]]) },
      pods,
      [],
    );
  const summary = (s: ReturnType<typeof slices>) =>
    s.map((x) => ({
      name: x.metadata!.name,
      addressType: x.addressType,
      addresses: x.endpoints.map((e) => `${e.targetRef!.name}=${e.addresses.join(',')}`),
    }));

  it('IPv4 and IPv6 slices list each routed pod by the address of that family', () => {
    assert.deepEqual(summary(slices(['v4', 'dual', 'v6'])), [
      { name: 'a-http', addressType: 'IPv4', addresses: ['pod-v4=10.244.1.2', 'pod-dual=10.244.1.3'] },
      {
        name: 'a-http-ipv6',
        addressType: 'IPv6',
        addresses: ['pod-dual=fd00:a2a::3', 'pod-v6=fd00:a2a::4'],
      },
    ]);
  });
  it('no IPv6 pod routed: no IPv6 slice (a stale one is pruned as not wanted); the IPv4 slice is always there', () => {
    assert.deepEqual(summary(slices(['v4'])), [
      { name: 'a-http', addressType: 'IPv4', addresses: ['pod-v4=10.244.1.2'] },
    ]);
    assert.deepEqual(summary(slices([])), [{ name: 'a-http', addressType: 'IPv4', addresses: [] }]);
  });
  it('an IPv6-only pod alone is routed (it was dropped before)', () => {
    assert.deepEqual(summary(slices(['v6'])), [
      { name: 'a-http', addressType: 'IPv4', addresses: [] },
      { name: 'a-http-ipv6', addressType: 'IPv6', addresses: ['pod-v6=fd00:a2a::4'] },
    ]);
  });
  it('addressFamily', () => {
    assert.equal(addressFamily('10.0.0.1'), 'IPv4');
    assert.equal(addressFamily('fd00::1'), 'IPv6');
    assert.equal(addressFamily('::ffff:10.0.0.1'), 'IPv6');
  });
});

describe('hostPort: the dial target of an IPv6 pod is bracketed', () => {
  it('IPv6 in brackets, IPv4 as is', () => {
    assert.equal(hostPort('fd00:a2a::4', 8080), '[fd00:a2a::4]:8080');
    assert.equal(hostPort('10.244.1.2', 8080), '10.244.1.2:8080');
  });
});
