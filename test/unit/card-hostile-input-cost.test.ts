// Regression: the trailing-slash regex `/\/+$/` (interface endpoints, static checks) is quadratic
// on a run of slashes; a card under 1 MiB blocked the event loop for minutes, on the leader and the
// standby alike. A property test over what the operator and the CLI do with a card (parse, static
// checks, interface mapping, digest), with a CPU budget per input: random cards built from long
// runs of every character a URL, binding or version can be made of. Fixed seed, bounded time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { A2AAgentSpec } from '../../src/api/a2aagent.js';
import {
  cardDigest,
  CardParseError,
  interfaceEndpoint,
  parseCard,
  staticChecks,
} from '../../src/card/index.js';
import { MAX_URL_BYTES, trimTrailingSlashes } from '../../src/card/interface-endpoint.js';
import { mapInterfaces, operatorCheckOptions } from '../../src/observation/interface-map.js';
import { redactUrlCredentials } from '../../src/text/redact-credentials.js';
import { seeded } from '../harness/seeded.js';

const SEED = 0xa2a_c0de;
/**
 * CPU time (user + system, not wall time: the machine may be busy) per input, for everything
 * `judge` does (four static checks, two mappings, a digest). Linear work on these cards measures
 * a few hundred ms at worst (a 300,000-character run of lone surrogates, escaped by the digest);
 * the old quadratic regex needed minutes.
 */
const BUDGET_MS = 2_000;
/** The whole property run stops after this, whatever the count (CI on a busy machine). */
const RUN_MS = 20_000;
const MAX_INPUTS = 400;

// Every character with a meaning in a URL, a host, a port, JSON or the regexes we had, plus
// whitespace, controls, bidi, surrogate halves and astral characters.
const SPECIALS = [
  '/',
  ':',
  '@',
  '[',
  ']',
  '.',
  '-',
  '_',
  '?',
  '#',
  '%',
  '\\',
  '+',
  '=',
  '&',
  '*',
  '(',
  ')',
  '{',
  '"',
  "'",
  '<',
  ' ',
  '\t',
  '\n',
  '\r',
  '\u0000',
  '\u007f',
  '\u00a0',
  '\u2028',
  '\u202e',
  '\ufeff',
  '0',
  '9',
  'a',
  'Z',
  'é',
  '\ud800',
  '\udc00',
  '😀',
  'localhost',
  '127.',
  'a:',
  ':1',
  '/.',
  '//',
  '@:',
];
const PREFIXES = [
  '',
  'http://',
  'https://',
  'http://h:8080',
  'https://h',
  'http://h:8080/',
  'h:',
  '[',
  '[::1',
  'http://[',
  'http://u:p@',
  'HTTP://H/',
  'grpc://h',
  'http://localhost',
  'https://a.ns.svc:8443/x',
  'a://',
  ' ',
];
const SUFFIXES = ['', 'a', '/', ':1', ':8080', '@h', 'x:1', '/a', ']:1', '?q', '#f', ' ', '%', '\ud800'];
const RUNS = [1, 7, 100, 4_096, MAX_URL_BYTES - 20, MAX_URL_BYTES + 1, 65_536, 300_000];

type Random = () => number;
const pick = <T>(r: Random, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

function hostileString(r: Random, budget: { left: number }): string {
  const special = pick(r, SPECIALS);
  let n = pick(r, RUNS);
  n = Math.max(1, Math.min(n, Math.floor(budget.left / special.length)));
  budget.left -= n * special.length;
  const run = special.repeat(n);
  // Sometimes two runs interleaved at the middle, which defeats a fix that only trims one end.
  const middle = r() < 0.3 ? pick(r, SPECIALS).repeat(Math.min(n, 1_000)) : '';
  return `${pick(r, PREFIXES)}${run}${middle}${pick(r, SUFFIXES)}`;
}

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC', 'grpc', ' jsonrpc '];
const VERSIONS = ['1.0', '0.3', '0.3.0', ' 1.0 '];

function hostileCard(r: Random): unknown {
  // Keep the JSON under the 1 MiB fetch limit (escapes can make a character six bytes).
  const budget = { left: 160_000 };
  const str = (usual: readonly string[]): string => (r() < 0.5 ? pick(r, usual) : hostileString(r, budget));
  const url = (): string => (r() < 0.8 ? hostileString(r, budget) : 'http://a.ns.svc:8080/rpc');
  const count = 1 + Math.floor(r() * 4);
  const v1 = Array.from({ length: count }, () => ({
    url: url(),
    protocolBinding: str(BINDINGS),
    protocolVersion: str(VERSIONS),
    ...(r() < 0.3 ? { tenant: str(['t']) } : {}),
  }));
  const legacy = {
    url: url(),
    protocolVersion: str(VERSIONS),
    preferredTransport: str(BINDINGS),
    additionalInterfaces: Array.from({ length: count }, () => ({ url: url(), transport: str(BINDINGS) })),
  };
  const shape = r();
  const card =
    shape < 0.5
      ? { name: 'h', supportedInterfaces: v1 }
      : shape < 0.8
        ? { name: 'h', ...legacy }
        : { name: 'h', ...legacy, supportedInterfaces: v1 };
  // Through JSON, as every card arrives: lone surrogates and controls survive the round trip.
  return JSON.parse(JSON.stringify(card));
}

const httpsSpec = A2AAgentSpec.parse({
  selector: { matchLabels: { app: 'a' } },
  ports: [
    { name: 'https', port: 8443 },
    { name: 'http', port: 8080 },
    { name: 'grpc', port: 1 },
  ],
  card: { port: 'https', scheme: 'HTTPS' },
});
const hostsSpec = A2AAgentSpec.parse({
  selector: { matchLabels: { app: 'a' } },
  ports: [{ name: 'http', port: 8080 }],
  card: { port: 'http' },
  hosts: ['h', 'localhost'],
});

/** CPU milliseconds since `since`. */
function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** Everything the operator and the CLI do with a card before any socket is opened; its CPU ms. */
function judge(json: unknown): number {
  const started = process.cpuUsage();
  const card = parseCard(json);
  if (!(card instanceof CardParseError)) {
    for (const spec of [httpsSpec, hostsSpec]) {
      const ctx = { spec, namespace: 'ns', serviceName: 'a' };
      staticChecks(card, operatorCheckOptions(ctx));
      mapInterfaces(card, ctx);
    }
    staticChecks(card, { cardScheme: 'https', allowLoopbackPlaintext: true });
    staticChecks(card);
    cardDigest(card.raw);
  }
  return cpuMs(started);
}

void test(`property: any card is judged within ${BUDGET_MS}ms of CPU (seed ${SEED}, at most ${RUN_MS / 1000}s)`, () => {
  const r = seeded(SEED);
  const started = performance.now();
  let inputs = 0;
  let worst = 0;
  while (inputs < MAX_INPUTS && performance.now() - started < RUN_MS) {
    const json = hostileCard(r);
    inputs++;
    let ms: number;
    try {
      ms = judge(json);
    } catch (err) {
      assert.fail(`input #${inputs} threw ${(err as Error).stack}`);
    }
    worst = Math.max(worst, ms);
    assert.ok(ms < BUDGET_MS, `input #${inputs} (seed ${SEED}) took ${ms.toFixed(0)}ms`);
  }
  console.log(`# ${inputs} hostile cards, worst ${worst.toFixed(1)}ms each`);
  assert.ok(inputs >= 20, `only ${inputs} inputs ran in ${RUN_MS}ms`);
});

void test('every special character, alone, at the longest run the fuzz makes, within the budget', () => {
  const n = RUNS[RUNS.length - 1]!;
  for (const special of SPECIALS) {
    for (const [prefix, suffix] of [
      ['http://h:8080/', 'a'],
      ['', ''],
      ['[', ':1'],
      ['https://h', ''],
    ] as const) {
      const url = `${prefix}${special.repeat(Math.ceil(n / special.length))}${suffix}`;
      const card = {
        name: 'h',
        url,
        protocolVersion: '0.3.0',
        additionalInterfaces: [{ url, transport: 'GRPC' }],
        supportedInterfaces: [{ url, protocolBinding: 'GRPC', protocolVersion: url }],
      };
      const ms = judge(card);
      assert.ok(ms < BUDGET_MS, `${JSON.stringify(special)} ×${n}: ${ms.toFixed(0)}ms`);
    }
  }
});

void test('URLs over 8 KiB are InterfaceURLInvalid (Ineligible), quoted clipped and redacted', () => {
  const long = `http://user:secret@h:8080/${'/'.repeat(MAX_URL_BYTES)}a`;
  const e = interfaceEndpoint(long, 'JSONRPC');
  assert.ok('reason' in e);
  assert.equal(e.reason, 'InterfaceURLInvalid');
  assert.match(e.message, /over the 8192-byte limit/);
  assert.ok(e.message.length < 400, `message is ${e.message.length} chars`);
  assert.ok(!e.message.includes('secret'));
  // Bytes, not UTF-16 units: 3,000 three-byte characters are 9,000 bytes.
  assert.ok('reason' in interfaceEndpoint(`http://h/${'é'.repeat(2_000)}${'€'.repeat(1_500)}`, 'JSONRPC'));
  const atLimit = `http://h:8080/${'a'.repeat(MAX_URL_BYTES - 'http://h:8080/'.length)}`;
  assert.ok(!('reason' in interfaceEndpoint(atLimit, 'JSONRPC')));

  const card = parseCard({
    supportedInterfaces: [{ url: long, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  });
  assert.ok(!(card instanceof CardParseError));
  const [m] = mapInterfaces(card, {
    spec: hostsSpec,
    namespace: 'ns',
    serviceName: 'a',
  });
  assert.equal(m!.mapped, false);
  assert.equal(!m!.mapped && m!.state, 'Ineligible');
  assert.ok(!m!.mapped && m!.message.length < 2_000, 'the status message stays short');
  assert.ok(!m!.mapped && !m!.message.includes('secret'));
  for (const f of staticChecks(card)) assert.ok(f.message.length < 2_000);
});

void test('trailing slashes are trimmed as before, in linear time; the old regex was quadratic', () => {
  for (const s of ['', '/', '///', '/a', '/a/', '/a//b//', 'a', '//a//']) {
    assert.equal(trimTrailingSlashes(s), s.replace(/\/+$/, ''), JSON.stringify(s));
  }
  assert.equal(redactUrlCredentials('http://u:p@h/?token=t'), 'http://***@h/?token=***');
  // The same input shape the fuzz makes, at a size the old regex can still finish in a test.
  const size = 32_768;
  const input = `${'/'.repeat(size)}a`;
  const oldStarted = process.cpuUsage();
  const oldResult = input.replace(/\/+$/, '');
  const oldMs = cpuMs(oldStarted);
  const newStarted = process.cpuUsage();
  const newResult = trimTrailingSlashes(input);
  const newMs = cpuMs(newStarted);
  assert.equal(newResult, oldResult);
  // Quadratic: at the fuzz's longest run (300,000) the old regex needs (300000/32768)^2 ≈ 84
  // times this; measured 0.5-1.7 s here at 32 KiB, so 40-145 s, far past the budget. The new
  // scan stays in microseconds.
  const longest = RUNS[RUNS.length - 1]!;
  const projectedMs = oldMs * (longest / size) ** 2;
  console.log(
    `# old /\\/+$/ on ${size} slashes: ${oldMs.toFixed(1)}ms (projected ${(projectedMs / 1000).toFixed(1)}s at ${longest}); new: ${newMs.toFixed(3)}ms`,
  );
  assert.ok(projectedMs > BUDGET_MS, `the old regex would have taken ${projectedMs.toFixed(0)}ms`);
  assert.ok(newResult === oldResult && oldMs > 10 * Math.max(newMs, 1), `new ${newMs}ms vs old ${oldMs}ms`);
});
