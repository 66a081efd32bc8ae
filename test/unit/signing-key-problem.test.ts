// A signing key that cannot sign is named (kty/alg) without quoting key material; one that can
// is accepted; the signing tag lets an ES256 card be reused instead of re-signed each period.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  MAX_KID_BYTES,
  signCard,
  signingKeyProblem,
  signingTag,
  unsignedDigest,
} from '../../src/routing/card-signing.js';
import { reusableSignature } from '../../src/controller/reconciler.js';
import { CARD_KEY } from '../../src/routing/objects.js';
import { SIGNED_FROM_ANNOTATION } from '../../src/routing/card-signing.js';

const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ecPrivate = ec.privateKey.export({ format: 'jwk' });
const ecPublic = ec.publicKey.export({ format: 'jwk' });
const otherEc = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
const ed = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

const secretOf = (jwk: Record<string, unknown>) => String(jwk.d ?? '');

describe('signingKeyProblem: each bad key shape is SigningKeyInvalid material', () => {
  const bad: [string, string][] = [
    ['invalid JSON', `{"kty":"EC","d":"${secretOf(ecPrivate)}"`],
    ['a JSON string', '"just a string"'],
    ['JSON without kty', JSON.stringify({ d: secretOf(ecPrivate) })],
    ['a public key', JSON.stringify(ecPublic)],
    ['an unsupported kty', JSON.stringify({ kty: 'oct', k: 'c2VjcmV0', d: 'c2VjcmV0' })],
    ['an alg that does not fit the kty', JSON.stringify({ ...ecPrivate, alg: 'RS256' })],
    ['an unknown curve', JSON.stringify({ ...ecPrivate, crv: 'P-999' })],
    ['a malformed private part', JSON.stringify({ ...ecPrivate, d: 'AAAA' })],
    ['a private part of another key', JSON.stringify({ ...ecPrivate, d: secretOf(otherEc) })],
    ['a kid that is a number', JSON.stringify({ ...ecPrivate, kid: 7 })],
    ['an empty kid', JSON.stringify({ ...ecPrivate, kid: '' })],
    ['an alg that is a number', JSON.stringify({ ...ecPrivate, alg: 7 })],
    ['an alg that is an object', JSON.stringify({ ...ecPrivate, alg: {} })],
    ['a kty named after an Object method', JSON.stringify({ ...ecPrivate, kty: 'toString', alg: 'ES256' })],
    ['a kty that is an array', JSON.stringify({ ...ecPrivate, kty: ['EC'] })],
    ['a kty that String() cannot convert', JSON.stringify({ ...ecPrivate, kty: { toString: 1 } })],
    ['a kid that is an object', JSON.stringify({ ...ecPrivate, kid: { a: 1 } })],
    ['a kid over 1 KiB', JSON.stringify({ ...ecPrivate, kid: 'k'.repeat(MAX_KID_BYTES - 1) })],
    // 200 control characters: 200 bytes as text, 1,202 written as JSON escapes in the header
    ['a kid over 1 KiB as JSON', JSON.stringify({ ...ecPrivate, kid: '\u0001'.repeat(200) })],
  ];
  for (const [what, text] of bad) {
    it(`refuses ${what}, quoting no key material`, async () => {
      const problem = await signingKeyProblem(text);
      assert.ok(problem, what);
      const d = secretOf(ecPrivate);
      assert.ok(!problem.includes(d.slice(0, 12)), problem);
      assert.ok(!problem.includes('c2VjcmV0'), problem);
    });
  }
  for (const [what, jwk] of [
    ['EC P-256', ecPrivate],
    ['OKP Ed25519', ed],
    ['RSA', rsa],
    ['EC P-256 with a kid of exactly 1 KiB as JSON', { ...ecPrivate, kid: 'k'.repeat(MAX_KID_BYTES - 2) }],
  ] as const) {
    it(`accepts an ${what} private key`, async () =>
      assert.equal(await signingKeyProblem(JSON.stringify(jwk)), undefined));
  }
  it('names the kid problem in bytes and the limit', async () => {
    const problem = await signingKeyProblem(JSON.stringify({ ...ecPrivate, kid: 'k'.repeat(2000) }));
    assert.equal(
      problem,
      "the JWK's kid takes 2002 bytes as JSON, over the 1024-byte limit (every signature in the published card carries it)",
    );
  });
});

describe('signing tag and reuse of a randomised signature', () => {
  const card = { name: 'billing', url: 'http://billing/a2a', version: '1.0.0' };
  const key = JSON.stringify(ecPrivate);

  it('ES256 signs differently each time; the tag is the same', async () => {
    const a = await signCard(card, key);
    const b = await signCard(card, key);
    assert.notDeepEqual(a.signatures, b.signatures);
    assert.equal(signingTag(card, key), signingTag(a, key));
    assert.equal(unsignedDigest(a), unsignedDigest(card));
  });

  it('the published card is reused only for the same payload, key and untouched data', async () => {
    const signed = await signCard(card, key);
    const tag = signingTag(card, key);
    const cm = (data: Record<string, unknown>, t = tag) => ({
      metadata: { annotations: { [SIGNED_FROM_ANNOTATION]: t } },
      data: { [CARD_KEY]: `${JSON.stringify(data, null, 2)}\n` },
    });
    assert.equal(JSON.stringify(reusableSignature(cm(signed), tag)), JSON.stringify(signed));
    assert.equal(reusableSignature(cm(signed), signingTag({ ...card, version: '2' }, key)), undefined);
    assert.equal(reusableSignature(cm(signed), signingTag(card, JSON.stringify(ed))), undefined);
    // a key rotated under the same kid, or the same key given another alg, signs again
    const named = { ...ecPrivate, kid: 'payments-2026' };
    const rotatedSameKid = { ...otherEc, kid: 'payments-2026' };
    assert.notEqual(
      signingTag(card, JSON.stringify(named)),
      signingTag(card, JSON.stringify(rotatedSameKid)),
    );
    assert.notEqual(
      signingTag(card, JSON.stringify({ ...rsa, alg: 'RS256' })),
      signingTag(card, JSON.stringify({ ...rsa, alg: 'PS256' })),
    );
    // the tag names no secret material
    assert.ok(!signingTag(card, JSON.stringify(named)).includes(secretOf(ecPrivate).slice(0, 8)));
    assert.equal(reusableSignature(cm({ ...signed, name: 'edited' }), tag), undefined);
    assert.equal(reusableSignature(cm(card), tag), undefined, 'no signature: nothing to reuse');
    assert.equal(reusableSignature(undefined, tag), undefined);
  });
});
