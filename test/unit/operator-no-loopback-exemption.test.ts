// Regression: the "plaintext is fine for loopback development URLs" rule applied in the operator
// too, which dials the pod IP whatever host a URL names: an HTTPS agent writing
// `http://localhost:...` got plaintext probes carrying its token. The exemption is now an explicit
// static-check option that only the CLI sets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AAgentSpec } from '../../src/api/a2aagent.js';
import { CardParseError, parseCard, staticChecks, type ParsedCard } from '../../src/card/index.js';
import { mapInterfaces, operatorCheckOptions } from '../../src/observation/interface-map.js';

const card = parseCard({
  name: 'a',
  supportedInterfaces: [
    { url: 'https://a.ns.svc:8443/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://localhost:8443/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'http://127.0.0.1:8443/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'http://[::1]:9443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: 'http://x.localhost:8443/rpc2', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
}) as ParsedCard;
assert.ok(!(card instanceof CardParseError));

const ctx = {
  spec: A2AAgentSpec.parse({
    selector: { matchLabels: { app: 'a' } },
    ports: [
      { name: 'https', port: 8443 },
      { name: 'grpc', port: 9443 },
    ],
    card: { port: 'https', scheme: 'HTTPS' },
  }),
  namespace: 'ns',
  serviceName: 'a',
};

void test('operator: plaintext loopback interfaces on an HTTPS card are InsecureDowngrade and never dialled', () => {
  const opts = operatorCheckOptions(ctx);
  assert.equal(opts.allowLoopbackPlaintext, false);
  const downgrades = staticChecks(card, opts).filter((f) => f.reason === 'InsecureDowngrade');
  assert.deepEqual(
    downgrades.map((f) => f.interfaceIndex),
    [1, 2, 3, 4],
  );
  const mapped = mapInterfaces(card, ctx);
  assert.equal(mapped[0]!.mapped, true);
  for (const m of mapped.slice(1)) {
    assert.equal(m.mapped, false, m.iface.url);
    assert.equal(!m.mapped && m.state, 'Ineligible');
    assert.match(!m.mapped ? m.message : '', /served over HTTPS but this interface is plaintext/);
  }
});

void test('static checks: no exemption by default; the CLI opts in for loopback hosts only', () => {
  const byDefault = staticChecks(card, { cardScheme: 'https' });
  assert.equal(byDefault.filter((f) => f.reason === 'InsecureDowngrade').length, 4);
  const cli = staticChecks(card, { cardScheme: 'https', allowLoopbackPlaintext: true });
  assert.deepEqual(
    cli.filter((f) => f.reason === 'InsecureDowngrade'),
    [],
  );
  const notLoopback = parseCard({
    supportedInterfaces: [
      { url: 'http://localhost.evil:8443/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://128.0.0.1:8443/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
  }) as ParsedCard;
  assert.equal(
    staticChecks(notLoopback, { cardScheme: 'https', allowLoopbackPlaintext: true }).filter(
      (f) => f.reason === 'InsecureDowngrade',
    ).length,
    2,
  );
});
