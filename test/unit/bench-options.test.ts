// `npm run bench` options (bench/lib/options.ts): the fleet's keep-alive is Node's default
// unless asked for, and a bad value is refused rather than read as 0.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions } from '../../bench/lib/options.js';

describe('bench options', () => {
  test('--agent-keep-alive: seconds, absent by default', () => {
    assert.equal(parseOptions([])?.agentKeepAlive, undefined);
    assert.equal(parseOptions(['--agent-keep-alive', '30'])?.agentKeepAlive, 30);
  });
  test('--agent-keep-alive refuses what is not a positive integer', () => {
    for (const bad of ['0', '-1', '2.5', 'x'])
      assert.throws(() => parseOptions(['--agent-keep-alive', bad]), /--agent-keep-alive/);
  });
  test('defaults stay as documented', () => {
    const o = parseOptions([])!;
    assert.deepEqual([o.agents, o.pods, o.period, o.workers, o.probeConcurrency], [20, 3, 10, 8, 32]);
    assert.equal(parseOptions(['--help']), undefined);
  });
});
