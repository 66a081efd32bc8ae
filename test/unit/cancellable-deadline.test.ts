import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { cancellableDeadline } from '../../src/probe/deadline.js';

void test('cancellableDeadline aborts after its time with a TimeoutError, as AbortSignal.timeout does', async () => {
  const d = cancellableDeadline(20);
  assert.equal(d.signal.aborted, false);
  await sleep(60);
  assert.equal(d.signal.aborted, true);
  assert.equal((d.signal.reason as DOMException).name, 'TimeoutError');
});

void test('cancellableDeadline aborts with its parent, with the parent reason', () => {
  const parent = new AbortController();
  const d = cancellableDeadline(10_000, parent.signal);
  const reason = new Error('stop');
  parent.abort(reason);
  assert.equal(d.signal.aborted, true);
  assert.equal(d.signal.reason, reason);
  d.cancel();
  const already = cancellableDeadline(10_000, parent.signal);
  assert.equal(already.signal.reason, reason);
});

void test('cancellableDeadline cancelled: neither its time nor its parent aborts it', async () => {
  const parent = new AbortController();
  const d = cancellableDeadline(20, parent.signal);
  d.cancel();
  await sleep(60);
  parent.abort();
  assert.equal(d.signal.aborted, false);
});
