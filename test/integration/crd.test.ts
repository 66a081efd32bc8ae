// The generated CRD, applied to the real kube-apiserver the harness built.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { useCluster, type Cluster } from '../harness/cluster.js';

let cluster: Cluster;
let ns: string;

function agent(name: string, spec: Record<string, unknown>): string {
  return stringify({
    apiVersion: 'a2a.dev/v1alpha1',
    kind: 'A2AAgent',
    metadata: { name, namespace: ns },
    spec,
  });
}

const validSpec = {
  selector: { matchLabels: { app: 'billing' } },
  ports: [
    { name: 'http', port: 8443, targetPort: 8443 },
    { name: 'grpc', port: 9443, targetPort: 'grpc' },
  ],
  card: { port: 'http' },
};

before(async () => {
  cluster = await useCluster();
  process.stderr.write(`[crd.test] kube-apiserver ${cluster.version} at ${cluster.server}\n`);
  ns = await cluster.createNamespace('crd');
});

describe('A2AAgent CRD on a real API server', () => {
  test('a valid agent is accepted and the server applies the schema defaults', async () => {
    const res = await cluster.kubectl(['apply', '-f', '-'], { input: agent('billing', validSpec) });
    assert.equal(res.code, 0, res.stderr);
    const got = await cluster.kubectl(['get', 'a2a', 'billing', '-n', ns, '-o', 'json']);
    const obj = JSON.parse(got.stdout) as { spec: Record<string, Record<string, unknown>> };
    assert.deepEqual(obj.spec.probe, {
      periodSeconds: 30,
      timeoutSeconds: 3,
      failureThreshold: 2,
      failOn: 'AllPods',
      taskContinuity: 'Off',
    });
    assert.equal(obj.spec.card?.path, '/.well-known/agent-card.json');
    assert.equal(obj.spec.card?.scheme, 'HTTP');
    assert.equal(obj.spec.routing?.mode, 'Enforce');
  });

  test('kubectl get shows the printer columns, and -o wide adds MESSAGE', async () => {
    const res = await cluster.kubectl(['get', 'a2aagents', '-n', ns]);
    assert.equal(res.code, 0, res.stderr);
    const header = res.stdout.split('\n')[0]?.split(/\s+/).filter(Boolean);
    assert.deepEqual(header, ['NAME', 'READY', 'REASON', 'VERIFIED', 'PREFERRED', 'PODS', 'AGE']);
    const wide = await cluster.kubectl(['get', 'a2a', '-n', ns, '-o', 'wide']);
    assert.match(wide.stdout.split('\n')[0] ?? '', /AGE\s+MESSAGE/);
  });

  test('kubectl explain shows the field docs', async () => {
    const res = await cluster.kubectl(['explain', 'a2aagent.spec.ports']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /A card URL is mapped to a pod port by its port number/);
    assert.match(res.stdout, /targetPort/);
    const probe = await cluster.kubectl(['explain', 'a2aagent.spec.probe.failureThreshold']);
    assert.match(probe.stdout, /Consecutive failed probes/);
  });

  const invalid: { name: string; spec: Record<string, unknown>; field: RegExp }[] = [
    {
      name: 'no-selector',
      spec: { ...validSpec, selector: undefined },
      field: /spec\.selector: Required value/,
    },
    {
      name: 'empty-selector',
      spec: { ...validSpec, selector: {} },
      field: /spec\.selector.*matchLabels or matchExpressions/,
    },
    {
      name: 'card-port',
      spec: { ...validSpec, card: { port: 'admin' } },
      field: /spec\.card\.port.*must name one of ports\[\]\.name/,
    },
    {
      name: 'dup-port-number',
      spec: {
        ...validSpec,
        ports: [
          { name: 'http', port: 8443 },
          { name: 'other', port: 8443 },
        ],
      },
      field: /spec\.ports.*port numbers must be unique/,
    },
    {
      name: 'dup-port-name',
      spec: {
        ...validSpec,
        ports: [
          { name: 'http', port: 8443 },
          { name: 'http', port: 9443 },
        ],
      },
      field: /spec\.ports\[1\].*Duplicate value/,
    },
    {
      name: 'bad-scheme',
      spec: { ...validSpec, card: { port: 'http', scheme: 'FTP' } },
      field: /spec\.card\.scheme.*Unsupported value: "FTP"/,
    },
    {
      name: 'negative-period',
      spec: { ...validSpec, probe: { periodSeconds: -5 } },
      field: /spec\.probe\.periodSeconds.*greater than or equal to 1/,
    },
    {
      name: 'timeout-ge-period',
      spec: { ...validSpec, probe: { periodSeconds: 5, timeoutSeconds: 5 } },
      field: /spec\.probe\.timeoutSeconds.*less than periodSeconds/,
    },
    {
      // Probes start in a reconcile's first 30 s and a started one is cut at 30 s + timeout + 1 s:
      // a longer timeout would not leave the 60 s reconcile time to write status.
      name: 'timeout-past-reconcile-bound',
      spec: { ...validSpec, probe: { periodSeconds: 300, timeoutSeconds: 21 } },
      field: /spec\.probe\.timeoutSeconds.*less than or equal to 20/,
    },
    { name: 'no-ports', spec: { ...validSpec, ports: [] }, field: /spec\.ports.*at least 1 item/ },
    {
      name: 'port-range',
      spec: { ...validSpec, ports: [{ name: 'http', port: 70000 }] },
      field: /spec\.ports\[0\]\.port.*less than or equal to 65535/,
    },
    {
      name: 'bad-mode',
      spec: { ...validSpec, routing: { mode: 'Yolo' } },
      field: /spec\.routing\.mode.*Unsupported value/,
    },
    {
      // A Service name must start with a letter (DNS-1035).
      name: 'service-name-digit',
      spec: { ...validSpec, routing: { serviceName: '1billing' } },
      field: /spec\.routing\.serviceName/,
    },
  ];
  // The Service is named after the agent unless routing.serviceName is set: such an agent's name
  // must be a DNS-1035 label (issue 11 item 3; docs/routing.md, "Names").
  const longName = `billing.${'x'.repeat(80)}`;
  for (const name of [longName, 'billing.v2', '9billing']) {
    test(`rejects an agent named ${name.slice(0, 20)}… without routing.serviceName`, async () => {
      const res = await cluster.kubectl(['apply', '-f', '-'], { input: agent(name, validSpec) });
      assert.notEqual(res.code, 0, `expected rejection, got: ${res.stdout}`);
      assert.match(res.stderr, /metadata\.name is not a DNS-1035 label/);
    });
  }
  test('accepts such a name with routing.serviceName set', async () => {
    const spec = { ...validSpec, routing: { serviceName: 'billing-long' } };
    const res = await cluster.kubectl(['apply', '-f', '-'], { input: agent(longName, spec) });
    assert.equal(res.code, 0, res.stderr);
  });

  for (const c of invalid) {
    test(`rejects an invalid agent: ${c.name}`, async () => {
      const res = await cluster.kubectl(['apply', '-f', '-'], { input: agent(c.name, c.spec) });
      assert.notEqual(res.code, 0, `expected rejection, got: ${res.stdout}`);
      assert.match(res.stderr, c.field);
    });
  }
});
