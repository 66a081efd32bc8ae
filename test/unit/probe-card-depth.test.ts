// Regression (found by test/faults/hostile-agents.test.ts): a card nested 100,000 arrays deep made
// every reconcile of its agent throw "Maximum call stack size exceeded" (canonical JSON,
// JSON.stringify), so its status never said why. fetchCard now rejects it as CardInvalid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exceedsDepth } from '../../src/probe/json-depth.js';
import { fetchCard, MAX_CARD_DEPTH } from '../../src/probe/fetch-card.js';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

const iface = { url: 'http://a:8080/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' };

void test('a card nested deeper than the limit is CardInvalid, not a stack overflow; a normal one passes', async () => {
  const deep = 100_000;
  const nested = `{"name":"n","supportedInterfaces":[${JSON.stringify(iface)}],"x":${'['.repeat(deep)}${']'.repeat(deep)}}`;
  const shallow = JSON.stringify({
    name: 'n',
    supportedInterfaces: [iface],
    skills: [{ examples: [['a']] }],
  });
  let body = nested;
  const server = createHttpServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(body),
  );
  const port = await listen(server);
  try {
    const opts = {
      address: '127.0.0.1',
      port,
      scheme: 'http' as const,
      path: '/',
      hostHeader: 'a',
      timeoutMs: 5000,
    };
    const res = await fetchCard(opts);
    assert.equal(res.kind, 'error');
    assert.equal(res.kind === 'error' && res.error.reason, 'CardInvalid');
    assert.match(
      res.kind === 'error' ? res.error.message : '',
      new RegExp(`deeper than ${MAX_CARD_DEPTH} levels`),
    );
    body = shallow;
    assert.equal((await fetchCard(opts)).kind, 'ok');
  } finally {
    server.close();
  }
});

void test('exceedsDepth counts objects and arrays, not scalars, without recursion', () => {
  assert.equal(exceedsDepth('x', 0), false);
  assert.equal(exceedsDepth({ a: [1] }, 2), false);
  assert.equal(exceedsDepth({ a: [{}] }, 2), true);
  assert.equal(exceedsDepth(JSON.parse(`${'['.repeat(500_000)}${']'.repeat(500_000)}`), 64), true);
});
