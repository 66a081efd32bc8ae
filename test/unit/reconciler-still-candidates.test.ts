// A reconcile's probes take time; the pods it decides about are checked against the cache again
// just before deciding, so a pod that left while it probed is never routed by that decision;
// and again just before the slices are built, so the apply does not put back what the fast
// withdrawal path removed after the decision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stillCandidates, stillRoutable } from '../../src/controller/reconciler.js';
import { allVerified, okCard, pod, v1Raw } from './reconcile-fixtures.js';

const card = okCard(v1Raw());

void test('gone or NotReady since the probes: non-candidates; re-addressed: candidates with nothing known; unchanged: kept', () => {
  const observed = ['a', 'b', 'c', 'd'].map((n) => pod(n, card, allVerified));
  const now = [
    observed[0]!.pod, // unchanged
    { ...observed[1]!.pod, candidate: false }, // NotReady
    { ...observed[2]!.pod, ip: '10.0.0.77' }, // re-addressed
    // d: gone
  ];
  const out = stillCandidates(observed, now);
  assert.equal(out[0], observed[0]);
  assert.equal(out[1]!.pod.candidate, false);
  assert.equal(out[1]!.verdicts.size, 0);
  assert.equal(out[2]!.pod.candidate, true);
  assert.equal(out[2]!.pod.ip, '10.0.0.77');
  assert.equal(out[2]!.card, undefined);
  assert.equal(out[2]!.verdicts.size, 0);
  assert.equal(out[3]!.pod.candidate, false);
});

void test('routable at apply time: gone, NotReady and re-addressed pods are left out; Ready turned False stays, not ready', () => {
  const decided = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => pod(n, card, allVerified));
  decided[5] = { ...decided[5]!, pod: { ...decided[5]!.pod, ready: false } };
  const now = [
    decided[0]!.pod, // unchanged
    { ...decided[1]!.pod, candidate: false }, // NotReady since
    { ...decided[2]!.pod, ip: '10.0.0.77' }, // re-addressed
    // d: gone
    { ...decided[4]!.pod, ready: false }, // a readiness gate turned False: the fast path marked it not ready
    decided[5]!.pod, // not Ready when decided, still not
  ];
  const out = stillRoutable(decided, now);
  assert.deepEqual(
    out.map((o) => [o.pod.name, o.pod.ready]),
    [
      [decided[0]!.pod.name, decided[0]!.pod.ready],
      [decided[4]!.pod.name, false],
      [decided[5]!.pod.name, false],
    ],
  );
  assert.equal(out[0], decided[0], 'the decided observation itself: nothing re-derived or added');
  assert.equal(out[1]!.verdicts, decided[4]!.verdicts);
  assert.equal(out[2], decided[5]);
  const readyAgain = stillRoutable([decided[5]!], [{ ...decided[5]!.pod, ready: true }]);
  assert.equal(readyAgain[0]!.pod.ready, false, 'never made ready here: that waits for a decision');
  assert.deepEqual(stillRoutable(decided, []), [], 'every pod gone');
});
