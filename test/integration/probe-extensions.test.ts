/**
 * Required extensions (issue 13 item 5), on both runtimes: an agent whose card requires an
 * extension answers every call that does not declare it with ExtensionSupportRequiredError
 * (a2a-go checks it on every call; the JS agent does the same). The probes declare the card's
 * required extensions in `A2A-Extensions` (gRPC metadata `a2a-extensions`), so the agent answers
 * TaskNotFound; a probe that did not declare them gets ExtensionSupportRequired, which proves
 * the handler too. Both are Verified, each with its own evidence.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CardParseError, parseCard, type CardInterface } from '../../src/card/index.js';
import { fetchCard, Prober, type ProbeResult } from '../../src/probe/index.js';
import { RUNTIMES, startLocalAgent, type LocalAgent, type Runtime } from '../harness/local-agent.js';

const LOOPBACK = '127.0.0.1';
const timeoutMs = 1500;
const EXT = 'https://example.com/a2a/ext/audit/v1';
let prober: Prober;
const agents: LocalAgent[] = [];

before(() => {
  prober = new Prober({ concurrency: 8 });
});
after(async () => {
  await prober.close();
  for (const a of agents) await a.close();
});

async function cardInterfaces(a: LocalAgent): Promise<CardInterface[]> {
  const r = await fetchCard({
    address: LOOPBACK,
    port: a.ports.http!,
    scheme: 'http',
    path: '/.well-known/agent-card.json',
    hostHeader: `agent.internal:${a.ports.http}`,
    timeoutMs,
  });
  assert.equal(r.kind, 'ok');
  const card = parseCard(r.kind === 'ok' ? r.body : undefined);
  assert.ok(!(card instanceof CardParseError));
  return card.interfaces;
}

const portOf = (i: CardInterface) => Number(/:(\d+)(?:\/|$)/.exec(i.url)![1]);
const probe = (i: CardInterface): Promise<ProbeResult> =>
  prober.probe({ address: LOOPBACK, port: portOf(i) }, i, { timeoutMs });

/** The answer each binding gave, as evidence shows it. */
function answer(r: ProbeResult): string {
  const e = r.evidence;
  return [e.httpStatus, e.jsonRpcCode, e.grpcCodeName, e.errorInfoReason]
    .filter((x) => x !== undefined)
    .join(' ');
}

for (const rt of RUNTIMES) {
  void test(`[${rt}] a card requiring an extension: Verified with the header (TaskNotFound) and without it (ExtensionSupportRequired)`, async () => {
    const a = await startLocalAgent(rt as Runtime, {
      grpc: {},
      capabilities: {
        extensions: [
          { uri: EXT, required: true },
          { uri: 'https://example.com/optional', required: false },
        ],
      },
    });
    agents.push(a);
    const interfaces = await cardInterfaces(a);
    assert.deepEqual(
      interfaces.map((i) => [i.protocolBinding, i.requiredExtensions]),
      [
        ['JSONRPC', [EXT]],
        ['HTTP+JSON', [EXT]],
        ['GRPC', [EXT]],
      ],
    );

    const declared = await Promise.all(interfaces.map(probe));
    for (const r of declared) assert.equal(r.state, 'Verified', r.message);
    // The header was accepted: the handler answered the GetTask itself.
    assert.deepEqual(declared.map(answer), [
      '200 -32001' + (rt === 'go' ? ' TASK_NOT_FOUND' : ' TASK_NOT_FOUND'),
      '404 TASK_NOT_FOUND',
      'NOT_FOUND TASK_NOT_FOUND',
    ]);

    const undeclared = await Promise.all(
      interfaces.map((i) => {
        const { requiredExtensions: _drop, ...rest } = i;
        return probe(rest);
      }),
    );
    for (const r of undeclared) {
      assert.equal(r.state, 'Verified', r.message);
      assert.match(r.message, /EXTENSION_SUPPORT_REQUIRED|ExtensionSupportRequired/);
    }
    assert.deepEqual(
      undeclared.map((r) => [r.evidence.jsonRpcCode ?? r.evidence.httpStatus ?? r.evidence.grpcCodeName]),
      [[-32008], [400], ['FAILED_PRECONDITION']],
    );
  });
}
