// The benchmark's split of the machine's CPU by process (bench/lib/machine-cpu.ts): /proc parsing,
// the window arithmetic, and a live reading of this process.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  busyPct,
  cpuBetween,
  describeSplit,
  parsePidStat,
  parseProcStat,
  readCpu,
  splitValue,
  type CpuReading,
} from '../../bench/lib/machine-cpu.js';

const PROC_STAT = `cpu  1000 50 300 8000 200 10 20 5 0 0
cpu0 500 25 150 4000 100 5 10 3 0 0
cpu1 500 25 150 4000 100 5 10 2 0 0
intr 12345
ctxt 678
`;

describe('machine CPU', () => {
  test('/proc/stat: busy is user+nice+system+irq+softirq+steal, total adds idle and iowait', () => {
    const s = parseProcStat(PROC_STAT);
    assert.equal(s.busy, 1000 + 50 + 300 + 10 + 20 + 5);
    assert.equal(s.total, s.busy + 8000 + 200);
    assert.equal(s.cores, 2);
    assert.throws(() => parseProcStat('intr 1\n'), /no aggregate cpu line/);
  });

  test('/proc/<pid>/stat: utime and stime, counted after the last parenthesis of the name', () => {
    const tail = 'S 1 2 3 4 5 6 7 8 9 10 111 222 13 14 20 0 4 0 99';
    assert.deepEqual(parsePidStat(`42 (node) ${tail}`), { user: 111, system: 222 });
    // A command name may hold spaces and parentheses of its own.
    assert.deepEqual(parsePidStat(`42 (a) b (c)) ${tail}`), { user: 111, system: 222 });
  });

  test('a window: each role and the rest, never negative (a pid gone reads 0)', () => {
    // System time is a quarter of each role's here.
    const at = (t: number, busy: number, operator: number, apiserver: number): CpuReading => ({
      at: t,
      machineBusyS: busy,
      machineTotalS: busy * 2,
      byRole: { operator, 'kube-apiserver': apiserver, etcd: 0, fleet: 0, benchmark: 0 },
      systemByRole: {
        operator: operator / 4,
        'kube-apiserver': apiserver / 4,
        etcd: 0,
        fleet: 0,
        benchmark: 0,
      },
    });
    const split = cpuBetween(at(0, 100, 10, 20), at(10_000, 115, 14, 28), 2);
    assert.equal(split.wallS, 10);
    assert.equal(split.busyS, 15);
    assert.equal(split.byRole.operator, 4);
    assert.equal(split.byRole['kube-apiserver'], 8);
    assert.equal(split.systemByRole.operator, 1);
    assert.equal(split.systemByRole['kube-apiserver'], 2);
    assert.equal(split.otherS, 3);
    assert.match(
      describeSplit(split),
      /^15\.0 of 20\.0 core-seconds \(75 % of 2 cores\): operator 4\.0 \(system 1\.0\), kube-apiserver 8\.0 \(system 2\.0\), other 3\.0$/,
    );
    assert.equal(splitValue(split), '15.0 / 20.0 (75 %)');
    assert.equal(busyPct(split), 75);
    const gone = cpuBetween(at(0, 100, 10, 20), at(1000, 101, 0, 21), 2);
    assert.equal(gone.byRole.operator, 0);
    assert.equal(gone.systemByRole.operator, 0);
    assert.equal(gone.otherS, 0);
  });

  test('reads this process and the machine from /proc', { skip: process.platform !== 'linux' }, () => {
    const before = readCpu({ benchmark: [process.pid], fleet: [undefined, 2 ** 22 + 1] });
    // Burn CPU until this process's own counter moves (clock ticks are coarse).
    let after = before;
    for (let i = 0; i < 500 && after.byRole.benchmark <= before.byRole.benchmark; i++) {
      const until = performance.now() + 20;
      while (performance.now() < until);
      after = readCpu({ benchmark: [process.pid] });
    }
    assert.ok(after.byRole.benchmark > before.byRole.benchmark, 'this process used CPU');
    assert.ok(after.systemByRole.benchmark <= after.byRole.benchmark, 'system time is part of the total');
    assert.ok(after.machineBusyS >= before.machineBusyS);
    assert.equal(before.byRole.fleet, 0, 'no such pid: reads 0');
  });
});
