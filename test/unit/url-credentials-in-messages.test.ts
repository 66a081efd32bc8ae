// A card URL carrying a credential (`?token=`, `#access_token=`, `user:pw@`) is redacted in every
// message made from it: static-check findings (status) and probe verdicts (status, Events), the
// latter from a real local server so the request the probe sent is quoted as it really was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CardParseError, parseCard, staticChecks } from '../../src/card/index.js';
import { Prober } from '../../src/probe/prober.js';

const SECRET = 'S3cretTok';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

void test('static-check findings: query, fragment and userinfo credentials redacted', () => {
  const urls: [string, string][] = [
    [`https://h:9090/?token=${SECRET}`, 'GRPC'],
    [`ftp://h/a?access_token=${SECRET}`, 'JSONRPC'],
    [`http://h:99999/a?sig=${SECRET}`, 'JSONRPC'],
    [`h:99999?token=${SECRET}`, 'GRPC'],
    [`not a url ?api_key=${SECRET}`, 'JSONRPC'],
    [`http://u:${SECRET}@h/a`, 'JSONRPC'],
    [`http://h/a#access_token=${SECRET}`, 'HTTP+JSON'],
  ];
  const card = parseCard({
    name: 'a',
    supportedInterfaces: urls.map(([url, protocolBinding]) => ({
      url,
      protocolBinding,
      protocolVersion: '1.0',
    })),
  });
  assert.ok(!(card instanceof CardParseError));
  const findings = staticChecks(card, { cardScheme: 'https' });
  assert.ok(findings.length >= 5, JSON.stringify(findings));
  for (const f of findings) assert.ok(!f.message.includes(SECRET), f.message);
  assert.ok(
    findings.some((f) => f.message.includes('token=***')),
    JSON.stringify(findings),
  );
});

void test('probe verdicts: the card URL query sent to the agent is redacted in message and evidence', async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    // The agent echoes the request line back, as a misconfigured proxy would.
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`no route for ${req.url}`);
  });
  const port = await listen(server);
  const prober = new Prober();
  try {
    for (const [url, protocolBinding] of [
      [`http://agent.internal:${port}/a2a?token=${SECRET}&tenant=t`, 'JSONRPC'],
      [`http://agent.internal:${port}/a2a?api_key=${SECRET}`, 'HTTP+JSON'],
    ] as const) {
      const r = await prober.probe(
        { address: '127.0.0.1', port },
        { url, protocolBinding, protocolVersion: '1.0', index: 0, declaredAt: 'supportedInterfaces[0]' },
        { timeoutMs: 5000 },
      );
      const shown = JSON.stringify(r);
      assert.ok(!shown.includes(SECRET), shown);
      assert.match(shown, /(token|api_key)=\*\*\*/);
    }
    // The probe did send the card's query as written: only what is shown is redacted.
    assert.ok(seen.length >= 2 && seen.every((u) => u.includes(SECRET)), JSON.stringify(seen));
  } finally {
    await prober.close();
    server.close();
  }
});
