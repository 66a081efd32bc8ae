// The withdraw-only part of full routing (src/routing/withdrawals-only.ts): what the slices may
// do while the card that should go first is refused. Never more than is routed now.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Endpoint, V1EndpointSlice } from '@kubernetes/client-node';
import { withdrawalsOnly } from '../../src/routing/withdrawals-only.js';

const ep = (pod: string, ip: string, ready = true): V1Endpoint => ({
  addresses: [ip],
  conditions: { ready, serving: ready, terminating: false },
  targetRef: { kind: 'Pod', name: pod, uid: `uid-${pod}` },
});
const slice = (name: string, port: string, endpoints: V1Endpoint[], number = 8080): V1EndpointSlice => ({
  addressType: 'IPv4',
  metadata: { name },
  ports: [{ name: port, port: number, protocol: 'TCP' }],
  endpoints,
});
const routed = (slices: V1EndpointSlice[]) =>
  Object.fromEntries(
    slices.map((s) => [
      s.metadata!.name,
      (s.endpoints ?? []).map(
        (e) => `${e.targetRef!.name}@${e.addresses[0]}${e.conditions?.ready ? '' : ' (not ready)'}`,
      ),
    ]),
  );

describe('withdrawalsOnly', () => {
  it('keeps what is routed now and wanted, drops what is no longer wanted, adds nothing', () => {
    const current = [slice('b-http', 'http', [ep('a', '10.0.0.1'), ep('b', '10.0.0.2')])];
    const desired = [slice('b-http', 'http', [ep('b', '10.0.0.2'), ep('c', '10.0.0.3')])];
    assert.deepEqual(routed(withdrawalsOnly(desired, current)), { 'b-http': ['b@10.0.0.2'] });
  });

  it('a slice that does not exist now is created only to carry what is routed now', () => {
    const current = [slice('b-http', 'http', [ep('a', '10.0.0.1')])];
    const desired = [
      slice('b-http', 'http', [ep('a', '10.0.0.1')]),
      slice('b-grpc', 'grpc', [ep('a', '10.0.0.1')]),
    ];
    assert.deepEqual(routed(withdrawalsOnly(desired, current)), { 'b-http': ['a@10.0.0.1'] });
  });

  it('a slice renamed because its port numbers split keeps the endpoints routed at that number', () => {
    // A named targetPort: b's container port differs, so b-http becomes b-http-8080 and -9090.
    const current = [slice('b-http', 'http', [ep('a', '10.0.0.1')])];
    const desired = [
      slice('b-http-8080', 'http', [ep('a', '10.0.0.1')]),
      slice('b-http-9090', 'http', [ep('b', '10.0.0.2')], 9090),
    ];
    assert.deepEqual(routed(withdrawalsOnly(desired, current)), { 'b-http-8080': ['a@10.0.0.1'] });
  });

  it('a pod routed at another port number is not routed at the new one', () => {
    // The published card's interfaces were verified at 8080; at 9090 the pod may serve less.
    const current = [slice('b-http', 'http', [ep('a', '10.0.0.1')])];
    const desired = [slice('b-http', 'http', [ep('a', '10.0.0.1')], 9090)];
    assert.deepEqual(routed(withdrawalsOnly(desired, current)), { 'b-http': [] });
  });

  it('a pod at a new address is not the endpoint routed now', () => {
    const current = [slice('b-http', 'http', [ep('a', '10.0.0.1')])];
    const desired = [slice('b-http', 'http', [ep('a', '10.0.0.9')])];
    assert.deepEqual(routed(withdrawalsOnly(desired, current)), { 'b-http': [] });
  });

  it('an endpoint moving between chunks of its port stays routed', () => {
    const current = [
      slice('b-http', 'http', [ep('a', '10.0.0.1')]),
      slice('b-http-2', 'http', [ep('b', '10.0.0.2')]),
    ];
    const desired = [
      slice('b-http', 'http', [ep('a', '10.0.0.1'), ep('b', '10.0.0.2')]),
      slice('b-http-2', 'http', []),
    ];
    assert.deepEqual(routed(withdrawalsOnly(desired, current)), {
      'b-http': ['a@10.0.0.1', 'b@10.0.0.2'],
      'b-http-2': [],
    });
  });

  it('a pod routed on another port only is not added to this one', () => {
    const current = [slice('b-http', 'http', []), slice('b-grpc', 'grpc', [ep('a', '10.0.0.1')])];
    const desired = [slice('b-http', 'http', [ep('a', '10.0.0.1')])];
    assert.deepEqual(routed(withdrawalsOnly(desired, current)), { 'b-http': [] });
  });

  it('ready only where both say ready: a not-ready endpoint is not made ready, a ready one may be withdrawn', () => {
    const current = [slice('b-http', 'http', [ep('a', '10.0.0.1', false), ep('b', '10.0.0.2')])];
    const desired = [slice('b-http', 'http', [ep('a', '10.0.0.1'), ep('b', '10.0.0.2', false)])];
    const out = withdrawalsOnly(desired, current);
    assert.deepEqual(routed(out), { 'b-http': ['a@10.0.0.1 (not ready)', 'b@10.0.0.2 (not ready)'] });
    assert.deepEqual(
      out[0]!.endpoints!.map((e) => e.conditions?.serving),
      [false, false],
    );
  });
});
