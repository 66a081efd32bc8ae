import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  cardDigest,
  CardParseError,
  interfaceEligibility,
  parseCard,
  staticChecks,
} from '../../src/card/index.js';
import { parsed, seedRaw } from './reconcile-fixtures.js';

const seedCard = seedRaw();

void test('v1.0 card: interfaces in card order, first preferred, tenant kept, empty tenant dropped', () => {
  const card = parsed({
    name: 'a',
    supportedInterfaces: [
      { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: 'a.example:443', protocolBinding: 'grpc', protocolVersion: '1.0', tenant: 't1' },
    ],
  });
  assert.equal(card.shape, 'v1.0');
  assert.deepEqual(
    card.interfaces.map((i) => [i.protocolBinding, i.protocolVersion, i.tenant, i.index]),
    [
      ['JSONRPC', '1.0', undefined, 0],
      ['GRPC', '1.0', 't1', 1],
    ],
  );
  assert.equal(card.preferred?.url, 'https://a.example/rpc');
  assert.match(card.preferred!.why, /first entry of supportedInterfaces/);
  assert.deepEqual(staticChecks(card), []);
});

void test('v0.3 seed card: primary first, mirror of primary not duplicated, PreferredTransportMismatch', () => {
  const card = parsed(seedCard);
  assert.equal(card.shape, 'v0.3');
  assert.deepEqual(
    card.interfaces.map((i) => `${i.protocolBinding}@${i.url}@${i.protocolVersion}`),
    [
      'GRPC@https://agent.internal:8443@0.3',
      'JSONRPC@https://agent.internal:8443@0.3',
      'GRPC@https://agent.internal:9443@0.3',
    ],
  );
  assert.match(card.preferred!.why, /preferredTransport GRPC/);
  const findings = staticChecks(card);
  assert.deepEqual(
    findings.map((f) => f.reason),
    ['PreferredTransportMismatch'],
  );
  assert.match(findings[0]!.message, /Set preferredTransport to JSONRPC/);
});

void test('v0.3 card without preferredTransport defaults to JSONRPC and repeats of the primary pair are dropped', () => {
  const card = parsed({
    protocolVersion: '0.3.0',
    url: 'http://h/a2a',
    additionalInterfaces: [{ url: 'http://h/a2a', transport: 'JSONRPC' }],
  });
  assert.equal(card.interfaces.length, 1);
  assert.equal(card.interfaces[0]!.protocolBinding, 'JSONRPC');
  assert.match(card.preferred!.why, /default transport JSONRPC/);
  assert.deepEqual(staticChecks(card), []);
});

void test('hybrid card: supportedInterfaces authoritative, v0.3 fields checked against them', () => {
  const good = parsed({
    url: 'http://h/jsonrpc',
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3',
    supportedInterfaces: [
      { url: 'http://h/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://h/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
  });
  assert.equal(good.shape, 'hybrid');
  assert.equal(good.interfaces.length, 2);
  assert.deepEqual(staticChecks(good), []);
  const bad = parsed({ ...good.raw, preferredTransport: 'GRPC' });
  assert.deepEqual(
    staticChecks(bad).map((f) => f.reason),
    ['PreferredTransportMismatch'],
  );
});

void test('malformed cards are CardInvalid parse errors', () => {
  for (const doc of [null, [], 'x', {}, { supportedInterfaces: [{ url: 1 }] }, { url: 'http://h' }]) {
    const r = parseCard(doc);
    assert.ok(r instanceof CardParseError, JSON.stringify(doc));
    assert.equal(r.reason, 'CardInvalid');
  }
});

void test('empty supportedInterfaces parses as v1.0 with a NoInterfaces finding', () => {
  const card = parsed({ supportedInterfaces: [] });
  assert.equal(card.preferred, undefined);
  assert.deepEqual(
    staticChecks(card).map((f) => f.reason),
    ['NoInterfaces'],
  );
});

const eligibilityCases: [string, string, string, string | null][] = [
  ['gRPC bare host:port', 'GRPC', 'agent.internal:9443', null],
  ['gRPC https host:port', 'GRPC', 'https://agent.internal:9443', null],
  ['gRPC http host:port', 'GRPC', 'http://agent.internal:9443', null],
  ['gRPC with a path', 'GRPC', 'https://agent.internal:9443/a2a', 'InterfaceURLInvalid'],
  ['gRPC with a query', 'GRPC', 'https://agent.internal:9443?x=1', 'InterfaceURLInvalid'],
  ['gRPC with credentials', 'GRPC', 'https://u:p@agent.internal:9443', 'InterfaceURLInvalid'],
  ['gRPC bare with credentials', 'GRPC', 'u@agent.internal:9443', 'InterfaceURLInvalid'],
  ['JSON-RPC with credentials', 'JSONRPC', 'https://u:p@h/rpc', 'InterfaceURLInvalid'],
  ['JSON-RPC relative', 'JSONRPC', '/rpc', 'InterfaceURLInvalid'],
  ['JSON-RPC bare host:port', 'JSONRPC', 'h:80', 'InterfaceURLInvalid'],
  ['REST ftp', 'HTTP+JSON', 'ftp://h/rest', 'InterfaceURLInvalid'],
  ['custom binding', 'urn:x:binding', 'https://h/x', 'UnsupportedBinding'],
];
for (const [name, binding, url, reason] of eligibilityCases) {
  void test(`eligibility: ${name}`, () => {
    const card = parsed({ supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: '1.0' }] });
    const [e] = interfaceEligibility(card);
    assert.equal(e!.eligible ? null : e!.reason, reason);
  });
}

void test('eligibility: endpoint parts (TLS, port defaults, authority, path)', () => {
  const card = parsed({
    supportedInterfaces: [
      { url: 'agent.internal:9443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: 'http://agent.internal:9443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: 'https://Agent.Internal/a2a/rest/', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'http://[::1]:8080/rpc?x=1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  });
  const ends = interfaceEligibility(card).map((e) => (e.eligible ? e.endpoint : null));
  assert.deepEqual(ends[0], {
    tls: true,
    host: 'agent.internal',
    port: 9443,
    path: '',
    query: '',
    authority: 'agent.internal:9443',
    form: 'grpc-bare',
  });
  assert.equal(ends[1]!.tls, false);
  assert.deepEqual(
    [ends[2]!.tls, ends[2]!.port, ends[2]!.path, ends[2]!.authority],
    [true, 443, '/a2a/rest', 'agent.internal'],
  );
  assert.deepEqual(
    [ends[3]!.host, ends[3]!.port, ends[3]!.query, ends[3]!.authority],
    ['::1', 8080, '?x=1', '[::1]:8080'],
  );
});

void test('unsupported versions, insecure downgrade (except loopback), foreign hosts, duplicates, conflicts', () => {
  const card = parsed({
    supportedInterfaces: [
      { url: 'https://h/rpc', protocolBinding: 'JSONRPC', protocolVersion: '2.0' },
      { url: 'http://h/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://localhost:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://other/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://h/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'https://h/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'https://h:9443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: 'https://h:9443/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  });
  const findings = staticChecks(card, {
    cardScheme: 'https',
    allowedHosts: ['h', 'localhost'],
    allowLoopbackPlaintext: true, // the CLI's rule; the operator passes false
  });
  assert.deepEqual(
    findings.map((f) => [f.reason, f.interfaceIndex]),
    [
      ['UnsupportedProtocolVersion', 0],
      ['InsecureDowngrade', 1],
      ['ForeignHost', 3],
      ['DuplicateInterface', 5],
      ['ConflictingBindings', 6],
    ],
  );
});

void test('digest: stable under key order and whitespace, sensitive to content', () => {
  const a = cardDigest(JSON.parse('{"b":1,"a":{"y":[1,"x"],"x":null}}'));
  const b = cardDigest(JSON.parse('{ "a": { "x": null, "y": [1, "x"] }, "b": 1 }'));
  assert.equal(a, b);
  assert.match(a, /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(a, cardDigest({ b: 1, a: { y: ['x', 1], x: null } }));
  // Known value: sha256 of the canonical form {"a":1,"b":[true,"é"]}.
  assert.equal(
    cardDigest({ b: [true, 'é'], a: 1 }),
    'sha256:' + createHash('sha256').update('{"a":1,"b":[true,"é"]}').digest('hex'),
  );
});
