/**
 * REST errors in RFC 9457 problem-details form (`application/problem+json`, `type` ending in
 * `/errors/task-not-found`, …), as the spec's own examples, early a2a-go releases and the draft
 * conformance suite answer them: judged like the `google.rpc.Status` form, by a real HTTP+JSON
 * probe against a local server.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { InterfaceState } from '../../src/api/conditions.js';
import { Prober } from '../../src/probe/prober.js';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

const cases: { name: string; status: number; body: Record<string, unknown>; state: InterfaceState }[] = [
  {
    name: 'task-not-found',
    status: 404,
    body: {
      type: 'https://a2a-protocol.org/errors/task-not-found',
      title: 'Task not found',
      status: 404,
      detail: 'no task with that id',
    },
    state: InterfaceState.Verified,
  },
  {
    name: 'version-not-supported',
    status: 400,
    body: { type: 'https://a2a-protocol.org/errors/version-not-supported', title: 'Version not supported' },
    state: InterfaceState.VersionNotSupported,
  },
  {
    name: 'another type: a route 404 stays Unimplemented',
    status: 404,
    body: { type: 'about:blank', title: 'Not Found', status: 404 },
    state: InterfaceState.Unimplemented,
  },
  {
    name: 'a look-alike type outside /errors/ is not an A2A error',
    status: 404,
    body: { type: 'https://example.com/task-not-found', title: 'Not Found' },
    state: InterfaceState.Unimplemented,
  },
];

test('problem-details answers to GetTask get the verdict their type names', async () => {
  let current = cases[0]!;
  const server = createServer((_req, res) => {
    res
      .writeHead(current.status, { 'content-type': 'application/problem+json' })
      .end(JSON.stringify(current.body));
  });
  const port = await listen(server);
  const prober = new Prober();
  try {
    for (const c of cases) {
      current = c;
      const r = await prober.probe(
        { address: '127.0.0.1', port },
        {
          url: `http://agent.internal:${port}/rest`,
          protocolBinding: 'HTTP+JSON',
          protocolVersion: '1.0',
          index: 0,
          declaredAt: 'supportedInterfaces[0]',
        },
        { timeoutMs: 5000 },
      );
      assert.equal(r.state, c.state, `${c.name}: ${r.message}`);
    }
  } finally {
    await prober.close();
    server.close();
  }
});
