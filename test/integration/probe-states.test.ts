/**
 * The Prober against real SDK agents on loopback: every interface state (docs/conditions.md) that a probe can
 * produce, each asserted with its exact reason. The dialled address is always 127.0.0.1 while
 * the card URL names another host, as in a cluster (pod IP vs. card host).
 *
 * Every test runs on both runtimes (`js`: @a2a-js/sdk in-process; `go`: the official a2a-go SDK,
 * test/agents/go): one expectation table, two runtimes. Where the runtimes answer differently on
 * the wire, the expectation is per runtime (`byRuntime`) and a comment says which one the spec
 * backs, with the section.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { staticChecks, type CardInterface, type ParsedCard } from '../../src/card/index.js';
import { fetchCard, type ProbeResult } from '../../src/probe/index.js';
import { createTestCa, type TestCa } from '../agents/test-certs.js';
import { RUNTIMES, type LocalAgent, type LocalAgentConfig, type Runtime } from '../harness/local-agent.js';
import { fetchAgentCard, LOOPBACK, loopbackProbes } from '../harness/loopback-probes.js';

const timeoutMs = 1500;
const lp = loopbackProbes();
let ca: TestCa;

before(() => {
  ca = createTestCa();
});
after(() => {
  ca.dispose();
});

const agent = (rt: Runtime, config: LocalAgentConfig): Promise<LocalAgent> => lp.agent(rt, config);

/** One expectation where the runtimes differ on the wire (the test says which one the spec backs). */
function byRuntime<T>(rt: Runtime, per: Record<Runtime, T>): T {
  return per[rt];
}

/** Declares one test per runtime. */
function both(name: string, body: (rt: Runtime) => Promise<void>): void {
  for (const rt of RUNTIMES) void test(`[${rt}] ${name}`, () => body(rt));
}

function iface(
  url: string,
  protocolBinding: string,
  protocolVersion = '1.0',
  tenant?: string,
): CardInterface {
  return {
    url,
    protocolBinding,
    protocolVersion,
    ...(tenant ? { tenant } : {}),
    index: 0,
    declaredAt: 'test',
  };
}

function probe(
  port: number,
  i: CardInterface,
  opts: { bearerToken?: string; tls?: { ca?: string; insecureSkipVerify?: boolean } } = {},
) {
  return lp.prober.probe({ address: LOOPBACK, port }, i, { timeoutMs, ...opts });
}

function stateAndReason(r: ProbeResult): [string, string] {
  return [r.state, r.reason];
}

/** The three v1.0 interfaces of an agent, under the host name agent.internal. */
function three(a: LocalAgent, version = '1.0', scheme = 'http'): [number, CardInterface][] {
  return [
    [a.ports.http!, iface(`${scheme}://agent.internal:${a.ports.http}/a2a/jsonrpc`, 'JSONRPC', version)],
    [a.ports.http!, iface(`${scheme}://agent.internal:${a.ports.http}/a2a/rest`, 'HTTP+JSON', version)],
    [a.ports.grpc!, iface(`${scheme}://agent.internal:${a.ports.grpc}`, 'GRPC', version)],
  ];
}

const fetchParsed = (a: LocalAgent): Promise<ParsedCard> => fetchAgentCard(a, timeoutMs);

/** Probes each interface of a card at the loopback port its URL names. */
async function probeCard(card: ParsedCard): Promise<string[]> {
  const out: string[] = [];
  for (const i of card.interfaces) {
    const port = Number(/:(\d+)(?:\/|$)/.exec(i.url)![1]);
    const r = await probe(port, i);
    out.push(`${i.protocolBinding}@${i.protocolVersion}=${r.state}`);
  }
  return out;
}

/**
 * REST at v0.3: the spec backs js. v0.3 §3.5.6 puts every REST route under `/v1/` (`GET
 * /v1/tasks/{id}`); a2a-go's compat layer (a2acompat/a2av0 NewRESTHandler) serves the v0.3
 * payloads at the unprefixed v1.0 paths (`/tasks/{id}`), so a v0.3 client finds no route: 404
 * without an A2A body, Unimplemented.
 */
const V03_REST: Record<Runtime, string> = { js: 'Verified', go: 'Unimplemented' };

both('v0.3 agent through the SDK compat layer: a v0.3 card, every binding Verified at 0.3', async (rt) => {
  const a = await agent(rt, {
    grpc: {},
    legacyCompat: true,
    card: {
      serve: 'json',
      json: {
        name: 'legacy',
        protocolVersion: '0.3.0',
        url: 'http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc',
        preferredTransport: 'JSONRPC',
        additionalInterfaces: [
          { url: 'http://127.0.0.1:{{HTTP_PORT}}/a2a/rest', transport: 'HTTP+JSON' },
          { url: 'http://127.0.0.1:{{GRPC_PORT}}', transport: 'GRPC' },
        ],
      },
    },
  });
  const card = await fetchParsed(a);
  assert.equal(card.shape, 'v0.3');
  assert.deepEqual(staticChecks(card), []);
  assert.deepEqual(await probeCard(card), [
    'JSONRPC@0.3=Verified',
    `HTTP+JSON@0.3=${V03_REST[rt]}`,
    'GRPC@0.3=Verified',
  ]);
  if (rt === 'go') {
    // The message says where the server does answer, so the owner knows what to change.
    const rest = card.interfaces.find((i) => i.protocolBinding === 'HTTP+JSON')!;
    const r = await probe(a.ports.http!, rest);
    assert.match(r.message, /TaskNotFound at the unprefixed v1\.0 path \/a2a\/rest\/tasks\/\{id\}/);
    assert.match(r.message, /mount the v0\.3 REST routes under \/v1/);
  }
});

both(
  'hybrid card as the SDK serves it: parsed as hybrid, consistent, every interface Verified',
  async (rt) => {
    const a = await agent(rt, { grpc: {}, legacyCompat: true, card: { serve: 'hybrid' } });
    const card = await fetchParsed(a);
    assert.equal(card.shape, 'hybrid');
    assert.equal(card.legacy?.protocolVersion, '0.3');
    assert.deepEqual(staticChecks(card), []);
    assert.deepEqual(await probeCard(card), [
      'JSONRPC@1.0=Verified',
      'HTTP+JSON@1.0=Verified',
      'GRPC@1.0=Verified',
      'JSONRPC@0.3=Verified',
      `HTTP+JSON@0.3=${V03_REST[rt]}`,
      'GRPC@0.3=Verified',
    ]);
  },
);

both(
  'v1.0-only agent probed at 0.3: VersionNotSupported (js) / Unimplemented (go) on JSON-RPC and REST; v0.3 gRPC service absent',
  async (rt) => {
    const a = await agent(rt, { grpc: {} });
    const [rpc, rest, grpc] = three(a, '0.3');
    // The spec backs js: a request without A2A-Version is a 0.3 request (§3.6.2 "Agents MUST
    // interpret empty value as 0.3") and an unsupported version MUST be answered with
    // VersionNotSupportedError (§3.6.2, §5.4). a2a-go never reads A2A-Version: its v1.0 handlers
    // answer the v0.3 method `tasks/get` with -32601 and `GET /v1/tasks/{id}` with a route 404,
    // which is what an agent without the v0.3 binding looks like: Unimplemented.
    const r1 = await probe(...rpc!);
    const r2 = await probe(...rest!);
    if (rt === 'js') {
      assert.deepEqual(stateAndReason(r1), ['VersionNotSupported', 'VersionNotSupported']);
      assert.equal(r1.evidence.jsonRpcCode, -32009);
      assert.deepEqual(stateAndReason(r2), ['VersionNotSupported', 'VersionNotSupported']);
      assert.equal(r2.evidence.errorInfoReason, 'VERSION_NOT_SUPPORTED');
    } else {
      assert.deepEqual(stateAndReason(r1), ['Unimplemented', 'InterfaceUnimplemented']);
      assert.equal(r1.evidence.jsonRpcCode, -32601);
      assert.deepEqual(stateAndReason(r2), ['Unimplemented', 'InterfaceUnimplemented']);
      assert.equal(r2.evidence.httpStatus, 404);
    }
    const r3 = await probe(...grpc!);
    assert.deepEqual(stateAndReason(r3), ['Unimplemented', 'InterfaceUnimplemented']);
    assert.equal(r3.evidence.request, '/a2a.v1.A2AService/GetTask');
    // Only the v1 service is registered: the message names the missing v0.3 one.
    assert.match(
      r3.message,
      /only lf\.a2a\.v1\.A2AService .*the v0\.3 service a2a\.v1\.A2AService is missing/,
    );
  },
);

both(
  'auth in front: AuthRequired without a token, Verified with it, AuthRequired (rejected) with a wrong one',
  async (rt) => {
    const a = await agent(rt, { grpc: {}, authToken: 's3cret' });
    for (const [port, i] of three(a)) {
      const none = await probe(port, i);
      assert.deepEqual(stateAndReason(none), ['AuthRequired', 'InterfaceAuthRequired'], i.protocolBinding);
      assert.match(none.message, /configure a probe token/);
      const good = await probe(port, i, { bearerToken: 's3cret' });
      assert.deepEqual(stateAndReason(good), ['Verified', 'Verified'], i.protocolBinding);
      const bad = await probe(port, i, { bearerToken: 'wrong' });
      assert.equal(bad.state, 'AuthRequired');
      assert.match(bad.message, /token was sent/);
      assert.doesNotMatch(JSON.stringify(bad), /wrong|s3cret/);
    }
    // Both are what the spec allows (§3.3.2: "HTTP 401, gRPC UNAUTHENTICATED, JSON-RPC custom
    // error"): js rejects JSON-RPC in HTTP middleware (401); a2a-go answers HTTP 200 with the
    // custom code -31401 and ErrorInfo UNAUTHENTICATED. REST and gRPC agree.
    const [rpc, rest, grpc] = three(a).map(([port, i]) => probe(port, i));
    const rpcEvidence = (await rpc!).evidence;
    assert.deepEqual(
      [rpcEvidence.httpStatus, rpcEvidence.jsonRpcCode, rpcEvidence.errorInfoReason],
      byRuntime(rt, { js: [401, undefined, undefined], go: [200, -31401, 'UNAUTHENTICATED'] }),
    );
    assert.equal((await rest!).evidence.httpStatus, 401);
    assert.equal((await grpc!).evidence.grpcCodeName, 'UNAUTHENTICATED');
  },
);

/** a2a-go only: ErrUnauthorized (a token that authenticates but is not allowed) on every binding. */
void test('[go] permission denied: AuthRequired on every binding (-31403, 403, PERMISSION_DENIED)', async () => {
  const a = await agent('go', { grpc: {}, authToken: 's3cret', authDeniedToken: 'intern' });
  const evidence: unknown[] = [];
  for (const [port, i] of three(a)) {
    const r = await probe(port, i, { bearerToken: 'intern' });
    assert.deepEqual(stateAndReason(r), ['AuthRequired', 'InterfaceAuthRequired'], i.protocolBinding);
    assert.match(r.message, /token was sent/);
    evidence.push([r.evidence.httpStatus, r.evidence.jsonRpcCode ?? r.evidence.grpcCodeName]);
  }
  assert.deepEqual(evidence, [
    [200, -31403],
    [403, undefined],
    [undefined, 'PERMISSION_DENIED'],
  ]);
});

both('REST routes not mounted: Unimplemented (404 without an A2A body)', async (rt) => {
  const a = await agent(rt, { http: { restPath: null } });
  const r = await probe(a.ports.http!, iface(`http://agent.internal:${a.ports.http}/a2a/rest`, 'HTTP+JSON'));
  assert.deepEqual(stateAndReason(r), ['Unimplemented', 'InterfaceUnimplemented']);
  assert.equal(r.evidence.httpStatus, 404);
  const rpc = await probe(
    a.ports.http!,
    iface(`http://agent.internal:${a.ports.http}/a2a/jsonrpc`, 'JSONRPC'),
  );
  assert.equal(rpc.state, 'Verified');
});

both('plain non-A2A HTTP server on a declared port: WrongBinding for every binding', async (rt) => {
  const a = await agent(rt, { http: false, plain: {} });
  const p = a.ports.plain!;
  for (const i of [
    iface(`http://agent.internal:${p}/a2a/jsonrpc`, 'JSONRPC'),
    iface(`http://agent.internal:${p}/a2a/rest`, 'HTTP+JSON'),
    iface(`http://agent.internal:${p}`, 'GRPC'),
  ]) {
    assert.deepEqual(stateAndReason(await probe(p, i)), ['WrongBinding', 'WrongBinding'], i.protocolBinding);
  }
});

both('HTTP/1.1 probe of a gRPC port and gRPC probe of an HTTP/1.1 port: WrongBinding', async (rt) => {
  const a = await agent(rt, { grpc: {} });
  const r1 = await probe(
    a.ports.grpc!,
    iface(`http://agent.internal:${a.ports.grpc}/a2a/jsonrpc`, 'JSONRPC'),
  );
  assert.deepEqual(stateAndReason(r1), ['WrongBinding', 'WrongBinding']);
  assert.match(r1.message, /HTTP\/2-only server/);
  const r2 = await probe(a.ports.http!, iface(`http://agent.internal:${a.ports.http}`, 'GRPC'));
  assert.deepEqual(stateAndReason(r2), ['WrongBinding', 'WrongBinding']);
  assert.match(r2.message, /HTTP\/1\.1 server answers/);
});

both(
  'TLS with a private CA and SNI: Verified; the certificate is checked against the URL host',
  async (rt) => {
    const cert = ca.issue(['agent.internal']);
    const a = await agent(rt, { http: { tls: cert }, grpc: { tls: cert } });
    for (const [port, i] of three(a, '1.0', 'https')) {
      assert.deepEqual(
        stateAndReason(await probe(port, i, { tls: { ca: ca.caCert } })),
        ['Verified', 'Verified'],
        i.protocolBinding,
      );
    }
    const sni = await a.sni();
    assert.ok(sni.length > 0 && sni.every((n) => n === 'agent.internal'), JSON.stringify(sni));
    const otherName = await probe(
      a.ports.http!,
      iface(`https://other.internal:${a.ports.http}/a2a/jsonrpc`, 'JSONRPC'),
      {
        tls: { ca: ca.caCert },
      },
    );
    assert.deepEqual(stateAndReason(otherName), ['TLSError', 'TLSError']);
    assert.equal(otherName.evidence.errorCode, 'ERR_TLS_CERT_ALTNAME_INVALID');
  },
);

both('TLS with a wrong CA: TLSError; --insecure switch accepts it', async (rt) => {
  const cert = ca.issue(['agent.internal']);
  const other = createTestCa('other-ca');
  try {
    const a = await agent(rt, { http: { tls: cert }, grpc: { tls: cert } });
    for (const [port, i] of three(a, '1.0', 'https')) {
      const r = await probe(port, i, { tls: { ca: other.caCert } });
      assert.deepEqual(stateAndReason(r), ['TLSError', 'TLSError'], i.protocolBinding);
      assert.match(r.message, /TLS handshake failed/);
      const insecure = await probe(port, i, { tls: { insecureSkipVerify: true } });
      assert.equal(insecure.state, 'Verified', i.protocolBinding);
    }
  } finally {
    other.dispose();
  }
});

both('a TLS URL answered in plaintext: TLSError that says so', async (rt) => {
  const a = await agent(rt, { grpc: {} });
  const rpc = await probe(
    a.ports.http!,
    iface(`https://agent.internal:${a.ports.http}/a2a/jsonrpc`, 'JSONRPC'),
  );
  const grpc = await probe(a.ports.grpc!, iface(`agent.internal:${a.ports.grpc}`, 'GRPC'));
  for (const r of [rpc, grpc]) {
    assert.deepEqual(stateAndReason(r), ['TLSError', 'TLSError']);
    assert.match(r.message, /answered in plaintext/);
  }
  assert.match(grpc.message, /bare host:port gRPC URL means TLS/);
});

both('a listener that accepts and never answers: Timeout', async (rt) => {
  const a = await agent(rt, { http: false, hang: {} });
  const p = a.ports.hang!;
  for (const i of [
    iface(`http://agent.internal:${p}/a2a/jsonrpc`, 'JSONRPC'),
    iface(`http://agent.internal:${p}/a2a/rest`, 'HTTP+JSON'),
    iface(`http://agent.internal:${p}`, 'GRPC'),
    iface(`https://agent.internal:${p}/a2a/jsonrpc`, 'JSONRPC'),
  ]) {
    const r = await probe(p, i);
    assert.deepEqual(stateAndReason(r), ['Timeout', 'Timeout'], i.url);
  }
});

both('connection refused: Unreachable', async (rt) => {
  const a = await agent(rt, { http: false, plain: {} });
  const port = a.ports.plain!;
  await a.close();
  for (const i of [
    iface(`http://agent.internal:${port}/x`, 'JSONRPC'),
    iface(`http://agent.internal:${port}`, 'GRPC'),
  ]) {
    const r = await probe(port, i);
    assert.deepEqual(stateAndReason(r), ['Unreachable', 'Unreachable'], i.protocolBinding);
    assert.equal(r.evidence.errorCode, 'ECONNREFUSED');
  }
});

both('an interface with a tenant: the probe carries it on every binding', async (rt) => {
  const a = await agent(rt, { grpc: {}, requireTenant: 'acme' });
  for (const [port, i] of three(a)) {
    const ok = await probe(port, { ...i, tenant: 'acme' });
    assert.deepEqual(stateAndReason(ok), ['Verified', 'Verified'], i.protocolBinding);
    const wrong = await probe(port, { ...i, tenant: 'globex' });
    assert.deepEqual(stateAndReason(wrong), ['Inconclusive', 'ProbeInconclusive'], i.protocolBinding);
  }
  assert.deepEqual(
    (await a.seen()).map((s) => s.tenant),
    ['acme', 'globex', 'acme', 'globex', 'acme', 'globex'],
  );
});

both('a 500 answer: Inconclusive with the evidence', async (rt) => {
  const a = await agent(rt, { http: { mode: 'error500' } });
  const rpc = await probe(
    a.ports.http!,
    iface(`http://agent.internal:${a.ports.http}/a2a/jsonrpc`, 'JSONRPC'),
  );
  assert.deepEqual(stateAndReason(rpc), ['Inconclusive', 'ProbeInconclusive']);
  assert.equal(rpc.evidence.httpStatus, 500);
  assert.equal(rpc.evidence.jsonRpcCode, -32603);
  const rest = await probe(
    a.ports.http!,
    iface(`http://agent.internal:${a.ports.http}/a2a/rest`, 'HTTP+JSON'),
  );
  assert.deepEqual(stateAndReason(rest), ['Inconclusive', 'ProbeInconclusive']);
  assert.equal(rest.evidence.httpStatus, 500);
});

both(
  'gRPC flipped at runtime: Verified, then Unimplemented (service unregistered), then Unreachable (stopped)',
  async (rt) => {
    const a = await agent(rt, { grpc: {} });
    const i = iface(`http://agent.internal:${a.ports.grpc}`, 'GRPC');
    assert.equal((await probe(a.ports.grpc!, i)).state, 'Verified');
    await a.stopGrpc();
    await a.startGrpc(false);
    assert.equal((await probe(a.ports.grpc!, i)).state, 'Unimplemented');
    await a.stopGrpc();
    assert.equal((await probe(a.ports.grpc!, i)).state, 'Unreachable');
    await a.startGrpc(true);
    assert.equal((await probe(a.ports.grpc!, i)).state, 'Verified');
  },
);

both('connections are reused across probes of one target', async (rt) => {
  const a = await agent(rt, {});
  const i = iface(`http://agent.internal:${a.ports.http}/a2a/jsonrpc`, 'JSONRPC');
  for (let n = 0; n < 20; n++) assert.equal((await probe(a.ports.http!, i)).state, 'Verified');
  // One pool per target: a second connection may open while the first finishes its response.
  const connections = (await a.connections()).http;
  assert.ok(connections <= 2, String(connections));
  const seen = await a.seen();
  assert.equal(seen.length, 20);
  assert.equal(new Set(seen.map((s) => s.id)).size, 20, 'every probe uses a fresh random task id');
});

both('card fetch: ETag revalidation (304, js only) and no redirect followed', async (rt) => {
  const a = await agent(rt, {});
  const base = {
    address: LOOPBACK,
    port: a.ports.http!,
    scheme: 'http' as const,
    hostHeader: `agent.internal:${a.ports.http}`,
    timeoutMs,
  };
  const first = await fetchCard({ ...base, path: '/.well-known/agent-card.json' });
  assert.equal(first.kind, 'ok');
  const etag = first.kind === 'ok' ? first.etag : undefined;
  // The spec backs js: card endpoints SHOULD send an ETag (§8.6.1); a2a-go's card handler sends
  // none, so there is nothing to revalidate and every fetch is a full one.
  if (rt === 'js') {
    assert.ok(etag);
    const again = await fetchCard({ ...base, path: '/.well-known/agent-card.json', etag });
    assert.deepEqual(again, { kind: 'notModified', etag });
  } else {
    assert.equal(etag, undefined);
    const again = await fetchCard({ ...base, path: '/.well-known/agent-card.json' });
    assert.equal(again.kind, 'ok');
  }
  // Express redirects a directory-like path with a trailing slash: 301 must not be followed.
  const missing = await fetchCard({ ...base, path: '/.well-known/nothing.json' });
  assert.equal(missing.kind === 'error' && missing.error.reason, 'CardFetchFailed');
  assert.equal(missing.kind === 'error' && missing.error.evidence.httpStatus, 404);
});

both('Ineligible interfaces are never dialled by the Prober either', async (rt) => {
  const a = await agent(rt, { http: false, hang: {} });
  const r = await probe(a.ports.hang!, iface(`https://agent.internal:${a.ports.hang}/a2a`, 'GRPC'));
  assert.deepEqual(stateAndReason(r), ['Ineligible', 'Ineligible']);
  assert.equal((await a.connections()).hang, 0);
});
