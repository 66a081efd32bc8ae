// The signing key's verdict is made once per key text and agent memory, not on every visit: the
// check signs and verifies (about a second with RSA-16384). A rotated key, a new generation
// and a fresh memory (restart, new leader) are checked again; memory keeps a digest, not the key.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { MemoryStore } from '../../src/controller/agent-memory.js';
import { signingKeyVerdict } from '../../src/controller/signing-key-check.js';

const jwkText = (): string =>
  JSON.stringify(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }));

function counting(): { check: (key: string) => Promise<string | undefined>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    check: (key) => {
      calls.push(key);
      return Promise.resolve(key.includes('"kid":7') ? 'the kid is a number' : undefined);
    },
  };
}

void test('one check per key: later visits read the verdict from memory', async () => {
  const store = new MemoryStore();
  const key = jwkText();
  const c = counting();
  for (let i = 0; i < 3; i++)
    assert.equal(await signingKeyVerdict(store.for('ns/a', 1, 'u1'), key, c.check), undefined);
  assert.equal(c.calls.length, 1);
});

void test('a problem is remembered as a problem; a rotated key is checked again', async () => {
  const store = new MemoryStore();
  const bad = JSON.stringify({ ...(JSON.parse(jwkText()) as object), kid: 7 });
  const c = counting();
  assert.equal(await signingKeyVerdict(store.for('ns/a', 1, 'u1'), bad, c.check), 'the kid is a number');
  assert.equal(await signingKeyVerdict(store.for('ns/a', 1, 'u1'), bad, c.check), 'the kid is a number');
  assert.equal(c.calls.length, 1);
  const rotated = jwkText();
  assert.equal(await signingKeyVerdict(store.for('ns/a', 1, 'u1'), rotated, c.check), undefined);
  assert.equal(c.calls.length, 2);
  // back to the old key: memory holds one verdict, the newest
  assert.equal(await signingKeyVerdict(store.for('ns/a', 1, 'u1'), bad, c.check), 'the kid is a number');
  assert.equal(c.calls.length, 3);
});

void test('a new generation, a recreated agent, another agent and a fresh memory check again', async () => {
  const key = jwkText();
  const c = counting();
  const store = new MemoryStore();
  await signingKeyVerdict(store.for('ns/a', 1, 'u1'), key, c.check);
  await signingKeyVerdict(store.for('ns/a', 2, 'u1'), key, c.check);
  await signingKeyVerdict(store.for('ns/a', 2, 'u2'), key, c.check);
  await signingKeyVerdict(store.for('ns/b', 1, 'u3'), key, c.check);
  await signingKeyVerdict(new MemoryStore().for('ns/a', 2, 'u2'), key, c.check);
  assert.equal(c.calls.length, 5);
});

void test('memory keeps a digest of the key, none of its text; the default check is the real one', async () => {
  const store = new MemoryStore();
  const key = jwkText();
  const d = String((JSON.parse(key) as { d: string }).d);
  assert.equal(await signingKeyVerdict(store.for('ns/a', 1, 'u1'), key), undefined);
  const held = JSON.stringify(store.peek('ns/a'), (_k, v: unknown) => (v instanceof Map ? [...v] : v));
  assert.ok(!held.includes(d.slice(0, 12)), held);
  assert.ok(!held.includes('"kty"'), held);
  const publicOnly = JSON.stringify({ ...(JSON.parse(key) as object), d: undefined });
  assert.match(String(await signingKeyVerdict(store.for('ns/a', 1, 'u1'), publicOnly)), /public JWK/);
});
