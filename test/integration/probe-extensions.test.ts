/**
 * Required extensions (issue 13 item 5), on both runtimes: an agent whose card requires an
 * extension answers every call that does not declare it with ExtensionSupportRequiredError
 * (a2a-go checks it on every call; the JS agent does the same). The probes declare the card's
 * required extensions in `A2A-Extensions` (gRPC metadata `a2a-extensions`), so the agent answers
 * TaskNotFound; a probe that did not declare them gets ExtensionSupportRequired, which proves
 * the handler too. Both are Verified, each with its own evidence.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CardInterface } from '../../src/card/index.js';
import type { ProbeResult } from '../../src/probe/index.js';
import { RUNTIMES, type LocalAgent, type Runtime } from '../harness/local-agent.js';
import { fetchAgentCard, LOOPBACK, loopbackProbes } from '../harness/loopback-probes.js';

const timeoutMs = 1500;
const EXT = 'https://example.com/a2a/ext/audit/v1';
const lp = loopbackProbes();

const cardInterfaces = async (a: LocalAgent): Promise<CardInterface[]> =>
  (await fetchAgentCard(a, timeoutMs)).interfaces;

const portOf = (i: CardInterface) => Number(/:(\d+)(?:\/|$)/.exec(i.url)![1]);
const probe = (i: CardInterface): Promise<ProbeResult> =>
  lp.prober.probe({ address: LOOPBACK, port: portOf(i) }, i, { timeoutMs });

/** The answer each binding gave, as evidence shows it. */
function answer(r: ProbeResult): string {
  const e = r.evidence;
  return [e.httpStatus, e.jsonRpcCode, e.grpcCodeName, e.errorInfoReason]
    .filter((x) => x !== undefined)
    .join(' ');
}

for (const rt of RUNTIMES) {
  void test(`[${rt}] a card requiring an extension: Verified with the header (TaskNotFound) and without it (ExtensionSupportRequired)`, async () => {
    const a = await lp.agent(rt as Runtime, {
      grpc: {},
      capabilities: {
        extensions: [
          { uri: EXT, required: true },
          { uri: 'https://example.com/optional', required: false },
        ],
      },
    });
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

for (const rt of RUNTIMES) {
  void test(`[${rt}] v0.3 interfaces (SDK compat layer) of a card requiring an extension: the header (X-A2A-Extensions) is accepted`, async () => {
    const a = await lp.agent(rt, {
      grpc: {},
      legacyCompat: true,
      card: { serve: 'hybrid' },
      capabilities: { extensions: [{ uri: EXT, required: true }] },
    });
    const interfaces = (await cardInterfaces(a)).filter((i) => i.protocolVersion === '0.3');
    assert.ok(interfaces.every((i) => i.requiredExtensions?.[0] === EXT));
    const results = await Promise.all(interfaces.map(probe));
    assert.deepEqual(
      results.map((r, n) => `${interfaces[n]!.protocolBinding}=${r.state} ${answer(r)}`),
      rt === 'js'
        ? [
            'JSONRPC=Verified 200 -32001',
            'HTTP+JSON=Verified 404 -32001',
            'GRPC=Verified NOT_FOUND TASK_NOT_FOUND',
          ]
        : // a2a-go's v0.3 REST has no /v1 routes (probe-states.test.ts): Unimplemented, as without extensions.
          [
            'JSONRPC=Verified 200 -32001 TASK_NOT_FOUND',
            'HTTP+JSON=Unimplemented 404',
            'GRPC=Verified NOT_FOUND TASK_NOT_FOUND',
          ],
    );
    // Without the header the same servers want the extension: the header is what was accepted.
    const undeclared = await Promise.all(
      interfaces.map((i) => {
        const { requiredExtensions: _drop, ...rest } = i;
        return probe(rest);
      }),
    );
    assert.deepEqual(
      undeclared.map((r, n) => `${interfaces[n]!.protocolBinding}=${r.state} ${answer(r)}`),
      rt === 'js'
        ? [
            'JSONRPC=Verified 200 -32008',
            'HTTP+JSON=Verified 400 -32008',
            'GRPC=Verified FAILED_PRECONDITION EXTENSION_SUPPORT_REQUIRED',
          ]
        : [
            'JSONRPC=Verified 200 -32008 EXTENSION_SUPPORT_REQUIRED',
            'HTTP+JSON=Unimplemented 404',
            'GRPC=Verified FAILED_PRECONDITION EXTENSION_SUPPORT_REQUIRED',
          ],
    );
  });
}
