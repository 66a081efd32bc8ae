// A signing key's verdict is made once per key text and process, not on every visit of every
// agent: the check signs and verifies (about half a second with RSA-16384). Checks of one key
// started together are one check; a rotated key is checked again; a check that threw is tried
// again; what is kept is the key's digest, none of its text.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { inspect } from 'node:util';
import { test } from 'node:test';
import { SigningKeyVerdicts } from '../../src/controller/signing-key-check.js';

const jwkText = (): string =>
  JSON.stringify(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }));

function counting(): { check: (key: string) => Promise<string | undefined>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    check: async (key) => {
      calls.push(key);
      await new Promise((r) => setTimeout(r, 5));
      return key.includes('"kid":7') ? 'the kid is a number' : undefined;
    },
  };
}

void test('one check per key: agents sharing it, later visits and concurrent first visits all share it', async () => {
  const key = jwkText();
  const c = counting();
  const verdicts = new SigningKeyVerdicts(c.check);
  const first = await Promise.all(Array.from({ length: 20 }, () => verdicts.verdict(key)));
  for (let i = 0; i < 3; i++) assert.equal((await verdicts.verdict(key)).problem, undefined);
  assert.equal(c.calls.length, 1);
  assert.equal(new Set(first.map((v) => v.digest)).size, 1);
});

void test('a problem is kept as a problem; a rotated key is checked again; past the bound the key read least recently goes', async () => {
  const c = counting();
  const verdicts = new SigningKeyVerdicts(c.check, 2);
  const bad = JSON.stringify({ ...(JSON.parse(jwkText()) as object), kid: 7 });
  assert.equal((await verdicts.verdict(bad)).problem, 'the kid is a number');
  assert.equal((await verdicts.verdict(bad)).problem, 'the kid is a number');
  assert.equal(c.calls.length, 1);
  const rotated = jwkText();
  const r = await verdicts.verdict(rotated);
  assert.equal(r.problem, undefined);
  assert.notEqual(r.digest, (await verdicts.verdict(bad)).digest);
  assert.equal(c.calls.length, 2);
  // `bad` was read after `rotated`: a third key makes the bound (2) forget `rotated`, the key read least recently
  await verdicts.verdict(jwkText());
  assert.equal(verdicts.size, 2);
  assert.equal((await verdicts.verdict(bad)).problem, 'the kid is a number');
  assert.equal(c.calls.length, 3);
  assert.equal((await verdicts.verdict(rotated)).problem, undefined);
  assert.equal(c.calls.length, 4);
});

void test('a check that threw is not kept: the next visit checks again', async () => {
  let calls = 0;
  const verdicts = new SigningKeyVerdicts(async () => {
    calls++;
    if (calls === 1) throw new Error('boom');
    return undefined;
  });
  const key = jwkText();
  await assert.rejects(verdicts.verdict(key), /boom/);
  assert.equal((await verdicts.verdict(key)).problem, undefined);
  assert.equal(calls, 2);
});

void test('what is kept holds no key text; the default check is the real one', async () => {
  const verdicts = new SigningKeyVerdicts();
  const key = jwkText();
  const d = String((JSON.parse(key) as { d: string }).d);
  assert.equal((await verdicts.verdict(key)).problem, undefined);
  const held = inspect(verdicts, { depth: 10, showHidden: true });
  assert.ok(!held.includes(d.slice(0, 12)), held);
  assert.ok(!held.includes('"kty"'), held);
  const publicOnly = JSON.stringify({ ...(JSON.parse(key) as object), d: undefined });
  assert.match(String((await verdicts.verdict(publicOnly)).problem), /public JWK/);
});
