/** Required extensions and capability claims read from a card, and the headers that declare the extensions. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CardParseError,
  capabilityClaims,
  MAX_REQUIRED_EXTENSIONS,
  parseCard,
  requiredExtensions,
} from '../../src/card/index.js';
import { extensionHeaders } from '../../src/probe/wire-forms.js';

test('requiredExtensions: required ones only, card order, no duplicates, header-safe, bounded', () => {
  const raw = {
    capabilities: {
      extensions: [
        { uri: 'https://a/1', required: true },
        { uri: 'https://a/2', required: false },
        { uri: 'https://a/3' },
        { uri: 'https://a/1', required: true },
        { uri: 'https://a/4', required: 'yes' },
        { uri: 'https://a/x y', required: true },
        { uri: 'https://a/x,y', required: true },
        { uri: 'https://a/\n', required: true },
        { uri: 'x'.repeat(513), required: true },
        { uri: 7, required: true },
        null,
        { uri: 'urn:b', required: true },
      ],
    },
  };
  assert.deepEqual(requiredExtensions(raw), ['https://a/1', 'urn:b']);
  assert.deepEqual(requiredExtensions({}), []);
  assert.deepEqual(requiredExtensions({ capabilities: { extensions: {} } }), []);
  const many = Array.from({ length: 40 }, (_, i) => ({ uri: `urn:e${i}`, required: true }));
  assert.equal(requiredExtensions({ capabilities: { extensions: many } }).length, MAX_REQUIRED_EXTENSIONS);
});

test('parseCard puts the required extensions on every interface, and nothing when there are none', () => {
  const base = {
    name: 'x',
    supportedInterfaces: [
      { url: 'http://h/a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://h:9', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    ],
  };
  const plain = parseCard(base);
  assert.ok(!(plain instanceof CardParseError));
  assert.ok(plain.interfaces.every((i) => !('requiredExtensions' in i)));
  const card = parseCard({ ...base, capabilities: { extensions: [{ uri: 'urn:x', required: true }] } });
  assert.ok(!(card instanceof CardParseError));
  assert.deepEqual(
    card.interfaces.map((i) => i.requiredExtensions),
    [['urn:x'], ['urn:x']],
  );
});

test('extensionHeaders: A2A-Extensions for 1.x, also X-A2A-Extensions for 0.3, none without extensions', () => {
  assert.deepEqual(extensionHeaders('1.0', ['urn:a', 'urn:b']), { 'a2a-extensions': 'urn:a, urn:b' });
  assert.deepEqual(extensionHeaders('1.1', ['urn:a']), { 'a2a-extensions': 'urn:a' });
  assert.deepEqual(extensionHeaders('0.3', ['urn:a']), {
    'x-a2a-extensions': 'urn:a',
    'a2a-extensions': 'urn:a',
  });
  assert.deepEqual(extensionHeaders('1.0', []), {});
  assert.deepEqual(extensionHeaders('1.0', undefined), {});
});

test('capabilityClaims: true only when the card says true; v0.3 supportsAuthenticatedExtendedCard counts', () => {
  assert.deepEqual(capabilityClaims({}), {
    streaming: false,
    pushNotifications: false,
    extendedAgentCard: false,
  });
  assert.deepEqual(
    capabilityClaims({
      capabilities: { streaming: true, pushNotifications: 'true', extendedAgentCard: true },
    }),
    { streaming: true, pushNotifications: false, extendedAgentCard: true },
  );
  assert.equal(capabilityClaims({ supportsAuthenticatedExtendedCard: true }).extendedAgentCard, true);
});
