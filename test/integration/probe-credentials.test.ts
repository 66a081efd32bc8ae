// The probe layer itself (used by the operator and the CLI) never lets a token into a message:
// a token HTTP or gRPC clients would refuse is not dialled (grpc-js would quote it whole), and an
// agent that echoes request headers in its errors (real SDK agent, JSON-RPC, REST and gRPC) gets
// its answers classified with the token cut out.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CardInterface } from '../../src/card/parsed-card.js';
import { Prober } from '../../src/probe/index.js';
import { startAgent, type RunningAgent } from '../agents/start-agent.js';

const TOKEN = 'PROBECANARY4d2e-valid-token';
let agent: RunningAgent;
let prober: Prober;

function interfaces(a: RunningAgent): [number, CardInterface][] {
  const mk = (url: string, protocolBinding: string, index: number): CardInterface => ({
    url,
    protocolBinding,
    protocolVersion: '1.0',
    index,
    declaredAt: `supportedInterfaces[${index}]`,
  });
  return [
    [a.ports.http!, mk(`http://agent.internal:${a.ports.http}/a2a/jsonrpc`, 'JSONRPC', 0)],
    [a.ports.http!, mk(`http://agent.internal:${a.ports.http}/a2a/rest`, 'HTTP+JSON', 1)],
    [a.ports.grpc!, mk(`http://agent.internal:${a.ports.grpc}`, 'GRPC', 2)],
  ];
}

before(async () => {
  agent = await startAgent({ grpc: {}, echoHeaders: true });
  prober = new Prober({ concurrency: 4 });
});

after(async () => {
  await prober.close();
  await agent.close();
});

for (const [what, token] of [
  ['a tab', 'TABPROBE9c1\tsecond-half'],
  ['a non-ASCII character', 'NONASCIIPROBE77-\u00e9t\u00e9'],
  ['a newline inside', 'NLPROBE31\r\nx-injected: 1'],
] as const) {
  test(`a token with ${what} is not dialled, and no message quotes it`, async () => {
    const before = agent.authorizations.length;
    for (const [port, i] of interfaces(agent)) {
      const r = await prober.probe({ address: '127.0.0.1', port }, i, {
        timeoutMs: 2000,
        bearerToken: token,
      });
      assert.equal(r.state, 'Ineligible', `${i.protocolBinding}: ${r.message}`);
      assert.match(r.message, /only visible ASCII characters can be sent/);
      assert.equal(r.message.includes(token.slice(0, 9)), false, r.message);
    }
    assert.equal(agent.authorizations.length, before, 'nothing was sent');
  });
}

test('an agent echoing the Authorization header: answers classified, token cut out', async () => {
  for (const [port, i] of interfaces(agent)) {
    const r = await prober.probe({ address: '127.0.0.1', port }, i, { timeoutMs: 2000, bearerToken: TOKEN });
    assert.equal(r.state, 'Inconclusive', `${i.protocolBinding}: ${r.message}`);
    assert.match(r.message, /authorization=Bearer \[redacted\]/, r.message);
    assert.equal(JSON.stringify(r).includes('PROBECANARY4d2e'), false, JSON.stringify(r));
  }
  assert.ok(agent.authorizations.includes(`Bearer ${TOKEN}`), 'the token itself was sent');
});
