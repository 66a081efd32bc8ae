// The failover client's pure core: which interfaces it calls in which order (seeds/003, and the
// seed card of seeds/000), what each verdict means for this call and the next, and the shared
// classifier on call failures (the probes' vocabulary, plus "may the request have arrived").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCard, type ParsedCard } from '../../src/card/index.js';
import { candidatesOf, compareVersionsDescending } from '../../src/client/candidates.js';
import { attemptOrder, CallOutcome, decide, failureClass } from '../../src/client/failover-policy.js';
import { classifyCallFailure } from '../../src/probe/call-failure.js';

function parsed(card: unknown): ParsedCard {
  const p = parseCard(card);
  if (!('interfaces' in p)) throw new Error(p.message);
  return p;
}

const v1 = (ifaces: [string, string, string][]) =>
  parsed({
    name: 'a',
    supportedInterfaces: ifaces.map(([protocolBinding, url, protocolVersion]) => ({
      protocolBinding,
      url,
      protocolVersion,
    })),
  });

void test('candidates: highest version first, equal versions in card order, ineligible ones skipped with the reason', () => {
  const list = candidatesOf(
    v1([
      ['JSONRPC', 'http://h:1/rpc', '1.0'],
      ['GRPC', 'http://h:2', '1.1'],
      ['HTTP+JSON', 'http://h:1/rest', '1.0'],
      ['JSONRPC', 'http://h:1/old', '0.3'],
      ['WEBSOCKET', 'ws://h:3', '1.0'],
      ['GRPC', 'http://h:4/with/path', '1.0'],
      ['JSONRPC', 'http://h:5/x', '2.0'],
    ]),
  );
  assert.deepEqual(
    list.candidates.map((c) => `${c.protocolBinding}@${c.protocolVersion}`),
    ['GRPC@1.1', 'JSONRPC@1.0', 'HTTP+JSON@1.0', 'JSONRPC@0.3'],
  );
  assert.deepEqual(
    list.skipped.map((s) => s.reason),
    ['UnsupportedBinding', 'InterfaceURLInvalid', 'UnsupportedProtocolVersion'],
  );
});

void test('candidates: an HTTPS card never hands out a plaintext interface', () => {
  const list = candidatesOf(
    v1([
      ['JSONRPC', 'http://h:1/rpc', '1.0'],
      ['JSONRPC', 'https://h:2/rpc', '1.0'],
    ]),
    {
      cardScheme: 'https',
    },
  );
  assert.deepEqual(
    list.candidates.map((c) => c.url),
    ['https://h:2/rpc'],
  );
  assert.equal(list.skipped[0]?.reason, 'InsecureDowngrade');
});

void test('the seed card (v0.3): preferredTransport is a hint over additionalInterfaces, never a binding for url', () => {
  const list = candidatesOf(
    parsed({
      name: 'seed',
      url: 'http://agent.internal:8443',
      protocolVersion: '0.3',
      preferredTransport: 'GRPC',
      additionalInterfaces: [
        { url: 'http://agent.internal:8443', transport: 'JSONRPC' },
        { url: 'http://agent.internal:9443', transport: 'GRPC' },
      ],
    }),
  );
  assert.deepEqual(
    list.candidates.map((c) => `${c.protocolBinding} ${c.url}`),
    ['GRPC http://agent.internal:9443', 'JSONRPC http://agent.internal:8443'],
  );
  assert.deepEqual(
    list.skipped.map((s) => `${s.protocolBinding} ${s.url} ${s.reason}`),
    ['GRPC http://agent.internal:8443 PreferredTransportNotDeclared'],
  );
});

void test('a v0.3 card without additionalInterfaces is called at its url with its transport', () => {
  const list = candidatesOf(parsed({ url: 'http://h:1/rpc', protocolVersion: '0.3.0' }));
  assert.deepEqual(
    list.candidates.map((c) => `${c.protocolBinding} ${c.url}`),
    ['JSONRPC http://h:1/rpc'],
  );
});

void test('versions compare numerically', () => {
  assert.deepEqual(['1.0', '1.10', '0.3', '1.2'].sort(compareVersionsDescending), [
    '1.10',
    '1.2',
    '1.0',
    '0.3',
  ]);
});

void test('policy: each verdict class, unary and stream', () => {
  const table: [string, boolean, boolean, string, boolean, boolean, string][] = [
    // state, requestSent, streaming -> class, tryNext, advance, outcome
    ['Unimplemented', true, false, 'unserved', true, true, CallOutcome.Exhausted],
    ['WrongBinding', true, false, 'unserved', true, true, CallOutcome.Exhausted],
    ['VersionNotSupported', true, false, 'unserved', true, true, CallOutcome.Exhausted],
    ['Unreachable', false, false, 'unserved', true, true, CallOutcome.Exhausted],
    ['TLSError', false, false, 'unserved', true, true, CallOutcome.Exhausted],
    ['Unreachable', true, false, 'ambiguous', false, true, CallOutcome.Ambiguous],
    ['Timeout', true, false, 'ambiguous', false, true, CallOutcome.Ambiguous],
    ['Inconclusive', true, false, 'ambiguous', false, true, CallOutcome.Ambiguous],
    ['AuthRequired', true, false, 'auth', false, false, CallOutcome.AuthRequired],
    ['Verified', true, false, 'answered', false, false, CallOutcome.AgentError],
    ['Unreachable', false, true, 'unserved', false, true, CallOutcome.StreamFailed],
    ['Unimplemented', true, true, 'unserved', false, true, CallOutcome.StreamFailed],
    ['Unreachable', true, true, 'ambiguous', false, true, CallOutcome.StreamFailed],
    ['AuthRequired', true, true, 'auth', false, false, CallOutcome.AuthRequired],
  ];
  for (const [state, sent, streaming, cls, tryNext, advance, outcome] of table) {
    const c = failureClass(state as never, sent);
    assert.equal(c, cls, `${state} sent=${sent}`);
    assert.deepEqual(
      decide(c, streaming),
      { tryNext, advance, outcome },
      `${state} sent=${sent} stream=${streaming}`,
    );
  }
});

void test('attempt order: from the selected candidate, around the list, each once', () => {
  assert.deepEqual(attemptOrder(0, 3), [0, 1, 2]);
  assert.deepEqual(attemptOrder(2, 3), [2, 0, 1]);
  assert.deepEqual(attemptOrder(0, 1), [0]);
});

const ctx = {
  what: 'x',
  request: 'SendMessage',
  version: '1.0',
  bearerSent: false,
  tls: false,
  timeoutMs: 1000,
};
const json = (status: number, body: unknown, contentType = 'application/json') => ({
  status,
  contentType,
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

void test('call failures: the probes classifiers, and whether the request may have arrived', () => {
  const cases: [string, ReturnType<typeof classifyCallFailure>, string, boolean][] = [
    [
      'refused',
      classifyCallFailure(
        { kind: 'transport', error: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) },
        ctx,
      ),
      'Unreachable',
      false,
    ],
    [
      'reset after send',
      classifyCallFailure(
        { kind: 'transport', error: new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } }) },
        ctx,
      ),
      'Unreachable',
      true,
    ],
    [
      'route 404',
      classifyCallFailure(
        { kind: 'http', binding: 'JSONRPC', answer: json(404, '<html>', 'text/html') },
        ctx,
      ),
      'Unimplemented',
      true,
    ],
    [
      'method not found',
      classifyCallFailure(
        {
          kind: 'http',
          binding: 'JSONRPC',
          answer: json(200, { jsonrpc: '2.0', id: 1, error: { code: -32601 } }),
        },
        ctx,
      ),
      'Unimplemented',
      true,
    ],
    [
      '401',
      classifyCallFailure({ kind: 'http', binding: 'HTTP+JSON', answer: json(401, '') }, ctx),
      'AuthRequired',
      true,
    ],
    [
      '500',
      classifyCallFailure(
        {
          kind: 'http',
          binding: 'JSONRPC',
          answer: json(500, { jsonrpc: '2.0', id: 1, error: { code: -32603 } }),
        },
        ctx,
      ),
      'Inconclusive',
      true,
    ],
    [
      'TaskNotCancelable is the handler answering',
      classifyCallFailure(
        {
          kind: 'http',
          binding: 'JSONRPC',
          answer: json(200, { jsonrpc: '2.0', id: 1, error: { code: -32002 } }),
        },
        { ...ctx, a2aReason: 'TASK_NOT_CANCELABLE' },
      ),
      'Verified',
      true,
    ],
    [
      'an accepted event stream that breaks',
      classifyCallFailure({ kind: 'stream', error: new Error('x') }, ctx),
      'Inconclusive',
      true,
    ],
    [
      'an accepted event stream that carries an A2A error',
      classifyCallFailure(
        { kind: 'stream', error: new Error('x') },
        { ...ctx, a2aReason: 'UNSUPPORTED_OPERATION' },
      ),
      'Verified',
      true,
    ],
    [
      'gRPC UNIMPLEMENTED',
      classifyCallFailure(
        { kind: 'grpc', code: 12, details: '', grpcContentType: true, dispatched: true },
        ctx,
      ),
      'Unimplemented',
      true,
    ],
    [
      'gRPC UNAUTHENTICATED',
      classifyCallFailure(
        { kind: 'grpc', code: 16, details: '', grpcContentType: true, dispatched: true },
        ctx,
      ),
      'AuthRequired',
      true,
    ],
    [
      'gRPC connection lost after dispatch',
      classifyCallFailure(
        { kind: 'grpc', code: 14, details: '', grpcContentType: false, dispatched: true },
        ctx,
      ),
      'Unreachable',
      true,
    ],
    [
      'gRPC never connected',
      classifyCallFailure(
        { kind: 'grpc', code: 14, details: '', grpcContentType: false, dispatched: false },
        ctx,
      ),
      'Unreachable',
      false,
    ],
  ];
  for (const [name, got, state, sent] of cases) {
    assert.equal(got.verdict.state, state, name);
    assert.equal(got.requestSent, sent, name);
  }
});

/** What undici's `fetch` throws for a malformed answer: a TypeError around an HTTPParserError. */
const parserError = (code: string | undefined, data: string) =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('Response does not match the HTTP/1.1 protocol'), {
      name: 'HTTPParserError',
      code,
      data,
    }),
  });
const settingsFrame = String.fromCharCode(0, 0, 0, 4, 0, 0, 0, 0, 0) + '\u00fe'.repeat(16);
const outcomeOf = (v: ReturnType<typeof classifyCallFailure>) =>
  decide(failureClass(v.verdict.state, v.requestSent), false).outcome;

type Case = [string, ReturnType<typeof classifyCallFailure>, string, CallOutcome];
function check(cases: Case[]): void {
  for (const [name, got, state, outcome] of cases) {
    assert.equal(got.verdict.state, state, name);
    assert.equal(outcomeOf(got), outcome, name);
  }
}

void test('scenario A: an answer that breaks in its headers or chunked body after the request was sent is Ambiguous, not replayed', () => {
  check([
    // Scenario A: the agent acted, then its answer broke in the headers or the chunked body.
    [
      'bad header token',
      classifyCallFailure(
        { kind: 'transport', error: parserError('HPE_INVALID_HEADER_TOKEN', ' Header: x\r\n') },
        ctx,
      ),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'bad header token, bare parser error',
      classifyCallFailure(
        {
          kind: 'transport',
          error: Object.assign(new Error('x'), { code: 'HPE_INVALID_HEADER_TOKEN', data: ' H: x' }),
        },
        ctx,
      ),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'bad chunk size in the body of a 200',
      classifyCallFailure(
        {
          kind: 'transport',
          error: new TypeError('terminated', { cause: parserError('HPE_INVALID_CHUNK_SIZE', 'ZZ\r\n') }),
          afterHeaders: true,
        },
        ctx,
      ),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'a body that broke off with bytes that look like an HTTP/2 frame: still after the headers',
      classifyCallFailure(
        { kind: 'transport', error: parserError(undefined, settingsFrame), afterHeaders: true },
        ctx,
      ),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'a parser error without a code (undici 7) in the status line',
      classifyCallFailure({ kind: 'transport', error: parserError(undefined, 'x0 OK\r\n\r\n') }, ctx),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
  ]);
});

void test('scenario B: a 2xx whose body is empty, not JSON or cut at the capture cap is Ambiguous, not replayed', () => {
  check([
    // Scenario B: a 2xx whose body is not an A2A answer (empty, not JSON, cut at the capture cap).
    [
      'JSON-RPC 200 empty',
      classifyCallFailure({ kind: 'http', binding: 'JSONRPC', answer: json(200, '', '') }, ctx),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'JSON-RPC 200 text/html',
      classifyCallFailure(
        { kind: 'http', binding: 'JSONRPC', answer: json(200, '<html>', 'text/html') },
        ctx,
      ),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'JSON-RPC 200 cut at the 64 KiB capture cap',
      classifyCallFailure(
        {
          kind: 'http',
          binding: 'JSONRPC',
          answer: json(
            200,
            `{"jsonrpc":"2.0","id":1,"result":{"x":"${'a'.repeat(64 * 1024)}`.slice(0, 64 * 1024),
          ),
        },
        ctx,
      ),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'REST 200 not JSON',
      classifyCallFailure({ kind: 'http', binding: 'HTTP+JSON', answer: json(200, 'ok', 'text/plain') }, ctx),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'REST 201 empty',
      classifyCallFailure({ kind: 'http', binding: 'HTTP+JSON', answer: json(201, '', '') }, ctx),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
    [
      'an HTTP/2 answer without a gRPC status, after the call was dispatched',
      classifyCallFailure(
        { kind: 'grpc', code: 2, details: '', grpcContentType: false, dispatched: true },
        ctx,
      ),
      'Inconclusive',
      CallOutcome.Ambiguous,
    ],
  ]);
});

void test('WrongBinding stays a next-candidate failure only where the answer proves no handler read the request', () => {
  check([
    // Answers that prove no handler read the request: the next candidate is tried.
    [
      'HTTP 415 (REST)',
      classifyCallFailure({ kind: 'http', binding: 'HTTP+JSON', answer: json(415, '') }, ctx),
      'WrongBinding',
      CallOutcome.Exhausted,
    ],
    [
      'HTTP 415 (JSON-RPC)',
      classifyCallFailure({ kind: 'http', binding: 'JSONRPC', answer: json(415, 'no', 'text/plain') }, ctx),
      'WrongBinding',
      CallOutcome.Exhausted,
    ],
    [
      'not HTTP/1 at all (HPE_INVALID_CONSTANT)',
      classifyCallFailure(
        { kind: 'transport', error: parserError('HPE_INVALID_CONSTANT', 'hello\r\n') },
        ctx,
      ),
      'WrongBinding',
      CallOutcome.Exhausted,
    ],
    [
      'an HTTP/2 SETTINGS frame answering an HTTP/1 request (undici 7: no code)',
      classifyCallFailure({ kind: 'transport', error: parserError(undefined, settingsFrame) }, ctx),
      'WrongBinding',
      CallOutcome.Exhausted,
    ],
    [
      'ALPN h2 refused',
      classifyCallFailure(
        {
          kind: 'transport',
          error: Object.assign(new Error('x'), { code: 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' }),
        },
        { ...ctx, tls: true },
      ),
      'WrongBinding',
      CallOutcome.Exhausted,
    ],
  ]);
});
