// A card is bounded as read and as written back: the operator publishes the card it parsed,
// re-serialised (ConfigMap, card server), and a body under the limit can be over it once
// written (`1e20` takes 21 bytes, a byte that is not UTF-8 takes 3 as U+FFFD). Such a card gets
// CardTooLarge when it is read, as a body over the limit does, instead of a ConfigMap the API
// server refuses on every visit. The written limit leaves room for what publishing adds (the
// ConfigMap key, a signature): a card at that limit, signed with the largest signature a
// signing key may make, fits a ConfigMap.
// Pure cases on parseCardBody, the ConfigMap built from one, then fetchCard over a real socket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { CardReason } from '../../src/api/conditions.js';
import { WRITTEN_CARD_HEADROOM } from '../../src/card/card-json.js';
import { fetchCard, MAX_CARD_BYTES } from '../../src/probe/fetch-card.js';
import { parseCardBody } from '../../src/probe/parse-card-body.js';
import { MAX_KID_BYTES, signCard, signingKeyProblem } from '../../src/routing/card-signing.js';
import { buildCardConfigMap, MAX_CONFIGMAP_DATA_BYTES } from '../../src/routing/objects.js';

/** The card limit given to parseCardBody; LIMIT is what a card may take written back. */
const MAX = WRITTEN_CARD_HEADROOM + 1000;
const LIMIT = 1000;
const head = '{"name":"a","supportedInterfaces":[{"url":"http://a:1/","protocolBinding":"JSONRPC"}],"n":';

/** A card whose `n` holds `count` copies of `spelling`, e.g. `1e20`. */
function numbers(spelling: string, count: number): Buffer {
  return Buffer.from(`${head}[${Array(count).fill(spelling).join(',')}]}`);
}

void test('numbers written in full: under the limit as read, over it written back -> CardTooLarge', () => {
  const raw = numbers('1e20', 60);
  assert.ok(raw.length <= LIMIT, `served ${raw.length}`);
  const written = Buffer.byteLength(JSON.stringify(JSON.parse(raw.toString())));
  assert.ok(written > LIMIT, `written ${written}`);
  const r = parseCardBody(raw, MAX);
  assert.ok('problem' in r);
  assert.equal(r.reason, CardReason.CardTooLarge);
  assert.equal(
    r.problem,
    `the card takes ${written} bytes written back as JSON (${raw.length} as read: numbers are written in full, bytes that are not UTF-8 as U+FFFD), over the ${LIMIT}-byte limit of a published card (the ${MAX}-byte card limit less room for the ConfigMap key and a signature)`,
  );
  // Sizes only: nothing of the card's content.
  assert.doesNotMatch(r.problem, /100000000000000000000|1e20/);
});

void test('bytes that are not UTF-8 grow to U+FFFD -> CardTooLarge', () => {
  const raw = Buffer.concat([Buffer.from(`${head}"`), Buffer.alloc(400, 0xff), Buffer.from('"}')]);
  assert.ok(raw.length <= LIMIT);
  const r = parseCardBody(raw, MAX);
  assert.ok('problem' in r);
  assert.equal(r.reason, CardReason.CardTooLarge);
  assert.match(r.problem, /^the card takes 1\d{3} bytes written back as JSON/);
});

void test('exactly at the limit written back passes; one byte more does not', () => {
  const base = `${head}"`.length + '"}'.length;
  const at = Buffer.from(`${head}"${'x'.repeat(LIMIT - base)}"}`);
  assert.equal(at.length, LIMIT);
  assert.ok('body' in parseCardBody(at, MAX));
  const over = Buffer.from(`${head}"${'x'.repeat(LIMIT - base + 1)}"}`);
  const r = parseCardBody(over, MAX);
  assert.ok('problem' in r && r.reason === CardReason.CardTooLarge);
});

void test('what shrinks when written back passes: whitespace, escapes, short numbers', () => {
  // Over the written limit as read, only because of its spelling: the caller's read cap bounds
  // the bytes read, this bounds what is published.
  const raw = Buffer.from(`${head.replace(/,/g, ' ,   ')}[${Array(100).fill('1.0e0').join(' , ')}]}`);
  const written = Buffer.byteLength(JSON.stringify(JSON.parse(raw.toString())));
  assert.ok(written < raw.length, `${written} < ${raw.length}`);
  assert.ok('body' in parseCardBody(raw, WRITTEN_CARD_HEADROOM + written));
  assert.ok('body' in parseCardBody(Buffer.from(`${head}"\\u0041\\u00e9"}`), MAX));
});

void test('headroom 0 (a reader that publishes nothing): the card limit itself, and the message says so', () => {
  const raw = numbers('1e20', 60);
  const written = Buffer.byteLength(JSON.stringify(JSON.parse(raw.toString())));
  assert.ok('body' in parseCardBody(raw, written, 0));
  const r = parseCardBody(raw, written - 1, 0);
  assert.ok('problem' in r && r.reason === CardReason.CardTooLarge);
  assert.match(r.problem, new RegExp(`, over the ${written - 1}-byte card limit$`));
});

void test('the JSON verdicts come first and stay CardInvalid', () => {
  for (const text of [`${head}`, `${head}1e400}`, `${'['.repeat(100)}${']'.repeat(100)}`]) {
    const r = parseCardBody(Buffer.from(text), MAX);
    assert.ok('problem' in r, text.slice(0, 40));
    assert.equal(r.reason, CardReason.CardInvalid, text.slice(0, 40));
  }
});

/** A card exactly at the written limit, parsed as the operator parses it. */
function cardAtLimit(): Record<string, unknown> {
  const limit = MAX_CARD_BYTES - WRITTEN_CARD_HEADROOM;
  const base = `${head}"`.length + '"}'.length;
  const raw = Buffer.from(`${head}"${'x'.repeat(limit - base)}"}`);
  const parsed = parseCardBody(raw, MAX_CARD_BYTES);
  assert.ok('body' in parsed);
  const one = Buffer.from(`${head}"${'x'.repeat(limit - base + 1)}"}`);
  assert.ok('problem' in parseCardBody(one, MAX_CARD_BYTES), 'one byte more is over');
  return parsed.body as Record<string, unknown>;
}

/** The bytes of data (keys and values) of the ConfigMap the operator writes for a card. */
function configMapDataBytes(card: Record<string, unknown>): number {
  const cm = buildCardConfigMap(
    { name: 'a', namespace: 'n', uid: 'u' },
    { card, changed: true, signatures: 'Unchanged' },
    '',
  );
  const data = Object.entries(cm.data ?? {});
  assert.equal(data.length, 1);
  return data.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
}

/** The longest kid signingKeyProblem accepts: MAX_KID_BYTES as JSON, quotes included. */
const longestKid = 'k'.repeat(MAX_KID_BYTES - 2);

void test('a card at the written limit, signed with RSA-4096 and the longest kid, fits the ConfigMap', async () => {
  const card = cardAtLimit();
  const rsa = generateKeyPairSync('rsa', { modulusLength: 4096 }).privateKey.export({ format: 'jwk' });
  const key = JSON.stringify({ ...rsa, alg: 'PS512', kid: longestKid });
  assert.equal(await signingKeyProblem(key), undefined);
  const signed = await signCard(card, key);
  // The shape the RSA-16384 case below builds by hand: one signature, jose's header, nothing else.
  const sigs = signed.signatures as Record<string, unknown>[];
  assert.equal(sigs.length, 1);
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(sigs[0])) as object), ['protected', 'signature']);
  assert.equal(
    Buffer.from(String(sigs[0]!.protected), 'base64url').toString(),
    JSON.stringify({ alg: 'PS512', kid: longestKid, typ: 'JOSE' }),
  );
  const bytes = configMapDataBytes(signed);
  assert.ok(
    bytes > MAX_CARD_BYTES - WRITTEN_CARD_HEADROOM + 2000,
    `signing and the key add to the card (${bytes})`,
  );
  assert.ok(bytes <= MAX_CONFIGMAP_DATA_BYTES, `${bytes} bytes of ConfigMap data`);
});

void test('the largest signature a key may make (RSA-16384, the longest kid) fits the publishing room', () => {
  // An RSA-16384 key takes minutes to generate: the signature is built in its shape instead
  // (a 2,048-byte signature, the header jose writes), as the SDK adds it to the card.
  const b64 = (b: Buffer): string => b.toString('base64url');
  const header = JSON.stringify({ alg: 'PS512', kid: longestKid, typ: 'JOSE' });
  const card = cardAtLimit();
  const signed = {
    ...card,
    signatures: [{ protected: b64(Buffer.from(header)), signature: b64(Buffer.alloc(2048, 0xff)) }],
  };
  const added = Buffer.byteLength(JSON.stringify(signed)) - Buffer.byteLength(JSON.stringify(card));
  assert.equal(added, 4190, 'the figure in card-json.ts and card-signing.ts (2,849 + 1,341)');
  assert.ok(configMapDataBytes(signed) <= MAX_CONFIGMAP_DATA_BYTES);
});

void test('fetchCard: a served card that grows past 1 MiB written back is CardTooLarge, not a card', async () => {
  // 1e20 repeated to just under 1 MiB as served: about 4.4 MiB written back.
  const count = Math.floor((MAX_CARD_BYTES - head.length - 2) / 5);
  const body = numbers('1e20', count);
  assert.ok(body.length <= MAX_CARD_BYTES);
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetchCard({
      address: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      scheme: 'http',
      path: '/.well-known/agent-card.json',
      hostHeader: 'agent.internal',
      timeoutMs: 10_000,
    });
    assert.equal(res.kind, 'error');
    if (res.kind !== 'error') return;
    assert.equal(res.error.reason, CardReason.CardTooLarge);
    assert.equal(res.error.evidence.httpStatus, 200);
    assert.match(
      res.error.message,
      new RegExp(
        `written back as JSON \\(${body.length} as read.*the ${MAX_CARD_BYTES}-byte card limit less room`,
      ),
    );
  } finally {
    server.close();
  }
});
