import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, parseCard, staticChecks, type ParsedCard } from '../../src/card/index.js';
import { interfaceKey } from '../../src/observation/observed.js';
import { advertisedCard } from '../../src/routing/advertised-card.js';
import { keys, parsed, seedRaw, v1Raw } from './reconcile-fixtures.js';

const SIGS = [{ protected: 'eyJhbGciOiJFUzI1NiJ9', signature: 'c2ln' }];

function only(card: ParsedCard, indexes: number[]): Set<string> {
  return new Set(indexes.map((i) => interfaceKey(card.interfaces[i]!)));
}

function urls(list: unknown): string[] {
  return (list as { url: string; protocolBinding?: string; transport?: string }[]).map(
    (i) => `${i.protocolBinding ?? i.transport}@${i.url}`,
  );
}

describe('advertisedCard: v1.0', () => {
  it('all verified: card identical, not changed, signatures None when unsigned', () => {
    const card = parsed(v1Raw());
    const out = advertisedCard(card, new Set(keys(card)))!;
    assert.deepEqual(out.card, v1Raw());
    assert.equal(out.changed, false);
    assert.equal(out.signatures, 'None');
  });

  it('drops unverified interfaces, keeps order and every other field', () => {
    const card = parsed(v1Raw());
    const out = advertisedCard(card, only(card, [2, 0]))!;
    assert.deepEqual(urls(out.card.supportedInterfaces), [
      'JSONRPC@http://agent.internal:8080/a2a',
      'GRPC@http://agent.internal:9090',
    ]);
    assert.equal(out.card.name, 'billing');
    assert.equal(out.card.description, 'pays bills');
    assert.equal(out.changed, true);
    assert.equal(out.card.url, undefined, 'no v0.3 fields invented on a v1.0 card');
    assert.equal(out.card.preferredTransport, undefined);
  });

  it('the preferred (first) interface withdrawn: the next one in card order leads', () => {
    const card = parsed(v1Raw());
    const out = advertisedCard(card, only(card, [1, 2]))!;
    assert.deepEqual(urls(out.card.supportedInterfaces), [
      'HTTP+JSON@http://agent.internal:8080/rest',
      'GRPC@http://agent.internal:9090',
    ]);
  });

  it('nothing advertised → undefined (no truthful card to publish)', () => {
    const card = parsed(v1Raw());
    assert.equal(advertisedCard(card, new Set()), undefined);
    assert.equal(advertisedCard(card, new Set(['GRPC|1.0|http://elsewhere:1|'])), undefined);
  });

  it('signed and all verified: Unchanged, signatures kept', () => {
    const card = parsed(v1Raw({ signatures: SIGS }));
    const out = advertisedCard(card, new Set(keys(card)))!;
    assert.equal(out.signatures, 'Unchanged');
    assert.equal(out.changed, false);
    assert.deepEqual(out.card.signatures, SIGS);
  });

  it('signed and content changed: Removed, signatures gone', () => {
    const card = parsed(v1Raw({ signatures: SIGS }));
    const out = advertisedCard(card, only(card, [0]))!;
    assert.equal(out.signatures, 'Removed');
    assert.equal(out.changed, true);
    assert.equal('signatures' in out.card, false);
  });

  it('an empty signatures array counts as unsigned', () => {
    const card = parsed(v1Raw({ signatures: [] }));
    assert.equal(advertisedCard(card, only(card, [0]))!.signatures, 'None');
    assert.equal(advertisedCard(card, new Set(keys(card)))!.signatures, 'None');
  });

  it('tenants are part of the identity: same URL, other tenant not advertised', () => {
    const card = parsed({
      name: 't',
      supportedInterfaces: [
        { url: 'http://a:8080/x', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 't1' },
        { url: 'http://a:8080/x', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 't2' },
      ],
    });
    const out = advertisedCard(card, only(card, [1]))!;
    assert.deepEqual(
      (out.card.supportedInterfaces as { tenant: string }[]).map((i) => i.tenant),
      ['t2'],
    );
  });

  it('does not mutate the parsed card', () => {
    const card = parsed(v1Raw({ signatures: SIGS }));
    const before = structuredClone(card.raw);
    advertisedCard(card, only(card, [1]));
    assert.deepEqual(card.raw, before);
  });
});

describe('advertisedCard: v0.3 (seed card)', () => {
  it('only JSONRPC@8443 verified: url/preferredTransport name it, additionalInterfaces only it', () => {
    const card = parsed(seedRaw());
    const out = advertisedCard(card, only(card, [1]))!;
    assert.equal(out.card.url, 'https://agent.internal:8443');
    assert.equal(out.card.preferredTransport, 'JSONRPC');
    assert.deepEqual(urls(out.card.additionalInterfaces), ['JSONRPC@https://agent.internal:8443']);
    assert.equal(out.card.protocolVersion, '0.3.0');
    assert.equal(out.card.supportedInterfaces, undefined, 'no v1.0 field invented on a v0.3 card');
    assert.equal(out.changed, true);
    assert.equal(out.signatures, 'None');
    // The rewritten card passes the static checks it failed before.
    assert.deepEqual(
      staticChecks(parsed(seedRaw())).map((f) => f.reason),
      ['PreferredTransportMismatch'],
    );
    assert.deepEqual(staticChecks(parsed(out.card)), []);
  });

  it('only GRPC@9443 verified: the primary moves there', () => {
    const card = parsed(seedRaw());
    const out = advertisedCard(card, only(card, [2]))!;
    assert.equal(out.card.url, 'https://agent.internal:9443');
    assert.equal(out.card.preferredTransport, 'GRPC');
    assert.deepEqual(urls(out.card.additionalInterfaces), ['GRPC@https://agent.internal:9443']);
  });

  it('every parsed interface of the rewritten card is one that was advertised', () => {
    const card = parsed(seedRaw());
    for (const subset of [[0], [1], [2], [0, 1], [1, 2], [0, 2], [0, 1, 2]]) {
      const adv = only(card, subset);
      const out = advertisedCard(card, adv)!;
      const again = parseCard(out.card) as ParsedCard;
      assert.ok(
        again.interfaces.every((i) => adv.has(interfaceKey(i))),
        `${subset.join(',')}: ${JSON.stringify(out.card)}`,
      );
      assert.equal(
        again.interfaces[0]!.url,
        card.interfaces[subset[0]!]!.url,
        'the most preferred kept one leads',
      );
    }
  });

  it('additionalInterfaces entries are matched by canonical binding: a lower-case transport is kept', () => {
    const raw = {
      protocolVersion: '0.3.0',
      url: 'https://a:8443',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'https://a:8443', transport: 'jsonrpc' }],
    };
    const card = parsed(raw);
    const out = advertisedCard(card, new Set(keys(card)))!;
    assert.deepEqual(out.card.additionalInterfaces, [{ url: 'https://a:8443', transport: 'jsonrpc' }]);
  });

  it('signed seed card with GRPC@8443 withdrawn: signatures Removed', () => {
    const card = parsed(seedRaw({ signatures: SIGS }));
    const out = advertisedCard(card, only(card, [1, 2]))!;
    assert.equal(out.signatures, 'Removed');
    assert.equal('signatures' in out.card, false);
  });

  it('signed v0.3 card, everything verified: Unchanged', () => {
    const raw = seedRaw({
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: 'https://agent.internal:8443', transport: 'JSONRPC' },
        { url: 'https://agent.internal:9443', transport: 'GRPC' },
      ],
      signatures: SIGS,
    });
    const card = parsed(raw);
    const out = advertisedCard(card, new Set(keys(card)))!;
    assert.equal(out.changed, false);
    assert.equal(out.signatures, 'Unchanged');
    assert.equal(canonicalJson(out.card), canonicalJson(raw));
  });

  it('signed v0.3 card without preferredTransport (JSONRPC by default), everything verified: Unchanged', () => {
    const raw = { name: 'x', protocolVersion: '0.3.0', url: 'https://a:8443', signatures: SIGS };
    const card = parsed(raw);
    const out = advertisedCard(card, new Set(keys(card)))!;
    assert.deepEqual(out.card, raw);
    assert.equal(out.changed, false);
    assert.equal(out.signatures, 'Unchanged');
  });

  it('signed v0.3 card with a lower-case transport spelling, everything verified: Unchanged', () => {
    const raw = {
      name: 'x',
      protocolVersion: '0.3.0',
      url: 'a:9443',
      preferredTransport: 'grpc',
      signatures: SIGS,
    };
    const card = parsed(raw);
    const out = advertisedCard(card, new Set(keys(card)))!;
    assert.equal(out.changed, false);
    assert.equal(out.signatures, 'Unchanged');
  });
});

describe('advertisedCard: hybrid', () => {
  const hybridRaw = (): Record<string, unknown> => ({
    name: 'compat',
    protocolVersion: '0.3.0',
    url: 'https://agent.internal:8443',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: 'https://agent.internal:8443', transport: 'JSONRPC' },
      { url: 'https://agent.internal:9443', transport: 'GRPC' },
    ],
    supportedInterfaces: [
      { url: 'https://agent.internal:8443', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://agent.internal:9443', protocolBinding: 'GRPC', protocolVersion: '0.3' },
      { url: 'https://agent.internal:8443/v1', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
  });

  it('the fixture is a valid hybrid card', () => {
    const card = parsed(hybridRaw());
    assert.equal(card.shape, 'hybrid');
    assert.deepEqual(staticChecks(card), []);
  });

  it('all verified: unchanged', () => {
    const card = parsed(hybridRaw());
    const out = advertisedCard(card, new Set(keys(card)))!;
    assert.equal(out.changed, false);
    assert.deepEqual(out.card, hybridRaw());
  });

  it('JSONRPC withdrawn: both views rewritten — supportedInterfaces filtered, v0.3 fields point at the first kept v0.3 interface', () => {
    const card = parsed(hybridRaw());
    const out = advertisedCard(card, only(card, [1, 2]))!;
    assert.deepEqual(urls(out.card.supportedInterfaces), [
      'GRPC@https://agent.internal:9443',
      'HTTP+JSON@https://agent.internal:8443/v1',
    ]);
    assert.equal(out.card.url, 'https://agent.internal:9443');
    assert.equal(out.card.preferredTransport, 'GRPC');
    assert.deepEqual(urls(out.card.additionalInterfaces), ['GRPC@https://agent.internal:9443']);
    const again = parsed(out.card);
    assert.equal(again.shape, 'hybrid');
    assert.deepEqual(staticChecks(again), []);
  });

  it('only a v1.0 interface kept: supportedInterfaces has just it and the v0.3 fields are dropped', () => {
    const card = parsed(hybridRaw());
    const out = advertisedCard(card, only(card, [2]))!;
    assert.deepEqual(urls(out.card.supportedInterfaces), ['HTTP+JSON@https://agent.internal:8443/v1']);
    assert.equal(out.card.url, undefined);
    assert.equal(out.card.preferredTransport, undefined);
    assert.equal(out.card.additionalInterfaces, undefined);
    assert.equal(parsed(out.card).shape, 'v1.0');
  });

  it('a v0.3 interface withdrawn while the v1.0 one at the same URL is verified: the v0.3 fields do not keep naming it', () => {
    const raw = {
      name: 'compat',
      protocolVersion: '0.3.0',
      url: 'https://agent.internal:8443',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'https://agent.internal:8443', transport: 'JSONRPC' }],
      supportedInterfaces: [
        { url: 'https://agent.internal:8443', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://agent.internal:8443', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      ],
    };
    const card = parsed(raw);
    // 1.0 verified, 0.3 answered VersionNotSupported: only the 1.0 interface is advertised.
    const out = advertisedCard(card, only(card, [0]))!;
    // v0.3 clients read url/preferredTransport/additionalInterfaces and speak 0.3: none of
    // them may name (JSONRPC, 0.3, :8443), which was not verified.
    const legacyPairs = [
      ...(typeof out.card.url === 'string' ? [`${String(out.card.preferredTransport)}@${out.card.url}`] : []),
      ...urls(out.card.additionalInterfaces ?? []),
    ];
    assert.deepEqual(legacyPairs, []);
  });
});
