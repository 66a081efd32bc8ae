/**
 * A2A 1.x: any 1.x interface is eligible and probed over the v1 wire with its declared
 * `A2A-Version` (minors are additive; GetTask exists in each); a VersionNotSupported answer to a
 * newer minor is reported as such; an unknown major stays Ineligible. JSON-RPC probes against a
 * real local server that records what it was sent.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { InterfaceState } from '../../src/api/conditions.js';
import {
  CardParseError,
  interfaceEligibility,
  isKnownVersion,
  parseCard,
  wireOf,
} from '../../src/card/index.js';
import { grpcGetTaskMethod, jsonRpcGetTaskBody, restGetTaskPath } from '../../src/probe/wire-forms.js';
import { Prober } from '../../src/probe/prober.js';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

test('versions: every 1.x on the v1 wire, 0.3 on its own, anything else none', () => {
  for (const v of ['1.0', '1.1', '1.12']) assert.equal(wireOf(v), 'v1', v);
  assert.equal(wireOf('0.3'), 'v0.3');
  for (const v of ['2.0', '0.2', '1', '1.', '1.x', '11.0', '1.1.1', '1.' + '9'.repeat(100)])
    assert.equal(isKnownVersion(v), false, v);
  assert.equal(JSON.parse(jsonRpcGetTaskBody('1.1', 'id', undefined)).method, 'GetTask');
  assert.equal(restGetTaskPath('1.1', '/rest', 'id', undefined), '/rest/tasks/id');
  assert.equal(grpcGetTaskMethod('1.1'), '/lf.a2a.v1.A2AService/GetTask');
});

test('a card declaring 1.1 and 2.0: 1.1 is eligible, 2.0 is UnsupportedProtocolVersion', () => {
  const card = parseCard({
    name: 'next',
    supportedInterfaces: [
      { url: 'http://a:8080/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.1' },
      { url: 'http://a:8080/a2a', protocolBinding: 'JSONRPC', protocolVersion: '2.0' },
    ],
  });
  assert.ok(!(card instanceof CardParseError));
  const [one, two] = interfaceEligibility(card);
  assert.equal(one!.eligible, true);
  assert.equal(two!.eligible, false);
  assert.equal(two!.reason, 'UnsupportedProtocolVersion');
});

test('a 1.1 JSON-RPC interface is probed with A2A-Version 1.1: TaskNotFound is Verified, VersionNotSupported is reported', async () => {
  const seen: { version: string | undefined; method: string }[] = [];
  let serves11 = true;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const rpc = JSON.parse(body) as { id: string; method: string };
      const version = req.headers['a2a-version'] as string | undefined;
      seen.push({ version, method: rpc.method });
      const error =
        version === '1.1' && !serves11
          ? { code: -32009, message: 'version 1.1 not supported' }
          : { code: -32001, message: 'task not found' };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error }));
    });
  });
  const port = await listen(server);
  const prober = new Prober();
  const iface = {
    url: `http://agent.internal:${port}/a2a`,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.1',
    index: 0,
    declaredAt: 'supportedInterfaces[0]',
  };
  try {
    const ok = await prober.probe({ address: '127.0.0.1', port }, iface, { timeoutMs: 5000 });
    assert.equal(ok.state, InterfaceState.Verified, ok.message);
    serves11 = false;
    const no = await prober.probe({ address: '127.0.0.1', port }, iface, { timeoutMs: 5000 });
    assert.equal(no.state, InterfaceState.VersionNotSupported, no.message);
    assert.deepEqual(seen, [
      { version: '1.1', method: 'GetTask' },
      { version: '1.1', method: 'GetTask' },
    ]);
  } finally {
    await prober.close();
    server.close();
  }
});
