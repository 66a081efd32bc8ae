// docs/conditions.md explains every condition type, interface and capability state and reason
// the operator writes (the readiness gate's included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  CapabilitiesVerified,
  CapabilityReason,
  CapabilityState,
  CardReason,
  ConditionType,
  InterfaceReason,
  InterfaceState,
  Reason,
} from '../../src/api/conditions.js';

const doc = readFileSync('docs/conditions.md', 'utf8');

test('every condition type, interface and capability state and reason appears in docs/conditions.md', () => {
  const names = [
    ...Object.values(ConditionType),
    CapabilitiesVerified,
    ...Object.values(CapabilityState),
    ...Object.values(CapabilityReason),
    ...Object.values(CardReason),
    ...Object.values(InterfaceState),
    ...Object.values(InterfaceReason),
    ...Object.values(Reason),
  ];
  const missing = [...new Set(names)].filter((n) => !doc.includes(`\`${n}\``));
  assert.deepEqual(missing, []);
});

test('every failure reason has a row saying how to fix it', () => {
  const rows = doc.split('\n').filter((l) => l.startsWith('| `'));
  const failing = [
    ...Object.values(CardReason),
    ...Object.values(InterfaceReason).filter((r) => r !== 'ProbePending'),
  ];
  for (const r of failing) {
    const row = rows.find((l) => l.includes(`\`${r}\``));
    assert.ok(row, r);
    assert.ok(row.split('|').filter((c) => c.trim()).length >= 3, `${r}: ${row}`);
  }
});
