// The cost curve's arithmetic (bench/lib/cost-curve.ts): the ceiling of one replica from CPU per
// probe, and the per-agent figures of the cost table.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  agentsPerCore,
  ceilingRows,
  costTable,
  throughputNote,
  type SizePoint,
} from '../../bench/lib/cost-curve.js';

const point = (agents: number): SizePoint => ({
  agents,
  coldAfterReadyS: agents / 100,
  bareS: agents / 200,
  coldCpuS: agents / 50,
  steadyCpuPct: agents / 10,
  opCpuPerProbeMs: 2,
  bareCpuPerProbeMs: 1,
  rssMiB: 100,
  coldApiRequests: agents * 10,
  probesPerS: agents * 0.9,
  workersBusyPct: 50,
  steadyWritesPerPeriod: 0,
  machineBusyPct: 60,
  agentsPerCore: agentsPerCore(2, 9),
});

describe('agentsPerCore', () => {
  test('a period of one core over CPU per agent per period, at 10, 30 and 60 s', () => {
    // 2 ms x 9 probes = 18 ms per agent per period.
    assert.deepEqual(
      agentsPerCore(2, 9).map((n) => Math.round(n)),
      [556, 1667, 3333],
    );
  });
  test('no CPU measured is not a ceiling', () => {
    assert.ok(agentsPerCore(0, 9).every((n) => Number.isNaN(n)));
  });
});

describe('costTable', () => {
  test('one column per size, absolute and per-agent figures', () => {
    const table = costTable([point(100), point(300)]);
    const rows = new Map(
      table
        .split('\n')
        .slice(2)
        .map((l) => l.split('|').map((c) => c.trim()))
        .map((c) => [c[1]!, c.slice(2, -1)]),
    );
    assert.deepEqual(rows.get('API requests until converged'), ['1000', '3000']);
    assert.deepEqual(rows.get('API requests until converged, per agent'), ['10.00', '10.00']);
    assert.deepEqual(rows.get('operator RSS per agent (KiB)'), ['1024', '341']);
    assert.deepEqual(rows.get('agents one core sustains at period 10 / 30 / 60 s'), [
      '556 / 1667 / 3333',
      '556 / 1667 / 3333',
    ]);
  });
  test('the ceiling rows name the size and CPU per probe they come from', () => {
    const rows = ceilingRows(point(300));
    assert.deepEqual(
      rows.map((r) => r.value),
      ['556', '1667', '3333'],
    );
    assert.match(rows[0]!.note!, /2\.000 ms .* 300 agents/);
  });
});

describe('throughputNote', () => {
  const run = { pods: 3, period: 10, workers: 8, probeConcurrency: 32 };
  // 1,000 agents x 3 pods x 3 bindings every 10 s: 900 probes/s needed.
  const at = (fields: Partial<SizePoint>): string => throughputNote(run, { ...point(1000), ...fields });
  test('kept up when the probes per second meet what the period asks', () => {
    const note = at({ probesPerS: 900, steadyCpuPct: 60 });
    assert.match(note, /needs 900 interface probes\/s; the operator made 900\/s/);
    assert.match(note, /so it kept up/);
    assert.doesNotMatch(note, /fell behind/);
  });
  test('behind and not CPU-bound: the workers busy share and whether it wrote', () => {
    const quiet = at({ probesPerS: 610, steadyCpuPct: 68, workersBusyPct: 99.6 });
    assert.match(quiet, /fell behind\. Its own process was not CPU-bound/);
    assert.match(quiet, /`--workers=8` were busy 100 % of the steady window/);
    assert.match(quiet, /not on API writes \(none\)/);
    const writing = at({ probesPerS: 610, steadyCpuPct: 68, steadyWritesPerPeriod: 2.5 });
    assert.match(writing, /and on its API writes \(2\.5 per period\)/);
  });
  test('behind and not CPU-bound: whether the machine had cores to spare', () => {
    const full = at({ probesPerS: 610, steadyCpuPct: 68, machineBusyPct: 96.4 });
    assert.match(full, /The machine was 96 % busy over the steady window/);
    assert.match(full, /waited for cores the fleet and the control plane held/);
    assert.doesNotMatch(full, /cores were free/);
    const spare = at({ probesPerS: 610, steadyCpuPct: 68, machineBusyPct: 55 });
    assert.match(spare, /The machine was 55 % busy/);
    assert.match(spare, /cores were free, so more workers or probes in flight would add visits/);
    assert.doesNotMatch(spare, /waited for cores/);
  });
  test('behind and CPU-bound: sharding, not workers', () => {
    const note = at({ probesPerS: 610, steadyCpuPct: 97 });
    assert.match(note, /fell behind, its own process CPU-bound/);
    assert.doesNotMatch(note, /workers >=/);
  });
});
