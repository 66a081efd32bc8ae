import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesSelector, selectorToString, type LabelSelector } from '../../src/kube/selector.js';

const labels = { app: 'agent', tier: 'web', track: 'stable' };

describe('matchesSelector', () => {
  const cases: [string, LabelSelector | undefined, Record<string, string> | undefined, boolean][] = [
    ['undefined selector matches all', undefined, labels, true],
    ['empty selector matches all', {}, labels, true],
    ['empty selector matches unlabelled', {}, undefined, true],
    ['matchLabels hit', { matchLabels: { app: 'agent' } }, labels, true],
    ['matchLabels miss', { matchLabels: { app: 'other' } }, labels, false],
    ['matchLabels all must hold', { matchLabels: { app: 'agent', tier: 'db' } }, labels, false],
    ['matchLabels vs no labels', { matchLabels: { app: 'agent' } }, undefined, false],
    ['In hit', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db', 'web'] }] }, labels, true],
    ['In miss', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] }, labels, false],
    [
      'In needs the key',
      { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] },
      labels,
      false,
    ],
    ['NotIn hit', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] }, labels, true],
    [
      'NotIn miss',
      { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] },
      labels,
      false,
    ],
    [
      'NotIn matches absent key',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      labels,
      true,
    ],
    ['Exists', { matchExpressions: [{ key: 'track', operator: 'Exists' }] }, labels, true],
    ['Exists miss', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, labels, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, labels, true],
    ['DoesNotExist miss', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, labels, false],
    [
      'labels and expressions together',
      {
        matchLabels: { app: 'agent' },
        matchExpressions: [{ key: 'track', operator: 'In', values: ['canary'] }],
      },
      labels,
      false,
    ],
    [
      'unknown operator matches nothing',
      { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] },
      labels,
      false,
    ],
  ];
  for (const [name, sel, l, want] of cases) {
    it(name, () => assert.equal(matchesSelector(sel, l), want));
  }
});

describe('selectorToString', () => {
  it('renders the query syntax', () => {
    assert.equal(
      selectorToString({
        matchLabels: { app: 'agent' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['web', 'db'] },
          { key: 'x', operator: 'NotIn', values: ['1'] },
          { key: 'y', operator: 'Exists' },
          { key: 'z', operator: 'DoesNotExist' },
        ],
      }),
      'app=agent,tier in (db,web),x notin (1),y,!z',
    );
  });
});
