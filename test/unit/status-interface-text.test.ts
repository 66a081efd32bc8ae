/**
 * Status names a card's interfaces in a form safe to show (issue: terminal-safe output): the URL
 * with credentials redacted, control characters escaped and its length bounded, the other card
 * strings escaped; and a status written that way is still matched to the card on the next
 * reconcile (no transition churn, advertised kept, preferred found).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decide } from '../../src/controller/decide.js';
import { statusInterface } from '../../src/observation/observed.js';
import { input, LATER, okCard, pod, V, v1Raw } from './reconcile-fixtures.js';

const hostileUrl = `http://agent.internal:8080/a2a?access_token=s3cr3t-value\u001b[31m&x=${'y'.repeat(600)}`;
const card = okCard(
  v1Raw({
    supportedInterfaces: [
      { url: hostileUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://agent.internal:8080/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
  }),
);
const pods = ['a', 'b'].map((n) => pod(`billing-${n}`, card, [V, V]));

test('status shows the URL redacted, escaped and bounded; card strings escaped', () => {
  const d = decide(input({ pods }));
  const shown = d.status.interfaces![0]!;
  assert.ok(!shown.url.includes('s3cr3t'), shown.url);
  assert.ok(!shown.url.includes('\u001b'), shown.url);
  assert.ok(shown.url.length <= 256, `${shown.url.length}`);
  assert.match(shown.url, /^http:\/\/agent\.internal:8080\/a2a\?access_token=\*\*\*/);
  assert.equal(d.status.advertised?.preferred?.url, shown.url, 'preferred names the shown form');
  const custom = statusInterface({
    url: 'x',
    protocolBinding: 'EVIL\u001b]0;t\u0007',
    protocolVersion: '1.0\n::error::',
  });
  assert.ok(
    ![...(custom.protocolBinding + custom.protocolVersion)].some((c) => c.charCodeAt(0) < 0x20),
    JSON.stringify(custom),
  );
});

test('the next decision matches the shown status to the card: times kept, advertised kept while held', () => {
  const first = decide(input({ pods }));
  const again = decide(input({ pods, previous: first.status, now: LATER }));
  assert.deepEqual(
    again.status.interfaces!.map((i) => i.lastTransitionTime),
    first.status.interfaces!.map((i) => i.lastTransitionTime),
    'no transition where nothing changed',
  );
  assert.equal(again.events.filter((e) => e.reason.startsWith('Interface')).length, 0);
  // Full routing held (a spec problem), no current routing given: status keeps what it said.
  const held = decide(
    input({
      pods,
      previous: first.status,
      now: LATER,
      specProblems: [{ reason: 'SecretNotFound', message: 'x' }],
    }),
  );
  assert.deepEqual(
    held.status.interfaces!.map((i) => i.advertised),
    first.status.interfaces!.map((i) => i.advertised),
  );
  assert.ok(first.status.interfaces!.every((i) => i.advertised));
});
