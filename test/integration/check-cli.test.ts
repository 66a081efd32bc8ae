/**
 * `a2a-operator check` run as a subprocess, as a pipeline would, against real SDK agents on
 * loopback. Asserts exit codes and the exact JSON states and reasons.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type RunningAgent } from '../agents/start-agent.js';
import type { CheckReport } from '../../src/cli/check/check-report.js';
import { runCheck } from '../../src/cli/check/run-check.js';
import { runCli, runCliTimed } from '../harness/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-check-'));
const agents: RunningAgent[] = [];
async function agent(config: Parameters<typeof startAgent>[0]): Promise<RunningAgent> {
  const a = await startAgent(config);
  agents.push(a);
  return a;
}
after(async () => {
  for (const a of agents) await a.close();
  rmSync(dir, { recursive: true, force: true });
});

type Iface = { url: string; protocolBinding: string; protocolVersion: string };
const jsonrpc = (url: string): Iface => ({ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
const rest = (url: string): Iface => ({ url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' });
const grpc = (url: string): Iface => ({ url, protocolBinding: 'GRPC', protocolVersion: '1.0' });

/** An agent serving a card named `x` that declares `interfaces` (placeholders such as {{HTTP_PORT}} allowed). */
function cardAgent(
  interfaces: Iface[],
  listeners: Omit<Parameters<typeof startAgent>[0], 'card'> = {},
): Promise<RunningAgent> {
  return agent({
    ...listeners,
    card: { serve: 'json', json: { name: 'x', supportedInterfaces: interfaces } },
  });
}

const parseReport = (stdout: string): CheckReport => JSON.parse(stdout) as CheckReport;

void test('healthy v1.0 agent on JSONRPC, HTTP+JSON and GRPC: exit 0, table output', async () => {
  const a = await agent({ grpc: {} });
  // gRPC listens on another port of the same host: dialled only because --allow-port names it.
  const allow = ['--allow-port', String(a.ports.grpc)];
  const json = await runCli(['check', `http://127.0.0.1:${a.ports.http}`, ...allow, '--output', 'json']);
  assert.equal(json.code, 0, json.stdout + json.stderr);
  const parsed = parseReport(json.stdout);
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
  const table = await runCli(['check', `http://127.0.0.1:${a.ports.http}`, ...allow]);
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
  const a = await cardAgent(
    [
      jsonrpc('http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc'),
      grpc('http://127.0.0.1:{{HANG_PORT}}/a2a/grpc'),
      grpc('https://probe:secret@127.0.0.1:{{HANG_PORT}}'),
    ],
    { hang: {} },
  );
  const r = await runCli(['check', `http://127.0.0.1:${a.ports.http}`, '--output', 'json']);
  assert.equal(r.code, 1);
  const json = parseReport(r.stdout);
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
  const a = await cardAgent(
    [
      jsonrpc('http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc'),
      jsonrpc('http://metadata.internal:{{PLAIN_PORT}}/rpc'),
    ],
    { plain: {} },
  );
  const r = await runCli(['check', `http://127.0.0.1:${a.ports.http}`, '--output', 'json']);
  assert.equal(r.code, 1);
  const json = parseReport(r.stdout);
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
  const mappedJson = parseReport(mapped.stdout);
  assert.equal(mappedJson.interfaces[1]!.state, 'WrongBinding');
  assert.equal(a.connections.plain, 1);
});

void test('--card <file> with --connect-to, and usage errors exit 2', async () => {
  const a = await agent({});
  const file = join(dir, 'card.json');
  writeFileSync(
    file,
    JSON.stringify({
      supportedInterfaces: [rest('http://agent.internal:8080/a2a/rest')],
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

/** No ESC (nor any other C0/C1 control but newline), and no line a CI runner reads as a workflow command. */
function assertTerminalSafe(text: string, what: string): void {
  // eslint-disable-next-line no-control-regex -- the point
  assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, `${what} has a control character`);
  assert.doesNotMatch(text, /^\s*::/m, `${what} has a workflow command line`);
}

void test('other ports of the base host are not dialled (canaries see 0 connections) unless --allow-port names them', async () => {
  const a = await cardAgent(
    [
      jsonrpc('http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc'),
      jsonrpc('http://127.0.0.1:{{PLAIN_PORT}}/containers/prune?force=1'),
      grpc('http://127.0.0.1:{{HANG_PORT}}'),
    ],
    { plain: {}, hang: {} },
  );
  const base = `http://127.0.0.1:${a.ports.http}`;
  const r = await runCli(['check', base, '--token', 'canary-token-1', '--output', 'json']);
  assert.equal(r.code, 1, r.stderr);
  const json = parseReport(r.stdout);
  assert.deepEqual(
    json.interfaces.map((i) => i.state),
    ['Verified', 'Ineligible', 'Ineligible'],
  );
  assert.match(json.interfaces[1]!.message, new RegExp(`--allow-port ${a.ports.plain}`));
  assert.match(json.interfaces[2]!.message, new RegExp(`--allow-port ${a.ports.hang}`));
  assert.deepEqual([a.connections.plain, a.connections.hang], [0, 0]);

  const allowed = await runCli(['check', base, '--allow-port', String(a.ports.plain), '--output', 'json']);
  const allowedJson = parseReport(allowed.stdout);
  assert.equal(allowedJson.interfaces[1]!.state, 'WrongBinding');
  assert.equal(allowedJson.interfaces[2]!.state, 'Ineligible');
  assert.ok(a.connections.plain >= 1);
  assert.equal(a.connections.hang, 0);
});

void test('interfaces past the 64th are never dialled, and their credentials are redacted', async () => {
  const a = await cardAgent(
    [
      ...Array.from({ length: 64 }, () => jsonrpc('http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc')),
      ...Array.from({ length: 6 }, (_, i) =>
        jsonrpc(`http://u:past64pw${i}@127.0.0.1:{{PLAIN_PORT}}/rpc?token=past64tok${i}`),
      ),
    ],
    { plain: {} },
  );
  const args = ['check', `http://127.0.0.1:${a.ports.http}`, '--allow-port', String(a.ports.plain)];
  const r = await runCli([...args, '--output', 'json']);
  assert.equal(r.code, 1, r.stderr);
  const json = parseReport(r.stdout);
  assert.equal(json.interfaces.length, 70);
  assert.deepEqual(
    json.interfaces.slice(64).map((i) => i.state),
    Array(6).fill('Ineligible'),
  );
  assert.match(json.interfaces[69]!.message, /#70 is past the 64/);
  assert.equal(a.connections.plain, 0);
  const table = await runCli(args);
  for (const out of [r.stdout + r.stderr, table.stdout + table.stderr]) {
    assert.doesNotMatch(out, /past64pw|past64tok/);
  }
  assert.match(table.stdout, /http:\/\/\*\*\*@127\.0\.0\.1:\d+\/rpc\?token=\*\*\*/);
});

void test('ANSI escapes and ::error:: workflow commands in a card never reach stdout raw', async () => {
  const esc = '\u001b[31m';
  const a = await agent({
    card: {
      serve: 'json',
      json: {
        name: `${esc}evil\n::error::name`,
        supportedInterfaces: [
          jsonrpc('http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc'),
          jsonrpc(`http://127.0.0.1:{{HTTP_PORT}}/x${esc}\n::error::in-url`),
          {
            url: 'http://127.0.0.1:{{HTTP_PORT}}/y',
            protocolBinding: `::error::binding${esc}`,
            protocolVersion: '1.0',
          },
          {
            url: 'http://127.0.0.1:{{HTTP_PORT}}/z',
            protocolBinding: 'JSONRPC',
            protocolVersion: `1.0\n::warning::v`,
          },
          jsonrpc(`not a url\r\n::error title=x::${esc}2J`),
        ],
      },
    },
  });
  const base = `http://127.0.0.1:${a.ports.http}`;
  const table = await runCli(['check', base]);
  assert.equal(table.code, 1, table.stderr);
  assertTerminalSafe(table.stdout, 'table stdout');
  assertTerminalSafe(table.stderr, 'table stderr');
  assert.match(table.stdout, /\\u\{1b\}\[31m/);
  const json = await runCli(['check', base, '--output', 'json']);
  assert.equal(json.code, 1, json.stderr);
  assertTerminalSafe(json.stdout, 'json stdout');
  assert.equal(parseReport(json.stdout).interfaces[2]!.protocolBinding, `::error::binding${esc}`);

  // The same card as a file, and a base URL that quotes control characters in an error.
  const file = join(dir, 'ansi-card.json');
  writeFileSync(
    file,
    JSON.stringify({ name: `${esc}x`, supportedInterfaces: [jsonrpc(`http://h:1/${esc}\n::error::f`)] }),
  );
  const fromFile = await runCli(['check', '--card', file]);
  assert.equal(fromFile.code, 1, fromFile.stderr);
  assertTerminalSafe(fromFile.stdout + fromFile.stderr, '--card output');
  const badArg = await runCli(['check', `http://h/\n::error::arg${esc}`, '--output', 'yaml']);
  assert.equal(badArg.code, 2);
  assertTerminalSafe(badArg.stderr.split('\nusage:')[0]!, 'usage error');
});

void test('a token with a tab or a non-ASCII byte: exit 2, its bytes nowhere in the output, nothing dialled', async () => {
  const a = await agent({});
  const base = `http://127.0.0.1:${a.ports.http}`;
  const before = a.connections.http;
  const tokens = ['tab\tSECRETtok3n', 'n\u00f6nascii-SECRETtok3n', 'SECRETtok3n\u0001ctl'];
  for (const token of tokens) {
    for (const args of [
      ['check', base, '--token', token],
      ['check', base, `--token=${token}`, '--output', 'json'],
    ]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, JSON.stringify(args));
      assert.match(r.stderr, /--token: the bearer token contains/);
      assert.doesNotMatch(r.stdout + r.stderr, /SECRETtok3n/);
    }
    const file = join(dir, 'token');
    writeFileSync(file, `${token}\n`);
    const r = await runCli(['check', base, '--token-file', file]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--token-file .*: the bearer token contains/);
    assert.doesNotMatch(r.stdout + r.stderr, /SECRETtok3n/);
  }
  assert.equal(a.connections.http, before);
  // A valid token is never printed, even when an argument error quotes the arguments.
  const r = await runCli(['check', base, '--token', 'valid-SECRETtok3n', '--bogus']);
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.stdout + r.stderr, /SECRETtok3n/);
});

void test('credentials in card URLs are redacted in table and JSON, dialled, ineligible and unmapped alike', async () => {
  const a = await cardAgent([
    jsonrpc('http://probe:hunter2pw@127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc?access_token=tok999zz'),
    rest('http://127.0.0.1:{{HTTP_PORT}}/a2a/rest?api_key=key777zz'),
    jsonrpc('http://user:unmappedpw@other.example:1/'),
    jsonrpc('http://other.example:1/?sig=sig555zz#access_token=frag444zz'),
    grpc('grpc://gu:grpcpw@127.0.0.1:1'),
  ]);
  const base = `http://127.0.0.1:${a.ports.http}`;
  const table = await runCli(['check', base]);
  const json = await runCli(['check', base, '--output', 'json']);
  for (const r of [table, json]) {
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(
      r.stdout + r.stderr,
      /hunter2pw|tok999zz|key777zz|unmappedpw|sig555zz|frag444zz|grpcpw/,
    );
  }
  const parsed = parseReport(json.stdout);
  assert.equal(parsed.interfaces[1]!.url, `http://127.0.0.1:${a.ports.http}/a2a/rest?api_key=***`);
  assert.deepEqual(
    parsed.interfaces.map((i) => i.state),
    ['Ineligible', 'Verified', 'Ineligible', 'Unmapped', 'Ineligible'],
  );
  assert.equal(parsed.interfaces[3]!.url, 'http://other.example:1/?sig=***#access_token=***');
  // Credentials in the base URL are refused without being echoed.
  const r = await runCli(['check', `http://u:basepw99@127.0.0.1:${a.ports.http}/?token=basetok99`]);
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.stdout + r.stderr, /basepw99|basetok99/);
});

void test('--card files: 1e400, oversized, grows when written back, nested too deep: CardInvalid/CardTooLarge, exit 2, no stack trace', async () => {
  const iface = jsonrpc('http://agent.internal:1/');
  const files: [string, string, RegExp][] = [
    ['huge-number.json', `{"supportedInterfaces":[${JSON.stringify(iface)}],"x":1e400}`, /CardInvalid/],
    [
      'huge-number-in-url.json',
      `{"supportedInterfaces":[{"url":"http://h:1/","protocolBinding":"JSONRPC","protocolVersion":1e400}]}`,
      /CardInvalid/,
    ],
    [
      'oversized.json',
      `{"supportedInterfaces":[${JSON.stringify(iface)}],"pad":"${'x'.repeat(1024 * 1024)}"}`,
      /CardTooLarge: .*1048576-byte/,
    ],
    [
      // Under 1 MiB as written in the file, 4.4 MiB as the operator would publish it.
      'grows.json',
      `{"supportedInterfaces":[${JSON.stringify(iface)}],"n":[${Array(200_000).fill('1e20').join(',')}]}`,
      /CardTooLarge: .*grows\.json: the card takes \d+ bytes written back as JSON \(\d+ as read.*the 1048576-byte card limit less room/,
    ],
    ['deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, /CardInvalid: .*deeper than 64/],
    [
      'deep-object.json',
      `{"supportedInterfaces":[${JSON.stringify(iface)}],"x":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
      /CardInvalid/,
    ],
  ];
  for (const [name, text, want] of files) {
    const file = join(dir, name);
    writeFileSync(file, text);
    const r = await runCli(['check', '--card', file]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, want, name);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, name);
    assert.equal(r.stderr.trim().split('\n').length, 1, name);
    assert.equal(r.stdout, '');
  }
});

void test('--deadline: a hanging interface is reported Timeout by the deadline, and a hanging card fetch exits 2', async () => {
  const a = await cardAgent(
    [
      jsonrpc('http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc'),
      jsonrpc('http://127.0.0.1:{{HANG_PORT}}/rpc'),
      grpc('http://127.0.0.1:{{HANG_PORT}}'),
    ],
    { hang: {} },
  );
  const { result: r, ms } = await runCliTimed([
    'check',
    `http://127.0.0.1:${a.ports.http}`,
    '--allow-port',
    String(a.ports.hang),
    '--timeout',
    '120s',
    '--deadline',
    '3',
    '--output',
    'json',
  ]);
  assert.equal(r.code, 1, r.stderr);
  const json = parseReport(r.stdout);
  assert.deepEqual(
    json.interfaces.map((i) => `${i.state}/${i.reason}`),
    ['Verified/Verified', 'Timeout/Timeout', 'Timeout/Timeout'],
  );
  assert.match(json.interfaces[1]!.message, /--deadline of 3s passed/);
  // Generous: the per-request timeout (120 s) must not be what ended the run.
  assert.ok(ms < 60_000, `${ms} ms`);

  const { result: card, ms: cardMs } = await runCliTimed([
    'check',
    `http://127.0.0.1:${a.ports.hang}`,
    '--timeout',
    '120',
    '--deadline',
    '2',
  ]);
  assert.equal(card.code, 2, card.stderr);
  assert.match(card.stderr, /CardFetchFailed: the --deadline of 2s passed before the card was fetched/);
  assert.ok(cardMs < 60_000, `${cardMs} ms`);
});

void test('a base URL naming a host: resolved once, dialled at that address with the name kept', async () => {
  const a = await agent({
    card: {
      serve: 'json',
      json: { name: 'x', supportedInterfaces: [jsonrpc('http://localhost:{{HTTP_PORT}}/a2a/jsonrpc')] },
    },
  });
  const r = await runCli(['check', `http://localhost:${a.ports.http}`, '--output', 'json']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const json = parseReport(r.stdout);
  assert.equal(json.interfaces[0]!.state, 'Verified');
  assert.match(
    json.interfaces[0]!.message,
    /http:\/\/localhost:\d+\/a2a\/jsonrpc \(dialled 127\.0\.0\.1:\d+\)/,
  );
});

void test('no DNS rebinding between probes: the card fetch and every probe use the one address resolved first', async () => {
  const a = await cardAgent(
    [
      jsonrpc('http://agent.test:{{HTTP_PORT}}/a2a/jsonrpc'),
      rest('http://agent.test:{{HTTP_PORT}}/a2a/rest'),
      grpc('http://agent.test:{{GRPC_PORT}}'),
    ],
    { grpc: {} },
  );
  // A resolver that answers the agent once, then an address where nothing listens.
  const asked: string[] = [];
  const report = await runCheck({
    baseUrl: new URL(`http://agent.test:${a.ports.http}`),
    connectTo: [],
    allowPorts: [a.ports.grpc!],
    timeoutMs: 5000,
    deadlineMs: 60_000,
    resolve: (host) => {
      asked.push(host);
      return Promise.resolve(asked.length === 1 ? '127.0.0.1' : '127.0.0.2');
    },
  });
  assert.deepEqual(asked, ['agent.test']);
  assert.deepEqual(
    report.interfaces.map((i) => i.state),
    ['Verified', 'Verified', 'Verified'],
  );
});
