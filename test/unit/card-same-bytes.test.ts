// The SDK agents send no ETag, so every period each pod's card was parsed, validated, digested
// and statically checked again though its bytes had not changed. A fetch now carries the sha256
// of the bytes the held card came from; the same bytes again answer `notModified`, unparsed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CardReason } from '../../src/api/conditions.js';
import { observePods } from '../../src/controller/observe-pods.js';
import type { CardFetch, CardRequest, ProbeBackend } from '../../src/controller/probe-backend.js';
import { MemoryStore } from '../../src/controller/agent-memory.js';
import { LiveProbeBackend } from '../../src/operator/live-probe-backend.js';
import { fetchCard, Prober } from '../../src/probe/index.js';
import { agentSpec, observeInput, podA0 } from './observe-fixtures.js';

const CARD = {
  name: 'a',
  supportedInterfaces: [
    { url: 'http://a.ns.svc:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
};

async function serving(bodies: string[]) {
  let i = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(bodies[Math.min(i++, bodies.length - 1)]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const fetchOnce = (heldBodyDigest?: string) =>
    fetchCard({
      address: '127.0.0.1',
      port,
      scheme: 'http',
      path: '/.well-known/agent-card.json',
      hostHeader: 'a.ns.svc',
      timeoutMs: 2000,
      heldBodyDigest,
    });
  return { fetchOnce, close: () => server.close() };
}

void test('fetchCard: the bytes of the card held again are notModified; any other bytes are parsed', async () => {
  const same = JSON.stringify(CARD);
  // Whitespace only: the canonical card is the same, the bytes are not, so it is parsed again.
  const reformatted = JSON.stringify(CARD, null, 2);
  const server = await serving([same, same, reformatted, '{not json']);
  try {
    const first = await server.fetchOnce();
    assert.equal(first.kind, 'ok');
    const digest = first.kind === 'ok' ? first.bodyDigest : '';
    assert.match(digest, /^[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(await server.fetchOnce(digest), { kind: 'notModified' });
    const third = await server.fetchOnce(digest);
    assert.equal(third.kind, 'ok');
    assert.notEqual(third.kind === 'ok' && third.bodyDigest, digest);
    // Bad bytes are judged as ever, whatever is held.
    const fourth = await server.fetchOnce(digest);
    assert.equal(fourth.kind === 'error' && fourth.error.reason, CardReason.CardInvalid);
  } finally {
    server.close();
  }
});

/** A backend that answers like the live one: ok with a digest, notModified when it is held. */
function backend(bodies: { body: unknown; digest: string }[]) {
  const requests: CardRequest[] = [];
  let i = 0;
  const b: ProbeBackend = {
    fetchCard: (req): Promise<CardFetch> => {
      requests.push(req);
      const next = bodies[Math.min(i++, bodies.length - 1)]!;
      return Promise.resolve(
        req.heldBodyDigest === next.digest
          ? { kind: 'notModified' }
          : { kind: 'ok', body: next.body, bodyDigest: next.digest },
      );
    },
    probe: () => Promise.resolve({ state: 'Verified', reason: 'Verified', message: 'm', durationMs: 1 }),
  };
  return { backend: b, requests };
}

void test('observePods: a pod whose card bytes did not change keeps its card, and a changed card is taken', async () => {
  const spec = agentSpec(8080, { probe: { periodSeconds: 10 } });
  const memory = new MemoryStore().for('ns/a', 1);
  const changed = { ...CARD, description: 'new' };
  const f = backend([
    { body: CARD, digest: 'd1' },
    { body: CARD, digest: 'd1' },
    { body: changed, digest: 'd2' },
  ]);
  let now = 1_000_000;
  const visit = () => observePods(observeInput(spec, f.backend, { memory, now: () => now }));

  const first = await visit();
  assert.equal(f.requests[0]!.heldBodyDigest, undefined);
  const firstCard = first.observations[0]!.card;
  assert.ok(firstCard?.ok);

  now += 11_000;
  const second = await visit();
  assert.equal(f.requests[1]!.heldBodyDigest, 'd1');
  // notModified: the very card held, its digest and findings, not a card parsed again.
  assert.equal(second.observations[0]!.card, firstCard);
  assert.equal(second.observations[0]!.verdicts.size, 1);

  now += 11_000;
  const third = await visit();
  assert.equal(f.requests[2]!.heldBodyDigest, 'd1');
  const thirdCard = third.observations[0]!.card;
  assert.ok(thirdCard?.ok && firstCard.ok);
  assert.notEqual(thirdCard.digest, firstCard.digest);
  assert.equal(thirdCard.card.raw.description, 'new');
});

void test('observePods: after an invalid card nothing is held, so the next bytes are parsed', async () => {
  const spec = agentSpec(8080, { probe: { periodSeconds: 10 } });
  const memory = new MemoryStore().for('ns/a', 1);
  const f = backend([
    { body: CARD, digest: 'd1' },
    { body: { name: 7 }, digest: 'd2' },
    { body: CARD, digest: 'd1' },
  ]);
  let now = 1_000_000;
  const visit = () => observePods(observeInput(spec, f.backend, { memory, now: () => now }));
  await visit();
  now += 11_000;
  const bad = await visit();
  assert.equal(bad.observations[0]!.card?.ok, false);
  now += 11_000;
  const again = await visit();
  assert.equal(f.requests[2]!.heldBodyDigest, undefined);
  assert.ok(again.observations[0]!.card?.ok);
});

void test('observePods over the live backend: the same bytes under a new ETag keep the new tag, so the next fetch is a 304', async () => {
  let tag = '"v1"';
  const seen: (string | undefined)[] = [];
  const answers: number[] = [];
  const body = JSON.stringify(CARD);
  const server = createServer((req, res) => {
    if (req.url !== '/.well-known/agent-card.json') return res.writeHead(404).end();
    const inm = req.headers['if-none-match'];
    seen.push(inm);
    const status = inm === tag ? 304 : 200;
    answers.push(status);
    res.writeHead(status, { etag: tag, 'content-type': 'application/json' }).end(status === 200 ? body : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const prober = new Prober();
  try {
    const spec = agentSpec(port, { probe: { periodSeconds: 10 } });
    const memory = new MemoryStore().for('ns/a', 1);
    let now = Date.now(); // the Prober's budget check reads the real clock
    const visit = () =>
      observePods(
        observeInput(spec, new LiveProbeBackend(prober), {
          memory,
          now: () => now,
          pods: [podA0('127.0.0.1')],
        }),
      );
    const first = (await visit()).observations[0]!.card;
    assert.ok(first?.ok);
    tag = '"v2"'; // the server restarted: same bytes, new tag
    now += 11_000;
    assert.equal((await visit()).observations[0]!.card, first);
    now += 11_000;
    assert.equal((await visit()).observations[0]!.card, first);
    assert.deepEqual(seen, [undefined, '"v1"', '"v2"']);
    assert.deepEqual(answers, [200, 200, 304]);
  } finally {
    await prober.close();
    server.close();
  }
});

void test('observePods: a new generation holds nothing, so the same bytes are judged against the new spec', async () => {
  const store = new MemoryStore();
  const f = backend([{ body: CARD, digest: 'd1' }]);
  const before = agentSpec(8080, { probe: { periodSeconds: 10 } });
  const first = await observePods(observeInput(before, f.backend, { memory: store.for('ns/a', 1) }));
  const firstCard = first.observations[0]!.card;
  assert.ok(firstCard?.ok);
  assert.ok(!firstCard.findings.some((x) => x.reason === CardReason.ForeignHost));
  // Generation 2 routes through another Service and lists the hosts allowed: the card's host is
  // now foreign, though its bytes are the same.
  const after = agentSpec(8080, {
    probe: { periodSeconds: 10 },
    routing: { serviceName: 'other' },
    hosts: ['billing.example.com'],
  });
  const second = await observePods(
    observeInput(after, f.backend, { memory: store.for('ns/a', 2), serviceName: 'other' }),
  );
  assert.equal(f.requests[1]!.heldBodyDigest, undefined);
  const secondCard = second.observations[0]!.card;
  assert.ok(secondCard?.ok);
  assert.ok(secondCard.findings.some((x) => x.reason === CardReason.ForeignHost));
});
