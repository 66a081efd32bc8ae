import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { CARD_VERIFIED_GATE, observePod } from '../../src/controller/pod-state.js';

function cond(type: string, status: string, extra: Partial<V1PodCondition> = {}): V1PodCondition {
  return { type, status, ...extra };
}

function v1pod(opts: {
  phase?: string;
  ip?: string;
  conditions?: V1PodCondition[];
  deleting?: boolean;
  ports?: { name?: string; containerPort: number }[][];
}): V1Pod {
  return {
    metadata: {
      name: 'billing-7d9f-abc',
      uid: '1b2c-uid',
      ...(opts.deleting ? { deletionTimestamp: new Date('2030-01-01T00:00:00Z') } : {}),
    },
    spec: {
      nodeName: 'node-1',
      containers: (opts.ports ?? [[{ name: 'http', containerPort: 8080 }]]).map((ports, i) => ({
        name: `c${i}`,
        ports,
      })),
    },
    status: {
      phase: opts.phase ?? 'Running',
      ...(opts.ip === '' ? {} : { podIP: opts.ip ?? '10.1.2.3' }),
      conditions: opts.conditions ?? [cond('ContainersReady', 'True'), cond('Ready', 'True')],
    },
  };
}

describe('observePod: candidacy', () => {
  const cases: { name: string; pod: V1Pod; candidate: boolean; terminating?: boolean }[] = [
    { name: 'running, IP, containers ready', pod: v1pod({}), candidate: true },
    {
      name: 'readiness gate holds Ready False but ContainersReady True: still a candidate',
      pod: v1pod({
        conditions: [
          cond('ContainersReady', 'True'),
          cond('Ready', 'False', { reason: 'ReadinessGatesNotReady' }),
          cond(CARD_VERIFIED_GATE, 'False', { reason: 'WrongBinding' }),
        ],
      }),
      candidate: true,
    },
    {
      name: 'ContainersReady False but Ready True (stale): not a candidate',
      pod: v1pod({ conditions: [cond('ContainersReady', 'False'), cond('Ready', 'True')] }),
      candidate: false,
    },
    {
      name: 'no ContainersReady condition: falls back to Ready True',
      pod: v1pod({ conditions: [cond('Ready', 'True')] }),
      candidate: true,
    },
    {
      name: 'no ContainersReady condition and Ready False',
      pod: v1pod({ conditions: [cond('Ready', 'False')] }),
      candidate: false,
    },
    { name: 'no conditions at all', pod: v1pod({ conditions: [] }), candidate: false },
    {
      name: 'ContainersReady Unknown',
      pod: v1pod({ conditions: [cond('ContainersReady', 'Unknown')] }),
      candidate: false,
    },
    {
      name: 'terminating, otherwise ready',
      pod: v1pod({ deleting: true }),
      candidate: false,
      terminating: true,
    },
    { name: 'no IP yet', pod: v1pod({ ip: '' }), candidate: false },
    { name: 'phase Pending', pod: v1pod({ phase: 'Pending' }), candidate: false },
    { name: 'phase Succeeded', pod: v1pod({ phase: 'Succeeded' }), candidate: false },
    { name: 'phase Failed', pod: v1pod({ phase: 'Failed' }), candidate: false },
    { name: 'empty object', pod: {}, candidate: false },
  ];
  for (const c of cases) {
    it(`${c.name} → candidate ${c.candidate}`, () => {
      const o = observePod(c.pod);
      assert.equal(o.candidate, c.candidate);
      assert.equal(o.terminating, c.terminating ?? false);
    });
  }
});

describe('observePod: fields', () => {
  it('name, uid, ip, nodeName, named containerPorts from every container (unnamed ignored)', () => {
    const o = observePod(
      v1pod({
        ports: [
          [{ name: 'http', containerPort: 8080 }, { containerPort: 9999 }],
          [{ name: 'grpc', containerPort: 9090 }],
        ],
      }),
    );
    assert.equal(o.name, 'billing-7d9f-abc');
    assert.equal(o.uid, '1b2c-uid');
    assert.equal(o.ip, '10.1.2.3');
    assert.equal(o.nodeName, 'node-1');
    assert.deepEqual({ ...o.containerPorts }, { http: 8080, grpc: 9090 });
    assert.equal(o.gate, undefined);
  });

  it('the card-verified gate condition is read back with reason and message', () => {
    const o = observePod(
      v1pod({
        conditions: [
          cond('ContainersReady', 'True'),
          cond(CARD_VERIFIED_GATE, 'True', { reason: 'CardVerified', message: 'all 3 verified' }),
        ],
      }),
    );
    assert.deepEqual(o.gate, { status: 'True', reason: 'CardVerified', message: 'all 3 verified' });
    assert.equal(CARD_VERIFIED_GATE, 'a2a.dev/card-verified');
  });

  it('an empty podIP is no IP', () => {
    const p = v1pod({});
    p.status!.podIP = '';
    const o = observePod(p);
    assert.equal(o.ip, undefined);
    assert.equal(o.candidate, false);
  });
});

describe('observePod: readiness gate opt-in', () => {
  it('gateListed follows spec.readinessGates', () => {
    const listed = observePod({
      metadata: { name: 'p', uid: 'u' },
      spec: { containers: [], readinessGates: [{ conditionType: 'a2a.dev/card-verified' }] },
      status: { phase: 'Running', podIP: '10.0.0.1' },
    });
    assert.equal(listed.gateListed, true);
    const other = observePod({
      metadata: { name: 'p', uid: 'u' },
      spec: { containers: [], readinessGates: [{ conditionType: 'example.com/other' }] },
      status: { phase: 'Running', podIP: '10.0.0.1' },
    });
    assert.equal(other.gateListed, false);
  });
});
