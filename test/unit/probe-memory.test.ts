import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InterfaceState } from '../../src/api/conditions.js';
import {
  CAPABILITY_PERIODS,
  capabilitiesDue,
  capabilitiesDueAt,
  isDue,
  jitteredPeriod,
  recordProbe,
  routineDueAt,
  staticVerdict,
  type ProbeOutcome,
  type ProbeRecord,
  type ProbeTiming,
} from '../../src/controller/probe-memory.js';
import { prng } from './reconcile-fixtures.js';

const ok: ProbeOutcome = {
  state: InterfaceState.Verified,
  reason: 'TaskNotFound',
  message: 'JSON-RPC -32001',
};
const bad = (state: InterfaceState = InterfaceState.WrongBinding, message = 'HTTP 415'): ProbeOutcome => ({
  state,
  reason: state,
  message,
});

const PERIOD = 30_000;
const timing = (t: Partial<ProbeTiming> = {}): ProbeTiming => ({
  periodMs: PERIOD,
  failureThreshold: 3,
  random: () => 0.5,
  ...t,
});

/** Feeds outcomes one per `step` ms; returns every record. */
function run(outcomes: ProbeOutcome[], t: ProbeTiming, start?: ProbeRecord): ProbeRecord[] {
  const out: ProbeRecord[] = [];
  let prev = start;
  let now = 1_000_000;
  for (const o of outcomes) {
    prev = recordProbe(prev, o, now, t);
    out.push(prev);
    now = prev.dueAt;
  }
  return out;
}

describe('recordProbe: failure-threshold hysteresis', () => {
  it('first success: Verified, no failures, not confirmed, next probe one (jittered) period away', () => {
    const r = recordProbe(undefined, ok, 1000, timing());
    assert.deepEqual(r.verdict, { ...ok, failures: 0, confirmed: false });
    assert.equal(r.probedAt, 1000);
    assert.equal(r.dueAt, 27_000, 'random 0.5 → 0.85 of the period (26,500), up to the 3,000 ms grid');
  });

  it('a verified interface stays Verified with pendingFailure until failureThreshold failures, then flips', () => {
    const [v, f1, f2, f3] = run([ok, bad(), bad(InterfaceState.Timeout, 'no answer in 3s'), bad()], timing());
    assert.equal(v!.verdict.state, InterfaceState.Verified);
    for (const [i, r] of [f1!, f2!].entries()) {
      assert.equal(r.verdict.state, InterfaceState.Verified, `failure ${i + 1} keeps Verified`);
      assert.equal(r.verdict.failures, i + 1);
      assert.equal(r.verdict.confirmed, false);
      assert.equal(r.verdict.reason, ok.reason, 'the verified evidence is kept');
    }
    assert.deepEqual(f1!.verdict.pendingFailure, { state: InterfaceState.WrongBinding, message: 'HTTP 415' });
    assert.deepEqual(f2!.verdict.pendingFailure, {
      state: InterfaceState.Timeout,
      message: 'no answer in 3s',
    });
    assert.deepEqual(f3!.verdict, { ...bad(), failures: 3, confirmed: true });
    assert.equal(f3!.verdict.pendingFailure, undefined);
  });

  for (const threshold of [1, 2, 3, 5]) {
    it(`failureThreshold ${threshold}: flips on exactly the ${threshold}th consecutive failure`, () => {
      const records = run(
        [ok, ...Array.from({ length: threshold + 1 }, () => bad())],
        timing({ failureThreshold: threshold }),
      );
      const states = records.slice(1).map((r) => `${r.verdict.state}/${r.verdict.confirmed}`);
      const expected = [
        ...Array.from({ length: threshold - 1 }, () => 'Verified/false'),
        'WrongBinding/true',
        'WrongBinding/true',
      ];
      assert.deepEqual(states, expected);
    });
  }

  it('a success in between resets the count: a flap of one probe withdraws nothing', () => {
    const records = run([ok, bad(), bad(), ok, bad(), bad(), ok], timing());
    assert.ok(records.every((r) => r.verdict.state === InterfaceState.Verified));
    assert.deepEqual(
      records.map((r) => r.verdict.failures),
      [0, 1, 2, 0, 1, 2, 0],
    );
    assert.equal(records[3]!.verdict.pendingFailure, undefined, 'success clears pendingFailure');
    assert.equal(records[6]!.verdict.pendingFailure, undefined);
  });

  it('a never-verified interface is reported failing at once, unconfirmed, and confirmed at the threshold', () => {
    const records = run([bad(), bad(), bad(), bad()], timing());
    assert.deepEqual(
      records.map((r) => [r.verdict.state, r.verdict.failures, r.verdict.confirmed]),
      [
        ['WrongBinding', 1, false],
        ['WrongBinding', 2, false],
        ['WrongBinding', 3, true],
        ['WrongBinding', 4, true],
      ],
    );
    assert.ok(records.every((r) => r.verdict.pendingFailure === undefined));
  });

  it('a confirmed failure followed by one success is Verified again at once (fresh verification)', () => {
    const records = run([bad(), bad(), bad(), ok], timing());
    assert.deepEqual(records[3]!.verdict, { ...ok, failures: 0, confirmed: false });
  });

  it('fast reprobe delays double from 1s, stay below the period, and the confirmed failure goes back to the period', () => {
    const t = timing({ failureThreshold: 10 });
    const records = run([ok, ...Array.from({ length: 10 }, () => bad())], t);
    const delays = records.map((r) => r.dueAt - r.probedAt);
    const routine = (d: number) => d >= 0.8 * PERIOD && d <= PERIOD;
    assert.equal(delays[0], 26_000, '1,000,000 + 0.85 of the period (1,025,500), up to the 3,000 ms grid');
    const fast = delays.slice(1, 10);
    assert.deepEqual(fast.slice(0, 4), [1000, 2000, 4000, 8000]);
    for (let i = 1; i < fast.length; i++)
      assert.ok(fast[i]! >= fast[i - 1]!, `non-decreasing: ${fast.join(',')}`);
    assert.ok(
      fast.every((d) => d < PERIOD),
      `below the period: ${fast.join(',')}`,
    );
    assert.ok(routine(delays[10]!), `confirmed: back to the period: ${delays[10]}`);
    assert.equal(
      records[10]!.dueAt,
      routineDueAt(records[10]!.probedAt, PERIOD, () => 0.5),
      'on the grid',
    );
  });

  it('the confirmation window is well under failureThreshold whole periods (threshold 2: ~1s)', () => {
    const records = run([ok, bad(), bad()], timing({ failureThreshold: 2 }));
    const window = records[2]!.probedAt - records[1]!.probedAt;
    assert.equal(window, 1000);
  });

  it('fastMs is honoured', () => {
    const records = run([bad(), bad()], timing({ fastMs: 250 }));
    assert.deepEqual(
      records.map((r) => r.dueAt - r.probedAt),
      [250, 500],
    );
  });

  it('short periods: the fast delay never exceeds the period', () => {
    for (const periodMs of [1000, 2000, 5000]) {
      const records = run(
        Array.from({ length: 8 }, () => bad()),
        timing({ periodMs, failureThreshold: 100 }),
      );
      for (const r of records)
        assert.ok(r.dueAt - r.probedAt <= periodMs, `period ${periodMs}: ${r.dueAt - r.probedAt}`);
    }
  });

  it('verified again with the same words: the verdict object is kept, the record is new', () => {
    const [first, second] = run([ok, ok], timing());
    assert.equal(second!.verdict, first!.verdict);
    assert.notEqual(second, first);
    assert.ok(second!.probedAt > first!.probedAt);
    // Different words, or a success that clears a pending failure: a fresh verdict.
    const reworded = recordProbe(
      second,
      { ...ok, message: 'JSON-RPC -32001 (v0.3)' },
      second!.dueAt,
      timing(),
    );
    assert.notEqual(reworded.verdict, second!.verdict);
    assert.equal(reworded.verdict.message, 'JSON-RPC -32001 (v0.3)');
    const [, flapped, cleared] = run([ok, bad(), ok], timing());
    assert.ok(flapped!.verdict.pendingFailure);
    assert.notEqual(cleared!.verdict, flapped!.verdict);
    assert.deepEqual(cleared!.verdict, { ...ok, failures: 0, confirmed: false });
    const [, confirmed, again] = run([ok, bad(), bad(), bad(), ok], timing()).slice(2);
    assert.equal(confirmed!.verdict.confirmed, true);
    assert.deepEqual(again!.verdict, { ...ok, failures: 0, confirmed: false });
  });

  it('does not mutate the previous record', () => {
    const prev = recordProbe(undefined, ok, 0, timing());
    const snapshot = structuredClone(prev);
    recordProbe(prev, bad(), 10, timing());
    assert.deepEqual(prev, snapshot);
  });
});

describe('jitteredPeriod', () => {
  it('random 0 → 0.8×, 0.5 → 0.9×, just below 1 → 1× (never later than one period)', () => {
    assert.equal(
      jitteredPeriod(30_000, () => 0),
      24_000,
    );
    assert.equal(
      jitteredPeriod(30_000, () => 0.5),
      27_000,
    );
    assert.equal(
      jitteredPeriod(30_000, () => 0.999999),
      30_000,
    );
  });

  it('verified → next probe within [0.8, 1] of the period over many seeded draws, and actually spread', () => {
    const random = prng(42);
    const seen: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const now = Math.floor(random() * 5 * PERIOD);
      const r = recordProbe(undefined, ok, now, { periodMs: PERIOD, failureThreshold: 2, random });
      assert.ok(r.dueAt >= now + 24_000 && r.dueAt <= now + 30_000, `${now} -> ${r.dueAt}`);
      seen.push(r.dueAt - now);
    }
    assert.ok(Math.min(...seen) < 24_600 && Math.max(...seen) > 29_400, 'jitter covers the range');
  });
});

describe('routineDueAt: visits due about the same time wake together', () => {
  const G = PERIOD / 10;
  it('0.8-0.9 of the period after now, rounded up to a tenth of the period: never later than one period', () => {
    assert.equal(
      routineDueAt(0, PERIOD, () => 0),
      24_000,
      'on the grid already',
    );
    assert.equal(
      routineDueAt(1, PERIOD, () => 0),
      27_000,
    );
    assert.equal(
      routineDueAt(5_999, PERIOD, () => 0.999_999),
      33_000,
      '5,999 + 26,999.97, rounded up',
    );
    const random = prng(7);
    for (let i = 0; i < 5000; i++) {
      const now = Math.floor(random() * 100 * PERIOD);
      const due = routineDueAt(now, PERIOD, random);
      assert.ok(due >= now + 0.8 * PERIOD && due <= now + PERIOD, `${now} -> ${due}`);
      assert.equal(due % G, 0, `on the grid: ${due}`);
    }
  });

  it('on average 0.9 of the period, as the draw without the grid: the same probe rate', () => {
    const random = prng(11);
    let sum = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const now = Math.floor(random() * 100 * PERIOD);
      sum += routineDueAt(now, PERIOD, random) - now;
    }
    const mean = sum / n / PERIOD;
    assert.ok(Math.abs(mean - 0.9) < 0.005, `mean ${mean}`);
  });

  it('1,000 agents visited at random times over a period come due at a dozen grid instants, none in lockstep', () => {
    const random = prng(3);
    const due = new Map<number, number>();
    for (let i = 0; i < 1000; i++) {
      const at = routineDueAt(Math.floor(random() * PERIOD), PERIOD, random);
      due.set(at, (due.get(at) ?? 0) + 1);
    }
    // Visits over one period come due 0.8 to 1.9 periods after its start: 12 grid instants, not 1,000.
    assert.ok(due.size <= 12 && due.size >= 10, `${due.size} instants`);
    assert.ok(Math.max(...due.values()) < 200, `the largest group: ${Math.max(...due.values())}`);
  });
});

describe('staticVerdict', () => {
  it('is confirmed with no failures: nothing to probe', () => {
    assert.deepEqual(staticVerdict(InterfaceState.Unmapped, 'Unmapped', 'port 1234 is not in spec.ports'), {
      state: 'Unmapped',
      reason: 'Unmapped',
      message: 'port 1234 is not in spec.ports',
      failures: 0,
      confirmed: true,
    });
  });
});

describe('isDue: batching steady probes', () => {
  it('a steady item due within a quarter period runs now; later ones wait', () => {
    assert.equal(isDue(10_000, 10_000, 30_000, true), true);
    assert.equal(isDue(17_500, 10_000, 30_000, true), true, '7.5 s ahead of a 30 s period is pulled forward');
    assert.equal(isDue(17_501, 10_000, 30_000, true), false);
  });
  it('an item confirming a failure runs exactly on its fast schedule', () => {
    assert.equal(isDue(10_500, 10_000, 30_000, false), false);
    assert.equal(isDue(10_000, 10_000, 30_000, false), true);
  });
});

describe('capability cadence', () => {
  const finding = (state: string) => ({ state });
  const half = () => 0.5;
  it('is due with no record, on a new card digest, and once its time has come', () => {
    assert.equal(capabilitiesDue(undefined, 0, 'd1'), true);
    const record = { findings: [finding('Verified')], dueAt: 1000, digest: 'd1' };
    assert.equal(capabilitiesDue(record, 999, 'd1'), false);
    assert.equal(capabilitiesDue(record, 999, 'd2'), true);
    assert.equal(capabilitiesDue(record, 1000, 'd1'), true);
  });
  it('rechecks conclusive findings every CAPABILITY_PERIODS periods, jittered never later', () => {
    const conclusive = ['Verified', 'NotServed', 'Absent', 'Undeclared'].map(finding);
    const at = capabilitiesDueAt(conclusive, 0, PERIOD, half);
    assert.equal(at, jitteredPeriod(PERIOD * CAPABILITY_PERIODS, half));
    assert.ok(at <= PERIOD * CAPABILITY_PERIODS && at > PERIOD);
    assert.equal(
      capabilitiesDueAt(conclusive, 0, PERIOD, () => 0.999_999),
      PERIOD * CAPABILITY_PERIODS,
    );
  });
  it('rechecks at the next period while any finding proved nothing', () => {
    for (const state of ['NotProbed', 'Inconclusive']) {
      const at = capabilitiesDueAt([finding('Verified'), finding(state)], 100, PERIOD, half);
      assert.equal(at, 100 + jitteredPeriod(PERIOD, half), state);
    }
  });
});
