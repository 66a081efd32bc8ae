/**
 * `a2a-operator check` run as a subprocess, as a pipeline would, against real SDK agents on
 * loopback. Asserts exit codes and the exact JSON states and reasons.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../agents/start-agent.js';
import { createTestCa, type TestCa } from '../agents/test-certs.js';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { cwd: join(import.meta.dirname, '..', '..'), timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

interface CheckJson {
  consistent: boolean;
  card: { shape: string; digest: string };
  findings: { reason: string; message: string }[];
  interfaces: {
    url: string;
    protocolBinding: string;
    protocolVersion: string;
    state: string;
    reason: string;
    message: string;
  }[];
}

function rows(json: CheckJson): string[] {
  return json.interfaces.map(
    (i) => `${i.protocolBinding}@${i.url}@${i.protocolVersion}=${i.state}/${i.reason}`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'a2a-check-'));
let ca: TestCa;
const agents: RunningAgent[] = [];
async function agent(config: Parameters<typeof startAgent>[0]): Promise<RunningAgent> {
  const a = await startAgent(config);
  agents.push(a);
  return a;
}

before(() => {
  ca = createTestCa();
  writeFileSync(join(dir, 'ca.crt'), ca.caCert);
});
after(async () => {
  for (const a of agents) await a.close();
  ca.dispose();
});

void test('seed scenario: preferredTransport GRPC at the JSON-RPC url, unregistered gRPC on :9443', async () => {
  const cert = ca.issue(['agent.internal']);
  const seedCard = {
    name: 'seed-agent',
    protocolVersion: '0.3.0',
    url: 'https://agent.internal:8443',
    preferredTransport: 'GRPC',
    additionalInterfaces: [
      { url: 'https://agent.internal:8443', transport: 'JSONRPC' },
      { url: 'https://agent.internal:9443', transport: 'GRPC' },
    ],
  };
  const http = await agent({
    http: { tls: cert, jsonrpcPath: '/', restPath: null },
    legacyCompat: true,
    interfaces: [{ url: 'https://agent.internal:8443', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    card: { serve: 'json', json: seedCard },
  });
  const grpc = await agent({ http: false, grpc: { tls: cert, register: false } });
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
  assert.equal(r.code, 1, r.stderr);
  const json = JSON.parse(r.stdout) as CheckJson;
  assert.equal(json.consistent, false);
  assert.equal(json.card.shape, 'v0.3');
  assert.match(json.card.digest, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(
    json.findings.map((f) => f.reason),
    ['PreferredTransportMismatch'],
  );
  assert.deepEqual(rows(json), [
    'GRPC@https://agent.internal:8443@0.3=WrongBinding/WrongBinding',
    'JSONRPC@https://agent.internal:8443@0.3=Verified/Verified',
    'GRPC@https://agent.internal:9443@0.3=Unimplemented/InterfaceUnimplemented',
  ]);
  assert.match(json.interfaces[0]!.message, /refused ALPN h2/);
  assert.match(json.interfaces[2]!.message, /UNIMPLEMENTED/);
});

void test('healthy v1.0 agent on JSONRPC, HTTP+JSON and GRPC: exit 0, table output', async () => {
  const a = await agent({ grpc: {} });
  const json = await runCli(['check', `http://127.0.0.1:${a.ports.http}`, '--output', 'json']);
  assert.equal(json.code, 0, json.stdout + json.stderr);
  const parsed = JSON.parse(json.stdout) as CheckJson;
  assert.equal(parsed.consistent, true);
  assert.deepEqual(parsed.findings, []);
  assert.deepEqual(
    parsed.interfaces.map((i) => [i.protocolBinding, i.state]),
    [
      ['JSONRPC', 'Verified'],
      ['HTTP+JSON', 'Verified'],
      ['GRPC', 'Verified'],
    ],
  );
  const table = await runCli(['check', `http://127.0.0.1:${a.ports.http}`]);
  assert.equal(table.code, 0);
  assert.match(
    table.stdout,
    /^GRPC\s+1\.0\s+http:\/\/127\.0\.0\.1:\d+\s+Verified\s+gRPC NOT_FOUND TASK_NOT_FOUND$/m,
  );
});

void test('oversized card (chunked, > 1 MiB): exit 2 with CardTooLarge on stderr', async () => {
  const a = await agent({ card: { serve: 'oversized' } });
  const r = await runCli(['check', `http://127.0.0.1:${a.ports.http}`]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^a2a-operator check: CardTooLarge: .*1048576-byte limit/);
  assert.equal(r.stderr.trim().split('\n').length, 1);
});

void test('malformed card: exit 2 with CardInvalid', async () => {
  const a = await agent({ card: { serve: 'malformed' } });
  const r = await runCli(['check', `http://127.0.0.1:${a.ports.http}`]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /CardInvalid: .*not valid JSON/);
});

void test('gRPC URL with a path or credentials: Ineligible and never dialled', async () => {
  const a = await agent({
    hang: {},
    card: {
      serve: 'json',
      json: {
        name: 'x',
        supportedInterfaces: [
          {
            url: 'http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc',
            protocolBinding: 'JSONRPC',
            protocolVersion: '1.0',
          },
          { url: 'http://127.0.0.1:{{HANG_PORT}}/a2a/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          {
            url: 'https://probe:secret@127.0.0.1:{{HANG_PORT}}',
            protocolBinding: 'GRPC',
            protocolVersion: '1.0',
          },
        ],
      },
    },
  });
  const r = await runCli(['check', `http://127.0.0.1:${a.ports.http}`, '--output', 'json']);
  assert.equal(r.code, 1);
  const json = JSON.parse(r.stdout) as CheckJson;
  assert.deepEqual(
    json.interfaces.map((i) => i.state),
    ['Verified', 'Ineligible', 'Ineligible'],
  );
  assert.deepEqual(
    json.findings.map((f) => f.reason),
    ['InterfaceURLInvalid', 'InterfaceURLInvalid'],
  );
  assert.match(json.interfaces[1]!.message, /path, query or fragment.*not dialled/);
  assert.match(json.interfaces[2]!.message, /embeds credentials.*not dialled/);
  assert.doesNotMatch(r.stdout, /secret/);
  assert.equal(a.connections.hang, 0);
});

void test('a URL on another host is Unmapped and not dialled unless --connect-to maps it', async () => {
  const a = await agent({
    plain: {},
    card: {
      serve: 'json',
      json: {
        name: 'x',
        supportedInterfaces: [
          {
            url: 'http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc',
            protocolBinding: 'JSONRPC',
            protocolVersion: '1.0',
          },
          {
            url: 'http://metadata.internal:{{PLAIN_PORT}}/rpc',
            protocolBinding: 'JSONRPC',
            protocolVersion: '1.0',
          },
        ],
      },
    },
  });
  const r = await runCli(['check', `http://127.0.0.1:${a.ports.http}`, '--output', 'json']);
  assert.equal(r.code, 1);
  const json = JSON.parse(r.stdout) as CheckJson;
  assert.deepEqual(
    json.interfaces.map((i) => i.state),
    ['Verified', 'Unmapped'],
  );
  assert.match(json.interfaces[1]!.message, /--connect-to metadata\.internal:\d+:ADDRESS:PORT/);
  assert.equal(a.connections.plain, 0);
  const mapped = await runCli([
    'check',
    `http://127.0.0.1:${a.ports.http}`,
    '--connect-to',
    `metadata.internal::127.0.0.1:`,
    '--output',
    'json',
  ]);
  const mappedJson = JSON.parse(mapped.stdout) as CheckJson;
  assert.equal(mappedJson.interfaces[1]!.state, 'WrongBinding');
  assert.equal(a.connections.plain, 1);
});

void test('--card <file> with --connect-to, and usage errors exit 2', async () => {
  const a = await agent({});
  const file = join(dir, 'card.json');
  writeFileSync(
    file,
    JSON.stringify({
      supportedInterfaces: [
        { url: 'http://agent.internal:8080/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    }),
  );
  const ok = await runCli([
    'check',
    '--card',
    file,
    '--connect-to',
    `agent.internal:8080:127.0.0.1:${a.ports.http}`,
  ]);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  for (const args of [
    ['check'],
    ['check', 'not a url'],
    ['check', 'http://h', '--connect-to', 'nonsense'],
    ['check', 'http://h', '--output', 'yaml'],
    ['check', 'http://h', '--token', 'a', '--token-file', 'b'],
    ['nope'],
  ]) {
    const r = await runCli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /usage: a2a-operator/);
  }
});
