// Regression: `targetPort: constructor` (a valid port name) resolved through Object.prototype to
// the Object function, so the operator "found" a pod port that does not exist and dialled
// nonsense. Port names from a spec now only find the pod's own containerPorts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Pod } from '@kubernetes/client-node';
import { observePod } from '../../src/controller/pod-state.js';
import { podPort } from '../../src/observation/port-mapping.js';

const INHERITED = [
  'constructor',
  'hasownproperty',
  'tostring',
  'valueof',
  '__proto__',
  'toString',
  'valueOf',
];

function pod(ports: { name?: string; containerPort: number }[]): V1Pod {
  return {
    metadata: { name: 'p', uid: 'u' },
    spec: { containers: [{ name: 'c', ports }] },
    status: { phase: 'Running', podIP: '10.0.0.1' },
  };
}

void test('a targetPort naming an Object.prototype member finds no port on a pod without it', () => {
  const observed = observePod(pod([{ name: 'http', containerPort: 8080 }]));
  for (const name of INHERITED) {
    const port = { name: 'p', port: 80, targetPort: name };
    assert.equal(podPort(port, observed), undefined, `observed pod, targetPort ${name}`);
    assert.equal(podPort(port, { containerPorts: { http: 8080 } }), undefined, `plain object, ${name}`);
    // The reconciler's PortNotFound check indexes containerPorts directly: no prototype there either.
    assert.equal(observed.containerPorts[name], undefined, `containerPorts[${name}]`);
  }
  assert.equal(podPort({ name: 'p', port: 80, targetPort: 'http' }, observed), 8080);
});

void test('a pod that really names a port constructor or __proto__ gets it', () => {
  const observed = observePod(
    pod([
      { name: 'constructor', containerPort: 7070 },
      { name: '__proto__', containerPort: 7071 },
    ]),
  );
  assert.equal(podPort({ name: 'p', port: 80, targetPort: 'constructor' }, observed), 7070);
  assert.equal(podPort({ name: 'p', port: 80, targetPort: '__proto__' }, observed), 7071);
  assert.deepEqual(Object.keys(observed.containerPorts).sort(), ['__proto__', 'constructor']);
});
