// `check --output junit`, read by a real XML parser (fast-xml-parser) as a CI system reads it:
// one testcase per interface, a failure for each failing one, and hostile card text neither
// breaks the document nor forges testcases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { renderJunit } from '../../src/cli/check/render-junit.js';
import { printable } from '../../src/text/display-text.js';
import { hostile, report } from './check-output-fixtures.js';

interface Failure {
  '#text'?: string;
  '@_type': string;
  '@_message': string;
}
interface TestCase {
  '@_classname': string;
  '@_name': string;
  failure?: Failure[];
}
interface Parsed {
  testsuites: {
    '@_tests': string;
    '@_failures': string;
    testsuite: { '@_name': string; '@_tests': string; '@_failures': string; testcase: TestCase[] }[];
  }[];
}

function parse(xml: string): Parsed {
  const valid = XMLValidator.validate(xml);
  assert.equal(valid, true, JSON.stringify(valid));
  return new XMLParser({
    ignoreAttributes: false,
    isArray: (name) => ['testsuites', 'testsuite', 'testcase', 'failure'].includes(name),
    processEntities: true,
    htmlEntities: false,
    parseAttributeValue: false,
    trimValues: false,
  }).parse(xml) as Parsed;
}

test('one testcase per interface plus the card; a failure per failing interface', () => {
  const doc = parse(renderJunit(report, 'http://weather.example:8080'));
  const suite = doc.testsuites[0]!.testsuite[0]!;
  assert.equal(suite['@_name'], 'a2a-operator check http://weather.example:8080');
  assert.equal(suite['@_tests'], '4');
  assert.equal(suite['@_failures'], '2');
  assert.equal(doc.testsuites[0]!['@_failures'], '2');
  const cases = suite.testcase.filter((c) => c['@_classname'].startsWith('interface.'));
  assert.deepEqual(
    cases.map((c) => [c['@_name'], c.failure?.[0]?.['@_type'] ?? 'passed']),
    [
      ['JSONRPC http://weather.example:8080/a2a/jsonrpc', 'passed'],
      ['HTTP+JSON http://weather.example:8080/a2a/rest', 'Unimplemented'],
      ['GRPC weather.example:9090', 'Unreachable'],
    ],
  );
  const unreachable = cases[2]!.failure![0]!;
  assert.equal(unreachable['@_message'], 'Unreachable: Unreachable');
  assert.match(unreachable['#text']!, /ECONNREFUSED 10\.0\.0\.1:9090 \(evidence: ECONNREFUSED\)/);
  const card = suite.testcase.find((c) => c['@_classname'] === 'card')!;
  assert.equal(card.failure, undefined);
});

test('hostile card text: a well-formed document, no forged testcase, the text escaped for people', () => {
  const xml = renderJunit(hostile, 'http://h.example');
  // eslint-disable-next-line no-control-regex -- no raw control character in the document
  assert.doesNotMatch(xml, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
  const suite = parse(xml).testsuites[0]!.testsuite[0]!;
  assert.equal(suite.testcase.length, 3, 'card + 2 interfaces, nothing forged');
  assert.ok(!suite.testcase.some((c) => c['@_name'] === 'forged'));
  const failing = suite.testcase.find((c) => c.failure && c['@_classname'].startsWith('interface.'))!;
  const text = failing.failure![0]!['#text']!;
  assert.ok(text.startsWith(printable(hostile.interfaces[0]!.message.slice(0, 40))), text);
  assert.match(text, /<\/failure><testcase name="forged"\/>/); // shown as text, not markup
  assert.match(text, /\\u\{dc00\}/);
  const card = suite.testcase.find((c) => c['@_classname'] === 'card')!;
  assert.equal(card.failure!.length, 1);
  assert.equal(card.failure![0]!['@_message'], 'InterfaceURLInvalid');
  assert.match(card.failure![0]!['#text']!, /<!\[CDATA\[ \]\]> & "q" 'a' \\u\{d800\} \\u\{ffff\}/);
});

test('the escaping has teeth: without it the hostile report is not XML', () => {
  const raw = `<testcase name="${hostile.interfaces[0]!.message}"/>`;
  assert.notEqual(XMLValidator.validate(raw), true);
});
