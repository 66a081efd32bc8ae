import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { cancellableDeadline, SharedDeadlines } from '../../src/probe/deadline.js';

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

void test('SharedDeadlines: one signal per instant and parent, cancelled when its last user releases it', async () => {
  const shared = new SharedDeadlines();
  const parent = new AbortController();
  const at = Date.now() + 40;
  const a = shared.acquire(at, parent.signal);
  const b = shared.acquire(at, parent.signal);
  assert.equal(a.signal, b.signal, 'same instant, same parent: one deadline');
  assert.notEqual(shared.acquire(at + 1, parent.signal).signal, a.signal, 'another instant: another');
  assert.notEqual(shared.acquire(at).signal, a.signal, 'another parent (none): another');
  a.release();
  a.release(); // a second release of the same lease changes nothing
  await sleep(80);
  assert.equal(b.signal.aborted, true, 'b still held it: it fired');
  assert.equal((b.signal.reason as DOMException).name, 'TimeoutError');
  b.release();
  const later = shared.acquire(Date.now() + 40, parent.signal);
  later.release();
  await sleep(80);
  assert.equal(later.signal.aborted, false, 'released by its only user before its time: cancelled');
});

void test('SharedDeadlines: the parent aborts every user with its reason; a new lease after that starts aborted', () => {
  const shared = new SharedDeadlines();
  const parent = new AbortController();
  const at = Date.now() + 10_000;
  const a = shared.acquire(at, parent.signal);
  const reason = new Error('reconcile cut');
  parent.abort(reason);
  assert.equal(a.signal.reason, reason);
  const b = shared.acquire(at, parent.signal);
  assert.equal(b.signal.aborted, true);
  a.release();
  b.release();
  const c = shared.acquire(at, parent.signal);
  assert.equal(c.signal.reason, reason, 'a fresh deadline under an aborted parent is aborted at once');
  c.release();
});

void test('SharedDeadlines: an instant already past aborts at once', async () => {
  const d = new SharedDeadlines().acquire(Date.now() - 5);
  await sleep(20);
  assert.equal(d.signal.aborted, true);
  d.release();
});
