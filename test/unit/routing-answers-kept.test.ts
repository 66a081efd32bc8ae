// In steady state every reconcile parsed the published card again (up to three times) and
// built the advertised card again (a deep clone and two canonical serialisations, up to three
// times), with the same answer each time. Both are now kept per object: these tests pin that
// the kept answers are the ones computing afresh gives, and that a change is never answered
// from memory.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { OwnedCache, OwnedCaches } from '../../src/controller/apply-routing.js';
import { currentRouting } from '../../src/controller/current-routing.js';
import { interfaceKey } from '../../src/observation/observed.js';
import { advertisedCard } from '../../src/routing/advertised-card.js';
import { CARD_KEY, cardConfigMapName } from '../../src/routing/objects.js';
import { keys, parsed, v1Raw } from './reconcile-fixtures.js';

const owner = { apiVersion: 'a2a.dev/v1alpha1', kind: 'A2AAgent', namespace: 'ns', name: 'a', uid: 'u1' };

function configMap(card: unknown, uid = 'u1'): V1ConfigMap {
  return {
    metadata: {
      name: cardConfigMapName('a'),
      namespace: 'ns',
      ownerReferences: [{ apiVersion: 'v1', kind: 'A2AAgent', name: 'a', uid, controller: true }],
    },
    data: { [CARD_KEY]: typeof card === 'string' ? card : JSON.stringify(card) },
  };
}

function caches(get: () => V1ConfigMap | undefined): OwnedCaches {
  const empty = { get: () => undefined, list: () => [] };
  return {
    services: empty,
    slices: empty,
    configMaps: { get, list: () => [] } as unknown as OwnedCache<V1ConfigMap>,
  };
}

describe('currentRouting keeps the parsed published card per ConfigMap object', () => {
  it('the same object answers the same card; a new object with other text is parsed anew', () => {
    let cm = configMap(v1Raw());
    const c = caches(() => cm);
    const first = currentRouting(c, owner, 'a').card;
    assert.ok(first);
    assert.equal(currentRouting(c, owner, 'a').card, first);
    cm = configMap(v1Raw({ description: 'changed' }));
    const second = currentRouting(c, owner, 'a').card;
    assert.notEqual(second, first);
    assert.equal(second?.raw.description, 'changed');
  });

  it('an object changed in place is parsed anew, and a card that does not parse stays absent', () => {
    const cm = configMap(v1Raw());
    const c = caches(() => cm);
    const first = currentRouting(c, owner, 'a').card;
    cm.data![CARD_KEY] = JSON.stringify(v1Raw({ description: 'in place' }));
    assert.equal(currentRouting(c, owner, 'a').card?.raw.description, 'in place');
    cm.data![CARD_KEY] = '{not json';
    assert.equal(currentRouting(c, owner, 'a').card, undefined);
    assert.equal(currentRouting(c, owner, 'a').card, undefined);
    assert.ok(first);
  });

  it('a ConfigMap another agent owns is never read, kept or not', () => {
    const mine = configMap(v1Raw());
    let cm = mine;
    const c = caches(() => cm);
    assert.ok(currentRouting(c, owner, 'a').card);
    cm = configMap(v1Raw(), 'someone-else');
    assert.equal(currentRouting(c, owner, 'a').card, undefined);
  });
});

describe('advertisedCard keeps its answers per card', () => {
  it('asked again, it answers what it computed; other sets or capabilities get their own answer', () => {
    const card = parsed(v1Raw({ capabilities: { streaming: true } }));
    const all = new Set(keys(card));
    const one = new Set([interfaceKey(card.interfaces[0]!)]);
    const full = advertisedCard(card, all);
    assert.equal(advertisedCard(card, new Set([...all].reverse())), full, 'order of the set does not matter');
    const partial = advertisedCard(card, one);
    assert.notEqual(partial, full);
    assert.equal((partial!.card.supportedInterfaces as unknown[]).length, 1);
    const off = advertisedCard(card, all, ['streaming']);
    assert.equal((off!.card.capabilities as { streaming: boolean }).streaming, false);
    assert.equal((full!.card.capabilities as { streaming: boolean }).streaming, true);
    assert.equal(advertisedCard(card, new Set()), undefined);
    // More distinct questions than are kept: the answers stay right.
    for (let i = 0; i < 6; i++) {
      const set = i % 2 ? all : one;
      const fresh = advertisedCard(parsed(v1Raw({ capabilities: { streaming: true } })), set);
      assert.deepEqual(advertisedCard(card, set), fresh);
    }
  });

  it('a separator inside a card string cannot make two sets one question', () => {
    // Joined with a newline, the keys of x and y would read as the key of the third interface.
    const card = parsed({
      name: 'n',
      supportedInterfaces: [
        { url: 'http://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'http://y', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'http://x|\nJSONRPC|1.0|http://y', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
    });
    const [x, y, joined] = card.interfaces.map(interfaceKey);
    assert.equal(joined, `${x}\n${y}`);
    const two = advertisedCard(card, new Set([x!, y!]));
    const one = advertisedCard(card, new Set([joined!]));
    assert.equal((two!.card.supportedInterfaces as unknown[]).length, 2);
    assert.equal((one!.card.supportedInterfaces as unknown[]).length, 1);
  });
});
