/**
 * `a2a-operator check --output junit|github` run as a subprocess against a real SDK agent whose
 * card declares one served interface, one at a path that is not served, one gRPC interface on
 * the HTTP port, and hostile text in a tenant. The outputs are read as a CI system reads them
 * (fast-xml-parser; the Actions runner's command parsing) and agree with `--output json`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { startAgent, type RunningAgent } from '../agents/start-agent.js';
import { runCli } from '../harness/cli.js';

const HOSTILE = 't\u001b[31m\r\n::error title=forged::pwned\u202e';

interface CheckJson {
  findings: { reason: string }[];
  interfaces: { protocolBinding: string; url: string; state: string }[];
}

const agents: RunningAgent[] = [];
after(async () => {
  for (const a of agents) await a.close();
});

async function agent(): Promise<RunningAgent> {
  const a = await startAgent({
    card: {
      serve: 'json',
      json: {
        name: 'formats',
        supportedInterfaces: [
          {
            url: 'http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc',
            protocolBinding: 'JSONRPC',
            protocolVersion: '1.0',
          },
          {
            url: 'http://127.0.0.1:{{HTTP_PORT}}/not/served',
            protocolBinding: 'HTTP+JSON',
            protocolVersion: '1.0',
            tenant: HOSTILE,
          },
          { url: 'http://127.0.0.1:{{HTTP_PORT}}', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        ],
      },
    },
  });
  agents.push(a);
  return a;
}

/** The V2 workflow commands of the output, as the runner parses them (see test/unit/check-output-github.test.ts). */
function commands(out: string): { name: string; props: Record<string, string>; data: string }[] {
  return out
    .split(/\r\n|\r|\n/)
    .filter((l) => l !== '')
    .map((l) => {
      const m = l.trimStart();
      assert.ok(m.startsWith('::'), `not a command: ${JSON.stringify(l)}`);
      const end = m.indexOf('::', 2);
      assert.ok(end > 0, l);
      const info = m.slice(2, end);
      const space = info.indexOf(' ');
      const props: Record<string, string> = {};
      for (const p of info.slice(space + 1).split(',')) {
        const eq = p.indexOf('=');
        if (eq > 0) props[p.slice(0, eq)] = decodeURIComponent(p.slice(eq + 1));
      }
      return { name: info.slice(0, space), props, data: decodeURIComponent(m.slice(end + 2)) };
    });
}

void test('junit and github agree with json: a testcase per interface, an error per failure', async () => {
  const a = await agent();
  const base = `http://127.0.0.1:${a.ports.http}`;
  const json = await runCli(['check', base, '--output', 'json']);
  assert.equal(json.code, 1, json.stderr);
  const report = JSON.parse(json.stdout) as CheckJson;
  const failing = report.interfaces.filter((i) => i.state !== 'Verified');
  assert.deepEqual(
    report.interfaces.map((i) => i.state === 'Verified'),
    [true, false, false],
  );

  const junit = await runCli(['check', base, '--output', 'junit']);
  assert.equal(junit.code, 1, junit.stderr);
  assert.equal(XMLValidator.validate(junit.stdout), true);
  const doc = new XMLParser({
    ignoreAttributes: false,
    isArray: (n) => ['testsuite', 'testcase', 'failure'].includes(n),
  }).parse(junit.stdout) as {
    testsuites: {
      testsuite: {
        testcase: { '@_classname': string; '@_name': string; failure?: { '@_type': string }[] }[];
      }[];
    };
  };
  const cases = doc.testsuites.testsuite[0]!.testcase.filter((c) =>
    c['@_classname'].startsWith('interface.'),
  );
  assert.equal(cases.length, report.interfaces.length);
  assert.deepEqual(
    cases.filter((c) => c.failure).map((c) => c.failure![0]!['@_type']),
    failing.map((i) => i.state),
  );
  assert.ok(!junit.stdout.includes('\u001b'), 'no raw ESC');

  const gh = await runCli(['check', base, '--output', 'github']);
  assert.equal(gh.code, 1, gh.stderr);
  const cmds = commands(gh.stdout);
  assert.equal(cmds.length, failing.length + report.findings.length, gh.stdout);
  assert.ok(cmds.every((c) => c.name === 'error'));
  for (const i of failing)
    assert.ok(
      cmds.some(
        (c) => c.props.title?.includes(`${i.protocolBinding} interface`) && c.props.title.endsWith(i.state),
      ),
      `${i.protocolBinding} ${i.state}`,
    );
  assert.ok(!cmds.some((c) => c.props.title === 'forged'));
});

void test('--card file: every annotation names the file', async () => {
  const a = await agent();
  const base = `http://127.0.0.1:${a.ports.http}`;
  const card = await (await fetch(`${base}/.well-known/agent-card.json`)).text();
  const dir = mkdtempSync(join(tmpdir(), 'a2a-check-formats-'));
  const file = join(dir, 'card,v1.json');
  writeFileSync(file, card);
  const gh = await runCli(['check', '--card', file, base, '--output', 'github']);
  assert.equal(gh.code, 1, gh.stderr);
  const cmds = commands(gh.stdout);
  assert.ok(cmds.length >= 2);
  for (const c of cmds) assert.equal(c.props.file, file);
});
