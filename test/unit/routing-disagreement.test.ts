// The outside watchers' card/slices agreement rule: a disagreement is a violation once it has
// lasted the writes' bound, however often the watcher observes (at 100+ observations a second,
// "two in a row" caught the ~40 ms between the card write and the slice write).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Disagreement } from '../harness/routing-observer.js';

describe('Disagreement', () => {
  it('many observations within the bound are no violation', () => {
    const d = new Disagreement(3000);
    for (let t = 0; t < 3000; t += 7) assert.equal(d.persists(t, true), false);
  });

  it('a disagreement lasting the bound is reported once, then again after it cleared', () => {
    const d = new Disagreement(3000);
    assert.equal(d.persists(1000, true), false);
    assert.equal(d.persists(4000, true), true);
    assert.equal(d.age(4000), 3000);
    assert.equal(d.persists(4100, true), false);
    assert.equal(d.persists(4200, false), false);
    assert.equal(d.persists(5000, true), false);
    assert.equal(d.persists(8000, true), true);
  });
});
