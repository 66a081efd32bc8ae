// The pod cache keeps only what the operator reads (src/controller/slim-pod.ts): every reader
// of a cached pod answers the same on the slim copy as on the full object the API serves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import {
  gatesOwnedElsewhere,
  holdsFalseGate,
  listsGate,
  orphanGate,
  releasedGates,
  type GateAgent,
} from '../../src/controller/gates.js';
import { observePod } from '../../src/controller/pod-state.js';
import { slimPod } from '../../src/controller/slim-pod.js';

const GATE = 'a2a.dev/card-verified';

/** A pod as the API serves it (kubelet-written status, managedFields, the lot). */
function fullPod(
  name: string,
  over: { gate?: 'True' | 'False'; deleting?: boolean; listed?: boolean; dual?: boolean } = {},
): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'payments',
      uid: `uid-${name}`,
      resourceVersion: '4711',
      generation: 1,
      creationTimestamp: new Date('2026-01-01T00:00:00Z'),
      labels: { app: 'billing', 'pod-template-hash': 'abc' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'billing-abc', uid: 'rs', controller: true },
      ],
      managedFields: [
        { manager: 'kubelet', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { f: {} } },
      ],
      ...(over.deleting ? { deletionTimestamp: new Date('2026-01-01T00:01:00Z') } : {}),
    },
    spec: {
      nodeName: 'node-1',
      serviceAccountName: 'default',
      volumes: [{ name: 'token', projected: { sources: [] } }],
      containers: [
        {
          name: 'agent',
          image: 'agent:1',
          env: [{ name: 'X', value: 'y' }],
          ports: [
            { name: 'jsonrpc', containerPort: 8080, protocol: 'TCP' },
            { name: 'grpc', containerPort: 9090, protocol: 'TCP' },
            { containerPort: 9999 },
          ],
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
        },
        { name: 'sidecar', image: 'proxy:1' },
      ],
      ...(over.listed === false ? {} : { readinessGates: [{ conditionType: GATE }] }),
    },
    status: {
      phase: 'Running',
      hostIP: '10.0.0.1',
      podIP: '10.1.0.7',
      podIPs: over.dual ? [{ ip: '10.1.0.7' }, { ip: 'fd00::7' }] : [{ ip: '10.1.0.7' }],
      startTime: new Date('2026-01-01T00:00:00Z'),
      qosClass: 'BestEffort',
      containerStatuses: [
        { name: 'agent', image: 'agent:1', imageID: 'sha', ready: true, restartCount: 0, started: true },
      ],
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: new Date() },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: new Date() },
        { type: 'Ready', status: over.gate === 'True' ? 'True' : 'False', reason: 'ReadinessGatesNotReady' },
        ...(over.gate
          ? [
              {
                type: GATE,
                status: over.gate,
                reason: 'CardVerified',
                message: 'ok',
                lastTransitionTime: new Date(),
              },
            ]
          : []),
      ],
    },
  };
}

const variants: V1Pod[] = [
  fullPod('plain'),
  fullPod('gate-false', { gate: 'False' }),
  fullPod('gate-true', { gate: 'True' }),
  fullPod('terminating', { gate: 'False', deleting: true }),
  fullPod('unlisted', { listed: false }),
  fullPod('dual', { dual: true }),
  { metadata: { name: 'bare', namespace: 'payments' } },
];

const agents: GateAgent[] = [
  {
    name: 'billing',
    creationTimestamp: '2026-01-01T00:00:00Z',
    selector: { matchLabels: { app: 'billing' } },
    enforce: true,
    deleting: false,
  },
];

describe('slimPod', () => {
  for (const full of variants) {
    it(`${full.metadata!.name}: every reader answers the same`, () => {
      const slim = slimPod(structuredClone(full));
      assert.deepEqual(observePod(slim), observePod(full));
      assert.equal(listsGate(slim), listsGate(full));
      assert.equal(holdsFalseGate(slim), holdsFalseGate(full));
      assert.equal(orphanGate(slim, []), orphanGate(full, []));
      assert.equal(orphanGate(slim, agents), orphanGate(full, agents));
      assert.deepEqual(releasedGates([slim], []), releasedGates([full], []));
      assert.deepEqual(
        gatesOwnedElsewhere('other', [slim], agents),
        gatesOwnedElsewhere('other', [full], agents),
      );
      assert.deepEqual(slim.metadata?.labels, full.metadata?.labels);
      for (const k of ['name', 'namespace', 'uid', 'resourceVersion'] as const)
        assert.equal(slim.metadata?.[k], full.metadata?.[k]);
    });
  }

  it('drops what no reader needs', () => {
    const slim = slimPod(fullPod('plain'));
    assert.equal(slim.metadata?.managedFields, undefined);
    assert.equal(slim.metadata?.annotations, undefined);
    assert.equal(slim.spec?.volumes, undefined);
    assert.equal(slim.spec?.containers[0]?.env, undefined);
    assert.equal(slim.status?.containerStatuses, undefined);
    assert.ok(JSON.stringify(slim).length < JSON.stringify(fullPod('plain')).length / 2);
  });
});
