/**
 * Auth required on every binding, judged by `a2a-operator check` against agents on both runtimes:
 * the JS SDK's agent rejects JSON-RPC with HTTP 401, a2a-go's with HTTP 200 and the custom code
 * -31401 (spec v1.0 §3.3.2 allows both). The verdicts are the same: AuthRequired on every
 * interface without a token (exit 1), Verified on every interface with it (exit 0).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../harness/cli.js';
import { RUNTIMES, startLocalAgent, type LocalAgent } from '../harness/local-agent.js';

interface CheckJson {
  interfaces: {
    protocolBinding: string;
    state: string;
    reason: string;
  }[];
}

const agents: LocalAgent[] = [];
after(async () => {
  for (const a of agents) await a.close();
});

for (const rt of RUNTIMES) {
  void test(`[${rt}] auth required: AuthRequired on JSONRPC, HTTP+JSON and GRPC without a token, Verified with it`, async () => {
    const a = await startLocalAgent(rt, { grpc: {}, authToken: 's3cret' });
    agents.push(a);
    const base = `http://127.0.0.1:${a.ports.http}`;
    // gRPC listens on another port of the same host: check dials it only when allowed.
    const allow = ['--allow-port', String(a.ports.grpc)];
    const none = await runCli(['check', base, ...allow, '--output', 'json']);
    assert.equal(none.code, 1, none.stdout + none.stderr);
    const json = JSON.parse(none.stdout) as CheckJson;
    assert.deepEqual(
      json.interfaces.map((i) => `${i.protocolBinding}=${i.state}/${i.reason}`),
      [
        'JSONRPC=AuthRequired/InterfaceAuthRequired',
        'HTTP+JSON=AuthRequired/InterfaceAuthRequired',
        'GRPC=AuthRequired/InterfaceAuthRequired',
      ],
    );
    const withToken = await runCli(['check', base, ...allow, '--token', 's3cret', '--output', 'json']);
    assert.equal(withToken.code, 0, withToken.stdout + withToken.stderr);
    assert.deepEqual(
      (JSON.parse(withToken.stdout) as CheckJson).interfaces.map((i) => i.state),
      ['Verified', 'Verified', 'Verified'],
    );
  });
}
