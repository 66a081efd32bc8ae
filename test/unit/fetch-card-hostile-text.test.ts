// fetchCard's messages reach status, Events and the CLI: they are made from codes and positions
// the operator chooses, never from the server's text. A real local server answers a body that is
// not JSON but carries a token-like string and ANSI codes, and redirects whose Location carries
// `?token=` and control characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { fetchCard } from '../../src/probe/fetch-card.js';
import { syntaxErrorOffset } from '../../src/probe/parse-card-body.js';

const TOKEN = 'ghp_LeakedTok3n';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/** An HTTP/1.1 server writing `head` (status line and headers, raw bytes) and `body` verbatim. */
async function rawServer(
  answer: () => { head: Buffer; body: Buffer },
): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => {
      const { head, body } = answer();
      socket.end(
        Buffer.concat([
          head,
          Buffer.from(`content-length: ${body.length}\r\nconnection: close\r\n\r\n`, 'latin1'),
          body,
        ]),
      );
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

function assertClean(message: string): void {
  assert.ok(!message.includes(TOKEN), message);
  assert.ok(!message.includes('Tok3n'), message);
  // eslint-disable-next-line no-control-regex -- the point
  assert.doesNotMatch(message, /[\u0000-\u001f\u007f-\u009f]/, JSON.stringify(message));
}

const opts = (port: number) => ({
  address: '127.0.0.1',
  port,
  scheme: 'http' as const,
  path: '/.well-known/agent-card.json',
  hostHeader: 'agent.internal',
  timeoutMs: 5000,
});

void test('a body that is not JSON: "not valid JSON at byte N", no snippet of the body', async () => {
  // JSON.parse's own message for these quotes the body: '"tok…' is not valid JSON / the snippet.
  const bodies: [string, number | undefined][] = [
    [`{"name":"a","token":"${TOKEN}\u001b[31m"}`, 21 + TOKEN.length],
    [`${TOKEN}\u001b[2J`, undefined],
    [`{"name":"\u00e9${TOKEN}",}`, 13 + TOKEN.length],
    [`{"token":"${TOKEN}`, 10 + TOKEN.length],
  ];
  let current = '';
  const server = await rawServer(() => ({
    head: Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n', 'latin1'),
    body: Buffer.from(current, 'utf8'),
  }));
  try {
    for (const [body, at] of bodies) {
      current = body;
      let parserMessage = '';
      try {
        JSON.parse(body);
      } catch (err) {
        parserMessage = (err as Error).message;
      }
      const res = await fetchCard(opts(server.port));
      assert.equal(res.kind, 'error');
      if (res.kind !== 'error') continue;
      assert.equal(res.error.reason, 'CardInvalid');
      assert.equal(res.error.evidence.httpStatus, 200);
      assert.match(
        res.error.message,
        at === undefined ? /not valid JSON$/ : new RegExp(`not valid JSON at byte ${at}$`),
      );
      assertClean(res.error.message);
      if (parserMessage.includes(TOKEN.slice(0, 8)))
        assert.ok(!res.error.message.includes(parserMessage), 'the parser message is not quoted');
    }
  } finally {
    server.close();
  }
});

void test('a redirect: "redirect (HTTP 302) to <displayUrl(location)>, not followed", token and control characters gone', async () => {
  const locations: [Buffer, RegExp][] = [
    [
      // A C1 CSI (0x9b, an ANSI escape as latin1) and a tab in the path, the token in the query.
      Buffer.from(`http://meta.internal/x\u009b31m\tz?token=${TOKEN}&page=2`, 'latin1'),
      /redirect \(HTTP 302\) to http:\/\/meta\.internal\/x\\u\{9b\}31m\\u\{9\}z\?token=\*\*\*&page=2, not followed/,
    ],
    [
      Buffer.from(`http://u:${TOKEN}@meta.internal/#access_token=${TOKEN}`, 'latin1'),
      /redirect \(HTTP 302\) to http:\/\/\*\*\*@meta\.internal\/#access_token=\*\*\*, not followed/,
    ],
    [Buffer.from(`/${'a'.repeat(10_000)}?sig=${TOKEN}`, 'latin1'), /to \/a{200,}…, not followed/],
  ];
  let current: Buffer = Buffer.alloc(0);
  const server = await rawServer(() => ({
    head: Buffer.concat([
      Buffer.from('HTTP/1.1 302 Found\r\nlocation: ', 'latin1'),
      current,
      Buffer.from('\r\n'),
    ]),
    body: Buffer.from('moved'),
  }));
  try {
    for (const [location, want] of locations) {
      current = location;
      const res = await fetchCard(opts(server.port));
      assert.equal(res.kind, 'error');
      if (res.kind !== 'error') continue;
      assert.equal(res.error.reason, 'CardFetchFailed');
      assert.equal(res.error.evidence.httpStatus, 302);
      assert.match(res.error.message, want);
      assertClean(res.error.message);
      assert.ok(res.error.message.length < 600, `${res.error.message.length} characters`);
    }
    // An ESC (0x1b) in a header value is refused by the HTTP parser: a failed fetch, nothing quoted.
    current = Buffer.from(`http://meta.internal/\u001b[2J?token=${TOKEN}`, 'latin1');
    const res = await fetchCard(opts(server.port));
    assert.equal(res.kind, 'error');
    if (res.kind === 'error') assertClean(res.error.message);
  } finally {
    server.close();
  }
});

void test('syntaxErrorOffset: a byte offset from the position alone, or nothing', () => {
  assert.equal(syntaxErrorOffset(new SyntaxError('Unexpected end of JSON input'), '{"é'), 4);
  assert.equal(syntaxErrorOffset(new SyntaxError('x in JSON at position 2 (line 1)'), 'éé{'), 4);
  assert.equal(
    syntaxErrorOffset(new SyntaxError(`Unexpected token 'a', "a" is not valid JSON`), 'a'),
    undefined,
  );
  assert.equal(syntaxErrorOffset(new SyntaxError('in JSON at position 99'), 'ab'), undefined);
  assert.equal(syntaxErrorOffset('not an error', 'ab'), undefined);
});
