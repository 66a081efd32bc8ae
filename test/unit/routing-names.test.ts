// Names and sizes that always fit (issue 11 item 3; routing/objects.ts): slice names never collide
// across agents, label values and the card ConfigMap's name fit their limits for any agent name,
// slices are chunked at MAX_ENDPOINTS_PER_SLICE endpoints, and a card the probes could read fits
// the card ConfigMap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { A2AAgentSpec, DNS1035_LABEL } from '../../src/api/a2aagent.js';
import type { PodObservation } from '../../src/observation/observed.js';
import { MAX_CARD_BYTES } from '../../src/probe/fetch-card.js';
import {
  buildEndpointSlices,
  CARD_KEY,
  cardConfigMapName,
  cardText,
  endpointSliceName,
  labelValue,
  MAX_CONFIGMAP_DATA_BYTES,
  MAX_ENDPOINTS_PER_SLICE,
} from '../../src/routing/objects.js';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

describe('endpointSliceName', () => {
  it('billing + port grpc-v1 and billing-grpc + port v1 get different names', () => {
    assert.notEqual(
      endpointSliceName('billing', 'grpc-v1', 'IPv4'),
      endpointSliceName('billing-grpc', 'v1', 'IPv4'),
    );
  });

  it('keeps the plain <service>-<port>[-<number>][-ipv6] form where it is unambiguous', () => {
    assert.equal(endpointSliceName('billing', 'http', 'IPv4'), 'billing-http');
    assert.equal(endpointSliceName('billing', 'http', 'IPv6'), 'billing-http-ipv6');
    assert.equal(endpointSliceName('billing', 'http', 'IPv4', 8080), 'billing-http-8080');
    assert.match(endpointSliceName('billing', 'http', 'IPv4', undefined, 1), /^billing-http\.[0-9a-f]{10}$/);
  });

  it('is injective over services, ports, numbers, families and chunks built to collide', () => {
    const services = ['a', 'a-b', 'a-b-c', 'b-c', 'a-1', 'a-ipv6', 'a-b-ipv6', 'a-b-80', 'a-b-80-ipv6'];
    const ports = ['b', 'c', 'b-c', 'ipv6', '80', '1', 'b-80', 'c-ipv6'];
    const seen = new Map<string, string>();
    for (const s of services)
      for (const p of ports)
        for (const family of ['IPv4', 'IPv6'] as const)
          for (const n of [undefined, 80, 1])
            for (const chunk of [0, 1, 2]) {
              const name = endpointSliceName(s, p, family, n, chunk);
              const what = JSON.stringify([s, p, family, n, chunk]);
              assert.equal(seen.get(name), undefined, `${name}: ${what} and ${seen.get(name)}`);
              seen.set(name, what);
              assert.match(name, SUBDOMAIN);
            }
  });

  it('fits 253 for the longest service and port names', () => {
    const name = endpointSliceName(`a${'b'.repeat(62)}`, `p-${'q'.repeat(61)}`, 'IPv6', 65535, 9);
    assert.ok(name.length <= 253);
    assert.match(name, SUBDOMAIN);
  });
});

describe('labelValue and cardConfigMapName', () => {
  const long = (c: string) => `${'x'.repeat(60)}.${c.repeat(192)}`; // 253 characters
  it('leaves names that fit unchanged', () => {
    assert.equal(labelValue('billing'), 'billing');
    assert.equal(labelValue('a'.repeat(63)), 'a'.repeat(63));
    assert.equal(cardConfigMapName('billing'), 'billing-agent-card');
  });
  it('hashes a long agent name into a valid label value, distinct for names sharing a prefix', () => {
    const [a, b] = [labelValue(long('a')), labelValue(long('b'))];
    for (const v of [a, b]) {
      assert.ok(v.length <= 63, v);
      assert.match(v, LABEL_VALUE);
    }
    assert.notEqual(a, b);
    assert.match(labelValue(`${'y'.repeat(51)}.-${'z'.repeat(40)}`), LABEL_VALUE);
  });
  it('cuts and hashes a card ConfigMap name over 253', () => {
    const [a, b] = [cardConfigMapName(long('a')), cardConfigMapName(long('b'))];
    for (const v of [a, b]) {
      assert.ok(v.length <= 253, `${v.length}`);
      assert.match(v, SUBDOMAIN);
      assert.match(v, /-agent-card$/);
    }
    assert.notEqual(a, b);
  });
  it('DNS1035_LABEL: what the CRD requires of an agent name without routing.serviceName', () => {
    for (const ok of ['billing', 'a', 'a-1']) assert.match(ok, DNS1035_LABEL);
    for (const bad of ['1billing', 'bil.ling', 'Billing', 'a-']) assert.doesNotMatch(bad, DNS1035_LABEL);
  });
});

describe('buildEndpointSlices: chunks', () => {
  const spec = A2AAgentSpec.parse({
    selector: { matchLabels: { app: 'a' } },
    ports: [{ name: 'http', port: 8080 }],
    card: { port: 'http' },
  });
  const pods: PodObservation[] = Array.from({ length: 2 * MAX_ENDPOINTS_PER_SLICE + 50 }, (_, i) => ({
    pod: {
      name: `pod-${i}`,
      uid: `uid-${i}`,
      ip: `10.0.${i >> 8}.${i & 255}`,
      ips: [`10.0.${i >> 8}.${i & 255}`],
      candidate: true,
      terminating: false,
      containerPorts: {},
      gateListed: false,
    },
    verdicts: new Map(),
  }));
  it(`at most ${MAX_ENDPOINTS_PER_SLICE} endpoints per slice, every pod in exactly one`, () => {
    const slices = buildEndpointSlices(
      { name: 'a', namespace: 'ns', uid: 'agent-uid' },
      'a',
      spec,
      { advertised: ['k'], endpoints: new Map([['http', pods.map((p) => p.pod.uid)]]) },
      pods,
      [],
    );
    assert.deepEqual(
      slices.map((s) => s.endpoints.length),
      [MAX_ENDPOINTS_PER_SLICE, MAX_ENDPOINTS_PER_SLICE, 50],
    );
    assert.equal(new Set(slices.map((s) => s.metadata!.name)).size, 3);
    assert.equal(slices[0]!.metadata!.name, 'a-http', 'the first chunk keeps the plain name');
    const uids = slices.flatMap((s) => s.endpoints.map((e) => e.targetRef!.uid));
    assert.equal(new Set(uids).size, pods.length);
  });
});

describe('cardText: the card ConfigMap holds any card the probes read', () => {
  it('a small card is indented, for kubectl readers', () => {
    const card = { name: 'billing', skills: [{ id: 'a' }] };
    assert.equal(cardText(card), `${JSON.stringify(card, null, 2)}\n`);
  });

  it('a card under the 1 MiB read limit that indenting would push past the ConfigMap limit is written compact', () => {
    // Many short items: indenting multiplies the size about five times.
    const card = { name: 'billing', skills: Array.from({ length: 50_000 }, (_, i) => ({ id: i })) };
    const compact = Buffer.byteLength(JSON.stringify(card));
    assert.ok(compact < MAX_CARD_BYTES, `the card itself is readable (${compact} bytes)`);
    assert.ok(Buffer.byteLength(JSON.stringify(card, null, 2)) > MAX_CONFIGMAP_DATA_BYTES);
    const text = cardText(card);
    assert.ok(Buffer.byteLength(text) + CARD_KEY.length <= MAX_CONFIGMAP_DATA_BYTES);
    assert.deepEqual(JSON.parse(text), card);
  });
});
