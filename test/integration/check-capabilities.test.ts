/**
 * `a2a-operator check` and capability truth, on both runtimes: the JSON and table outputs name
 * each interface's capability states; `--capabilities enforce` turns a claim not served into
 * exit 1, the default (report) only reports it.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../harness/cli.js';
import { RUNTIMES, startLocalAgent, type LocalAgent } from '../harness/local-agent.js';

interface CheckJson {
  consistent: boolean;
  interfaces: {
    protocolBinding: string;
    state: string;
    capabilities?: { capability: string; declared: boolean; state: string; message: string }[];
  }[];
  capabilities: { mode: string; consistent: boolean };
}

const agents: LocalAgent[] = [];
after(async () => {
  for (const a of agents) await a.close();
});

for (const rt of RUNTIMES) {
  void test(`[${rt}] a card claiming streaming its server does not serve: reported, exit 1 only with --capabilities enforce`, async () => {
    const a = await startLocalAgent(rt, {
      grpc: {},
      capabilities: { streaming: true, pushNotifications: false },
      servedCapabilities: { streaming: false },
    });
    agents.push(a);
    const args = ['check', `http://127.0.0.1:${a.ports.http}`, '--allow-port', String(a.ports.grpc)];
    const report = await runCli([...args, '--output', 'json']);
    assert.equal(report.code, 0, report.stdout + report.stderr);
    const json = JSON.parse(report.stdout) as CheckJson;
    assert.equal(json.consistent, true);
    assert.deepEqual(json.capabilities, { mode: 'Report', consistent: false });
    assert.deepEqual(
      json.interfaces.map((i) => [
        i.protocolBinding,
        i.state,
        i.capabilities?.map((c) => `${c.capability}:${c.declared}=${c.state}`),
      ]),
      ['JSONRPC', 'HTTP+JSON', 'GRPC'].map((b) => [
        b,
        'Verified',
        ['streaming:true=NotServed', 'pushNotifications:false=Absent', 'extendedAgentCard:false=Absent'],
      ]),
    );
    assert.match(
      json.interfaces[0]!.capabilities![0]!.message,
      /SubscribeToTask answered 200 -32004 UNSUPPORTED_OPERATION: not served although the card claims streaming: true/,
    );

    const enforce = await runCli([...args, '--output', 'json', '--capabilities', 'enforce']);
    assert.equal(enforce.code, 1, enforce.stdout + enforce.stderr);
    assert.equal((JSON.parse(enforce.stdout) as CheckJson).consistent, false);

    const table = await runCli(args);
    assert.equal(table.code, 0);
    assert.match(
      table.stdout,
      /^ {2}GRPC 1\.0 http:\/\/127\.0\.0\.1:\d+: streaming=NotServed\(claimed\) pushNotifications=Absent\(not claimed\) extendedAgentCard=Absent\(not claimed\)$/m,
    );
    assert.match(table.stdout, /^ {2}NotServed: GRPC v1\.0 .*SubscribeToTask answered/m);
    assert.match(table.stdout, /reported only; --capabilities enforce fails on it/);

    const usage = await runCli([...args, '--capabilities', 'strict']);
    assert.equal(usage.code, 2);
  });
}
