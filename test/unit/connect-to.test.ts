import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyConnectTo, parseConnectTo } from '../../src/cli/check/connect-to.js';

void test('--connect-to: curl semantics (empty fields match any / keep the original, IPv6 in brackets)', () => {
  const rules = [
    parseConnectTo('agent.internal:8443:127.0.0.1:40001'),
    parseConnectTo('agent.internal::10.0.0.7:'),
    parseConnectTo(':9443:[::1]:50051'),
  ];
  assert.deepEqual(applyConnectTo(rules, 'Agent.Internal', 8443), { address: '127.0.0.1', port: 40001 });
  assert.deepEqual(applyConnectTo(rules, 'agent.internal', 9000), { address: '10.0.0.7', port: 9000 });
  assert.deepEqual(applyConnectTo(rules, 'other', 9443), { address: '::1', port: 50051 });
  assert.equal(applyConnectTo(rules, 'other', 80), undefined);
  for (const bad of ['a:b:c:d', 'host:1:addr', 'h:70000:a:1', '']) {
    assert.throws(() => parseConnectTo(bad), { name: 'UsageError' }, bad);
  }
});
