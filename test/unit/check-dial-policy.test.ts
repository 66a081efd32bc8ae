import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConnectTo } from '../../src/cli/check/connect-to.js';
import { Deadline } from '../../src/cli/check/deadline.js';
import { dialDecision, parseAllowPorts, type DialPolicy } from '../../src/cli/check/dial-policy.js';
import { parseDuration } from '../../src/cli/check/duration.js';
import { HostPins } from '../../src/cli/check/host-pins.js';

void test('dialDecision: the base host:port, --allow-port ports of it, --connect-to; nothing else', () => {
  const policy: DialPolicy = {
    baseHost: 'agent.example',
    basePort: 443,
    allowPorts: [9443],
    connectTo: [parseConnectTo('other.internal:8080:127.0.0.1:18080')],
  };
  assert.deepEqual(dialDecision(policy, 'Agent.Example', 443), {
    kind: 'dial',
    host: 'agent.example',
    port: 443,
  });
  assert.deepEqual(dialDecision(policy, 'agent.example', 9443), {
    kind: 'dial',
    host: 'agent.example',
    port: 9443,
  });
  assert.deepEqual(dialDecision(policy, 'other.internal', 8080), {
    kind: 'dial',
    host: '127.0.0.1',
    port: 18080,
  });
  const port = dialDecision(policy, 'agent.example', 2375);
  assert.equal(port.kind, 'portNotAllowed');
  assert.match(port.kind === 'portNotAllowed' ? port.message : '', /--allow-port 2375/);
  const host = dialDecision(policy, '169.254.169.254', 80);
  assert.equal(host.kind, 'hostNotMapped');
  assert.match(
    host.kind === 'hostNotMapped' ? host.message : '',
    /--connect-to 169\.254\.169\.254:80:ADDRESS:PORT/,
  );
  assert.match(
    (
      dialDecision({ baseHost: '::1', basePort: 80, allowPorts: [], connectTo: [] }, '[::1]', 81) as {
        message: string;
      }
    ).message,
    /\[::1\]:81/,
  );
  // --card without a base URL: only --connect-to dials.
  assert.equal(
    dialDecision({ allowPorts: [9443], connectTo: [] }, 'agent.example', 9443).kind,
    'hostNotMapped',
  );
});

void test('--allow-port: repeatable, comma lists, 1-65535 only', () => {
  assert.deepEqual(parseAllowPorts(['9443', '80,9443', ' 22 ']), [9443, 80, 22]);
  for (const bad of ['0', '65536', 'http', '', '1e3', '-1', '443x', '123456'])
    assert.throws(() => parseAllowPorts([bad]), { name: 'UsageError' }, bad);
});

void test('durations: seconds by default, ms and s suffixes, positive', () => {
  assert.equal(parseDuration('60', '--deadline'), 60_000);
  assert.equal(parseDuration('1.5s', '--deadline'), 1500);
  assert.equal(parseDuration('250ms', '--timeout'), 250);
  for (const bad of ['0', '-1', 'soon', '1h', '', '0ms'])
    assert.throws(() => parseDuration(bad, '--deadline'), { name: 'UsageError' }, bad);
});

void test('Deadline: work that finishes first wins; otherwise late() answers, and remaining time reaches 0', async () => {
  const d = new Deadline(50);
  assert.equal(await d.race(Promise.resolve('done'), () => 'late'), 'done');
  const never = new Promise<string>(() => undefined);
  assert.equal(await d.race(never, () => 'late'), 'late');
  assert.equal(d.remainingMs, 0);
  d.dispose();
  const long = new Deadline(10 * 365 * 86_400_000);
  assert.equal(await long.race(Promise.resolve('done'), () => 'late'), 'done');
  assert.ok(long.remainingMs > 0);
  long.dispose();
});

void test('HostPins: each name resolved once, IP literals never', async () => {
  const asked: string[] = [];
  let n = 0;
  const pins = new HostPins((host) => {
    asked.push(host);
    return Promise.resolve(`10.0.0.${++n}`);
  });
  assert.equal(await pins.address('agent.example'), '10.0.0.1');
  assert.equal(await pins.address('agent.example'), '10.0.0.1');
  assert.equal(await pins.address('::1'), '::1');
  assert.deepEqual(
    await new HostPins(() => Promise.reject(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).address(
      'nx.example',
    ),
    {
      code: 'ENOTFOUND',
    },
  );
  assert.deepEqual(asked, ['agent.example']);
});

void test('Deadline: none is left once it passed, even with the wall clock a millisecond short of it', async () => {
  // The timer runs on the monotonic clock: under load it can fire before Date.now() reaches the
  // deadline, and run-check reads remainingMs === 0 as "the deadline passed".
  const d = new Deadline(20);
  await d.passed;
  const realNow = Date.now;
  Date.now = () => d.notAfter - 1;
  try {
    assert.equal(d.remainingMs, 0);
  } finally {
    Date.now = realNow;
  }
  d.dispose();
});
