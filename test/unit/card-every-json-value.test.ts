// Regression: a card holding `1e400` (valid JSON, parsed to Infinity) made the digest throw, so the
// CLI exited 70 and the operator's reconcile of that agent failed forever. Every document
// JSON.parse accepts now gets a verdict: a card, or CardInvalid with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  cardDigest,
  CardParseError,
  MAX_CARD_DEPTH,
  parseCard,
  staticChecks,
  type ParsedCard,
} from '../../src/card/index.js';
import { mapInterfaces } from '../../src/observation/interface-map.js';
import { observePods } from '../../src/controller/observe-pods.js';
import type { ProbeBackend } from '../../src/controller/probe-backend.js';
import { fetchCard } from '../../src/probe/fetch-card.js';
import { agentSpec, observeInput } from './observe-fixtures.js';

const IFACE = '{"url":"http://a.ns.svc:8080/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}';
const withExtra = (extra: string): string => `{"name":"n","supportedInterfaces":[${IFACE}],${extra}}`;

const spec = agentSpec();

/** Everything the operator and the CLI do with a parsed document, none of which may throw. */
function verdictOf(text: string): { invalid?: string; card?: ParsedCard; digest?: string } {
  const card = parseCard(JSON.parse(text));
  if (card instanceof CardParseError) return { invalid: card.message };
  staticChecks(card, { cardScheme: 'https' });
  mapInterfaces(card, { spec, namespace: 'ns', serviceName: 'a' });
  return { card, digest: cardDigest(card.raw) };
}

void test('numbers outside the double range are CardInvalid, naming where they are', () => {
  for (const [extra, where] of [
    ['"n":1e400', /\(card\)\.n\b/],
    ['"skills":[{"x":[0,-1e999]}]', /\(card\)\.skills\[0\]\.x\[1\]/],
    ['"a":{"b\\"c":1E400}', /\(card\)\.a\.b\\"c/],
  ] as const) {
    const v = verdictOf(withExtra(extra));
    assert.ok(v.invalid, extra);
    assert.match(v.invalid, /outside the IEEE 754 double range/);
    assert.match(v.invalid, where);
  }
  // Inside an interface too: the schema would have accepted the rest.
  const v = verdictOf(
    '{"supportedInterfaces":[{"url":"http://a:1/","protocolBinding":"JSONRPC","protocolVersion":"1.0","tenant":1e400}]}',
  );
  assert.match(v.invalid ?? '', /supportedInterfaces\[0\]\.tenant/);
});

void test('-0, huge integers, tiny exponents, __proto__ keys, duplicate keys and lone surrogates get a valid verdict', () => {
  const zero = verdictOf(withExtra('"z":0'));
  assert.equal(verdictOf(withExtra('"z":-0')).digest, zero.digest, '-0 is written 0 (RFC 8785)');
  assert.equal(verdictOf(withExtra('"z":1e-400')).digest, zero.digest, 'underflow is 0');
  assert.ok(verdictOf(withExtra(`"h":${'9'.repeat(300)}`)).digest, 'a 300-digit integer is a double');
  assert.ok(verdictOf(withExtra('"h":123456789012345678901234567890')).digest);

  const proto = verdictOf(
    '{"__proto__":{"url":"http://evil:1","preferredTransport":"GRPC"},"supportedInterfaces":[' +
      '{"url":"http://a:1/x","protocolBinding":"JSONRPC","protocolVersion":"1.0","__proto__":{"tenant":"t"}}]}',
  );
  assert.equal(proto.card?.shape, 'v1.0', 'a __proto__ key is data, not a prototype');
  assert.equal(proto.card?.interfaces[0]?.tenant, undefined);
  assert.equal(proto.card?.legacy, undefined);
  assert.notEqual(proto.digest, verdictOf('{"supportedInterfaces":[' + IFACE + ']}').digest);
  assert.equal(({} as Record<string, unknown>).url, undefined, 'Object.prototype untouched');

  // Duplicate keys: the last one wins, as in every JSON.parse client (the SDK's too).
  const dup = verdictOf(
    '{"supportedInterfaces":[{"url":"http://first:1","protocolBinding":"GRPC","protocolVersion":"1.0"}],' +
      `"supportedInterfaces":[${IFACE}]}`,
  );
  assert.equal(dup.card?.interfaces.length, 1);
  assert.equal(dup.card?.interfaces[0]?.url, 'http://a.ns.svc:8080/rpc');

  const lone = verdictOf(
    '{"name":"\\ud800","supportedInterfaces":[{"url":"http://a:1/\\udc00x","protocolBinding":"JSONRPC","protocolVersion":"1.0","tenant":"\\udbff"}]}',
  );
  assert.match(lone.digest ?? '', /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(
    lone.digest,
    verdictOf(
      '{"name":"\\ud801","supportedInterfaces":[{"url":"http://a:1/\\udc00x","protocolBinding":"JSONRPC","protocolVersion":"1.0","tenant":"\\udbff"}]}',
    ).digest,
  );
});

void test('nesting: exactly the limit is a card, one deeper is CardInvalid, 100,000 deep costs no stack', () => {
  // The card object is level 1, so a member can hold MAX_CARD_DEPTH - 1 levels of arrays.
  const nest = (n: number): string => `"x":${'['.repeat(n)}${']'.repeat(n)}`;
  assert.ok(verdictOf(withExtra(nest(MAX_CARD_DEPTH - 1))).digest);
  assert.match(verdictOf(withExtra(nest(MAX_CARD_DEPTH))).invalid ?? '', /deeper than 64 levels/);
  assert.match(verdictOf(withExtra(nest(100_000))).invalid ?? '', /deeper than 64 levels/);
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

void test('fetchCard: a served card with 1e400 is CardInvalid', async () => {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(withExtra('"n":1e400')),
  );
  const port = await listen(server);
  try {
    const res = await fetchCard({
      address: '127.0.0.1',
      port,
      scheme: 'http',
      path: '/',
      hostHeader: 'a',
      timeoutMs: 5000,
    });
    assert.equal(res.kind, 'error');
    assert.equal(res.kind === 'error' && res.error.reason, 'CardInvalid');
    assert.match(res.kind === 'error' ? res.error.message : '', /double range at \(card\)\.n/);
  } finally {
    server.close();
  }
});

void test('operator: a card body with Infinity (a backend that skipped the fetch checks) is CardInvalid, no throw', async () => {
  const backend: ProbeBackend = {
    fetchCard: () => Promise.resolve({ kind: 'ok', body: JSON.parse(withExtra('"n":1e400')) }),
    probe: () => Promise.reject(new Error('nothing is probed')),
  };
  const res = await observePods(observeInput(spec, backend));
  const card = res.observations[0]?.card;
  assert.equal(card?.ok, false);
  assert.equal(card && !card.ok && card.reason, 'CardInvalid');
  assert.match(card && !card.ok ? card.message : '', /double range/);
});
