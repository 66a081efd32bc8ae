// mapInterfaces keeps its last answer per card object (interface-map.ts): the same card under the
// same spec object, namespace and Service name shares one frozen answer; any of the three
// changing maps the card afresh, and what comes back is what a fresh mapping says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AAgentSpec } from '../../src/api/a2aagent.js';
import { CardParseError, parseCard, type ParsedCard } from '../../src/card/index.js';
import { mapInterfaces } from '../../src/observation/interface-map.js';

const cardOf = (host: string): ParsedCard => {
  const c = parseCard({
    name: 'a',
    supportedInterfaces: [
      { url: `http://${host}:8080/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `http://${host}:9090`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
  });
  assert.ok(!(c instanceof CardParseError));
  return c;
};

// spec.hosts makes the host check apply: the Service's own names and these are allowed
const specWith = (ports: { name: string; port: number }[]) =>
  A2AAgentSpec.parse({
    selector: { matchLabels: { app: 'a' } },
    ports,
    card: { port: 'http' },
    hosts: ['a.example'],
  });
const both = specWith([
  { name: 'http', port: 8080 },
  { name: 'grpc', port: 9090 },
]);
const ctx = { spec: both, namespace: 'ns', serviceName: 'a' };

const summary = (m: ReturnType<typeof mapInterfaces>) =>
  m.map((i) => `${i.iface.protocolBinding} ${i.mapped ? `-> ${i.port.name}` : i.state}`);

void test('mapInterfaces: the same card in the same context shares one frozen answer', () => {
  const card = cardOf('a.ns.svc');
  const first = mapInterfaces(card, ctx);
  assert.equal(mapInterfaces(card, { ...ctx }), first, 'a new context object with the same parts');
  assert.ok(Object.isFrozen(first));
  assert.ok(first.every((m) => Object.isFrozen(m)));
  assert.throws(() => (first as unknown[]).push(1), TypeError);
  assert.deepEqual(summary(first), ['JSONRPC -> http', 'GRPC -> grpc']);
  // an equal card parsed again is another object: mapped on its own, to the same answer
  const again = mapInterfaces(cardOf('a.ns.svc'), ctx);
  assert.notEqual(again, first);
  assert.deepEqual(summary(again), summary(first));
});

void test('mapInterfaces: another spec, namespace or Service name maps the card afresh', () => {
  const card = cardOf('a.ns.svc');
  const first = mapInterfaces(card, ctx);
  // a spec that drops the gRPC port: its interface is Unmapped under that spec
  const httpOnly = specWith([{ name: 'http', port: 8080 }]);
  assert.deepEqual(summary(mapInterfaces(card, { ...ctx, spec: httpOnly })), [
    'JSONRPC -> http',
    'GRPC Unmapped',
  ]);
  // an equal spec parsed again is another object: mapped afresh, same answer
  const equalSpec = mapInterfaces(card, { ...ctx, spec: specWith([...both.ports]) });
  assert.notEqual(equalSpec, first);
  assert.deepEqual(summary(equalSpec), summary(first));
  // the card names a.ns.svc: under another namespace or Service name its host is foreign
  for (const other of [{ namespace: 'other' }, { serviceName: 'b' }]) {
    const m = mapInterfaces(card, { ...ctx, ...other });
    assert.ok(
      m.every((i) => !i.mapped && i.state === 'Unmapped'),
      JSON.stringify(summary(m)),
    );
  }
  // and back: the answer for the first context again, not the last one kept
  assert.deepEqual(summary(mapInterfaces(card, ctx)), summary(first));
});
