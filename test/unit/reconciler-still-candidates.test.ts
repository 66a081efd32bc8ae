// A reconcile's probes take time; the pods it decides about are checked against the cache again
// just before deciding, so a pod that left while it probed is never routed by that decision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stillCandidates } from '../../src/controller/reconciler.js';
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
