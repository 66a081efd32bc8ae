/**
 * The seed scenario (a v0.3 card that prefers GRPC at its JSON-RPC url, and an unregistered gRPC
 * service on :9443) judged by `a2a-operator check` run as a subprocess, with the agents on each
 * runtime: @a2a-js/sdk (`js`) and the official a2a-go SDK (`go`, test/agents/go). One expectation
 * table, two runtimes: the verdicts must not depend on the SDK the agent is written with.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestCa, type TestCa } from '../agents/test-certs.js';
import type { CheckReport } from '../../src/cli/check/check-report.js';
import { runCli } from '../harness/cli.js';
import { seedCard } from '../harness/manifests.js';
import { RUNTIMES, startLocalAgent, type LocalAgent, type Runtime } from '../harness/local-agent.js';

/** The expectation table, the same for both runtimes. */
const EXPECTED = {
  code: 1,
  shape: 'v0.3',
  findings: ['PreferredTransportMismatch'],
  rows: [
    'GRPC@https://agent.internal:8443@0.3=WrongBinding/WrongBinding',
    'JSONRPC@https://agent.internal:8443@0.3=Verified/Verified',
    'GRPC@https://agent.internal:9443@0.3=Unimplemented/InterfaceUnimplemented',
  ],
};

/**
 * Why GRPC@8443 is WrongBinding differs on the wire, and both are within the spec (TLS ALPN is
 * not an A2A matter): node:https offers only http/1.1, so the gRPC dial is refused h2; Go's
 * net/http offers h2 too, so the gRPC call reaches the JSON-RPC handler over HTTP/2 and is
 * answered without a gRPC status.
 */
const WRONG_BINDING_MESSAGE: Record<Runtime, RegExp> = {
  js: /refused ALPN h2/,
  go: /HTTP\/2 server answered without a gRPC status/,
};

const dir = mkdtempSync(join(tmpdir(), 'a2a-seed-'));
let ca: TestCa;
const agents: LocalAgent[] = [];

before(() => {
  ca = createTestCa();
  writeFileSync(join(dir, 'ca.crt'), ca.caCert);
});
after(async () => {
  for (const a of agents) await a.close();
  ca.dispose();
  rmSync(dir, { recursive: true, force: true });
});

for (const rt of RUNTIMES) {
  void test(`[${rt}] seed scenario: PreferredTransportMismatch, GRPC@8443 WrongBinding, JSONRPC@8443 Verified, GRPC@9443 Unimplemented, exit 1`, async () => {
    const cert = ca.issue(['agent.internal']);
    const http = await startLocalAgent(rt, {
      http: { tls: cert, jsonrpcPath: '/', restPath: null },
      legacyCompat: true,
      interfaces: [
        { url: 'https://agent.internal:8443', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      card: { serve: 'json', json: seedCard },
    });
    agents.push(http);
    const grpc = await startLocalAgent(rt, { http: false, grpc: { tls: cert, register: false } });
    agents.push(grpc);
    const r = await runCli([
      'check',
      'https://agent.internal:8443',
      '--connect-to',
      `agent.internal:8443:127.0.0.1:${http.ports.http}`,
      '--connect-to',
      `agent.internal:9443:127.0.0.1:${grpc.ports.grpc}`,
      '--cacert',
      join(dir, 'ca.crt'),
      '--output',
      'json',
    ]);
    assert.equal(r.code, EXPECTED.code, r.stderr);
    const json = JSON.parse(r.stdout) as CheckReport;
    assert.equal(json.consistent, false);
    assert.equal(json.card.shape, EXPECTED.shape);
    assert.match(json.card.digest, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(
      json.findings.map((f) => f.reason),
      EXPECTED.findings,
    );
    assert.deepEqual(
      json.interfaces.map((i) => `${i.protocolBinding}@${i.url}@${i.protocolVersion}=${i.state}/${i.reason}`),
      EXPECTED.rows,
    );
    assert.match(json.interfaces[0]!.message, WRONG_BINDING_MESSAGE[rt]);
    assert.match(json.interfaces[2]!.message, /UNIMPLEMENTED/);
  });
}
