// ConcurrencyLimit and KeyedConcurrencyLimit: synchronous slots while free, FIFO waiters, a
// released slot handed straight to the first waiter (never one over the limit), idle keys dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConcurrencyLimit, KeyedConcurrencyLimit } from '../../src/probe/concurrency-limit.js';

test('a free slot is taken synchronously; past the limit, a promise', () => {
  const limit = new ConcurrencyLimit(2);
  assert.equal(limit.acquire(), undefined);
  assert.equal(limit.acquire(), undefined);
  assert.ok(limit.acquire() instanceof Promise);
  assert.equal(limit.running, 2);
});

test('waiters get slots in FIFO order, and a released slot is never taken by a later caller', async () => {
  const limit = new ConcurrencyLimit(1);
  assert.equal(limit.acquire(), undefined);
  const order: string[] = [];
  const a = limit.acquire()!.then(() => order.push('a'));
  const b = limit.acquire()!.then(() => order.push('b'));
  limit.release(); // to a
  // A caller arriving before a has resumed finds no free slot: the slot is a's already.
  assert.ok(limit.acquire() instanceof Promise, 'the late caller waits');
  assert.equal(limit.running, 1);
  await a;
  limit.release(); // to b
  await b;
  assert.deepEqual(order, ['a', 'b']);
  limit.release(); // to the late caller
  limit.release();
  assert.equal(limit.running, 0);
});

test('a rejected limit size', () => {
  assert.throws(() => new ConcurrencyLimit(0), RangeError);
  assert.throws(() => new KeyedConcurrencyLimit(Number.NaN), RangeError);
});

test('keyed: each key has its own slots; a key with no holder or waiter is dropped', async () => {
  const limit = new KeyedConcurrencyLimit(1);
  assert.equal(limit.acquire('a'), undefined);
  assert.equal(limit.acquire('b'), undefined, 'another key is not behind a');
  const waitA = limit.acquire('a');
  assert.ok(waitA instanceof Promise);
  assert.equal(limit.size, 2);
  limit.release('b');
  assert.equal(limit.size, 1, 'b is idle');
  limit.release('a'); // to the waiter
  await waitA;
  assert.equal(limit.size, 1, 'a still has a holder');
  limit.release('a');
  assert.equal(limit.size, 0);
  assert.throws(() => limit.release('a'), /holds no slot/);
});
