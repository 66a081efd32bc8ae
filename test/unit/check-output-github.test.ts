// `check --output github`, read by a parser that follows the GitHub Actions runner
// (actions/runner ActionCommand.TryParseV2, then the legacy `##[` form): one error annotation
// per failing interface, and card text cannot end a line, add a property or forge a command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeData, escapeProperty, renderGithub } from '../../src/cli/check/render-github.js';
import { hostile, report } from './check-output-fixtures.js';

interface Command {
  name: string;
  properties: Record<string, string>;
  data: string;
}

const REGISTERED = new Set([
  'error',
  'warning',
  'notice',
  'debug',
  'group',
  'endgroup',
  'add-mask',
  'stop-commands',
  'echo',
  'add-matcher',
  'remove-matcher',
  'set-env',
  'add-path',
]);
const unescape = (s: string, map: [string, string][]) =>
  map.reduce((t, [token, rep]) => t.split(rep).join(token), s);
const DATA: [string, string][] = [
  ['\r', '%0D'],
  ['\n', '%0A'],
  ['%', '%25'],
];
const PROPERTY: [string, string][] = [
  ['\r', '%0D'],
  ['\n', '%0A'],
  [':', '%3A'],
  [',', '%2C'],
  ['%', '%25'],
];

/** One output line as the runner reads it: a V2 `::name props::data` command, a V1 `##[name]`, or text. */
function parseLine(line: string): Command | 'v1' | undefined {
  const m = line.trimStart();
  if (m.startsWith('::')) {
    const end = m.indexOf('::', 2);
    if (end >= 0) {
      const info = m.slice(2, end);
      const space = info.indexOf(' ');
      const name = space < 0 ? info : info.slice(0, space);
      if (REGISTERED.has(name)) {
        const properties: Record<string, string> = {};
        if (space > 0)
          for (const p of info
            .slice(space + 1)
            .trim()
            .split(',')
            .filter(Boolean)) {
            const eq = p.indexOf('=');
            if (eq > 0 && eq < p.length - 1) properties[p.slice(0, eq)] = unescape(p.slice(eq + 1), PROPERTY);
          }
        return { name, properties, data: unescape(m.slice(end + 2), DATA) };
      }
    }
  }
  return line.includes('##[') ? 'v1' : undefined;
}

/** The runner reads output line by line: CR, LF and CRLF end a line (.NET ReadLine). */
function parse(out: string): Command[] {
  const lines = out.split(/\r\n|\r|\n/).filter((l) => l !== '');
  return lines.map((l) => {
    const c = parseLine(l);
    assert.ok(c && c !== 'v1', `a line that is not one annotation command: ${JSON.stringify(l)}`);
    return c;
  });
}

test('toolkit escaping', () => {
  assert.equal(escapeData('a%b\r\nc:d,e'), 'a%25b%0D%0Ac:d,e');
  assert.equal(escapeProperty('a%b\r\nc:d,e'), 'a%25b%0D%0Ac%3Ad%2Ce');
});

test('one error per failing interface, with its state, reason, message and evidence', () => {
  const cmds = parse(renderGithub(report, 'http://weather.example:8080'));
  assert.deepEqual(
    cmds.map((c) => [c.name, c.properties.title]),
    [
      ['error', 'A2A HTTP+JSON interface http://weather.example:8080/a2a/rest is Unimplemented'],
      ['error', 'A2A GRPC interface weather.example:9090 is Unreachable'],
    ],
  );
  assert.equal(
    cmds[1]!.data,
    'Unreachable: Unreachable\nconnect ECONNREFUSED 10.0.0.1:9090\nevidence: ECONNREFUSED',
  );
  assert.equal(cmds[0]!.properties.file, undefined);
});

test('--card: annotations name the card file; a verified card gives one notice', () => {
  const ok = { ...report, consistent: true, interfaces: [report.interfaces[0]!] };
  const cmds = parse(renderGithub(ok, 'http://weather.example:8080', 'cards/weather,v1:card.json'));
  assert.equal(cmds.length, 1);
  assert.equal(cmds[0]!.name, 'notice');
  assert.equal(cmds[0]!.properties.file, 'cards/weather,v1:card.json');
  assert.equal(cmds[0]!.data, 'http://weather.example:8080: 1/1 declared interfaces verified');
});

test('hostile card text: exactly one command per failure, no forged line, property or command', () => {
  const out = renderGithub(hostile, 'http://h.example', 'card.json');
  const cmds = parse(out);
  assert.deepEqual(
    cmds.map((c) => c.name),
    ['error', 'error'],
    'the finding and the one failing interface',
  );
  for (const c of cmds) {
    assert.deepEqual(Object.keys(c.properties).sort(), ['file', 'title']);
    assert.equal(c.properties.file, 'card.json');
    // eslint-disable-next-line no-control-regex -- no raw control character reaches the annotation
    assert.doesNotMatch(c.properties.title!, /[\u0000-\u001f\u007f-\u009f]/);
    // eslint-disable-next-line no-control-regex -- only the renderer's own line breaks
    assert.doesNotMatch(c.data, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  }
  const iface = cmds[1]!;
  assert.match(iface.properties.title!, /^A2A JSON,RPC::\\u\{1b\}\[31mred/);
  assert.equal(iface.data.split('\n').length, 3);
  assert.match(iface.data, /100%/);
});

test('the escaping has teeth: raw card text in a command forges lines and properties', () => {
  const raw = `::error title=${hostile.interfaces[0]!.protocolBinding}::${hostile.interfaces[0]!.message}`;
  assert.throws(() => parse(raw));
});
