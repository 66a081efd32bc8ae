// The fleet's accepted connections (bench/lib/tcp-accepts.ts): PassiveOpens from /proc/<pid>/net/snmp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePassiveOpens, readAccepts } from '../../bench/lib/tcp-accepts.js';

const SNMP = [
  'Ip: Forwarding DefaultTTL InReceives',
  'Ip: 1 64 4852205',
  'Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab',
  'Tcp: 1 200 120000 -1 396384 93052 14122 91535 0',
  'Udp: InDatagrams NoPorts',
  'Udp: 10 0',
  '',
].join('\n');

test('PassiveOpens is read by its column name, not its place', () => {
  assert.equal(parsePassiveOpens(SNMP), 93052);
  const moved = SNMP.replace('ActiveOpens PassiveOpens', 'PassiveOpens ActiveOpens');
  assert.equal(parsePassiveOpens(moved), 396384);
});

test('a text without the Tcp lines or the column is no count', () => {
  assert.ok(Number.isNaN(parsePassiveOpens('Ip: Forwarding\nIp: 1\n')));
  assert.ok(Number.isNaN(parsePassiveOpens(SNMP.replace('PassiveOpens', 'Other'))));
});

test('one count per network namespace, however many of its processes are named', () => {
  // Processes 1 and 2 share namespace A (1,000 accepted), 3 is alone in B (5), 4 is gone.
  const ns: Record<number, string> = { 1: 'net:[A]', 2: 'net:[A]', 3: 'net:[B]' };
  const opens: Record<string, number> = { 'net:[A]': 1000, 'net:[B]': 5 };
  const proc = {
    netns: (pid: number) => ns[pid] ?? assert.fail(`no process ${pid}`),
    snmp: (pid: number) => SNMP.replace('93052', String(opens[ns[pid]!])),
  };
  assert.equal(readAccepts([1, 2, 3, undefined, 4], proc), 1005);
  assert.equal(readAccepts([2, 1], proc), 1000);
  assert.equal(readAccepts([4], proc), 0);
});

test('this machine: a count for this process, none for one that is gone', () => {
  assert.ok(Number.isFinite(readAccepts([process.pid])));
  assert.equal(readAccepts([2 ** 30]), 0);
});
