/**
 * `a2a-operator/client` against real agents on both runtimes (JS SDK, a2a-go): the seed scenario,
 * UNAUTHENTICATED not retried elsewhere, a request the agent read is never replayed (unary or
 * stream, a dropped connection or a broken 200 answer), selection sticks and wraps around, a refused connection fails over within the call,
 * and card refreshes are throttled. Every "not replayed" is counted on the agents' side.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallOutcome, FailoverCallError, FailoverClient } from '../../src/client/index.js';
import {
  brokenAnswerServer,
  dropAfterGrpcRequestServer,
  dropAfterRequestServer,
  hangingServer,
} from '../agents/raw-listeners.js';
import { card, grpc, jsonrpc, rest } from '../harness/client-cards.js';
import { textMessageRequest } from '../../src/client/text-message.js';
import { RUNTIMES, startLocalAgent, type LocalAgent, type LocalAgentConfig } from '../harness/local-agent.js';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of closers.reverse()) await c();
});

async function agent(rt: (typeof RUNTIMES)[number], config: LocalAgentConfig = {}): Promise<LocalAgent> {
  const a = await startLocalAgent(rt, config);
  closers.push(() => a.close());
  return a;
}

/** A client closed after the test (its gRPC channels and HTTP pool), before the agents stop. */
async function failoverClient(...args: Parameters<typeof FailoverClient.create>): Promise<FailoverClient> {
  const c = await FailoverClient.create(...args);
  closers.push(() => c.close());
  return c;
}

async function listen(
  server: Server | ReturnType<typeof dropAfterGrpcRequestServer> | ReturnType<typeof hangingServer>,
): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as AddressInfo).port;
}

/** A loopback port nothing listens on (bound, then closed). */
async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let n = 0;
const message = (taskId?: string) =>
  textMessageRequest('hello', { messageId: `msg-${process.pid}-${++n}`, ...(taskId ? { taskId } : {}) });

const sends = async (a: LocalAgent) => (await a.calls()).filter((c) => /Send/i.test(c)).length;

async function failure(p: Promise<unknown>): Promise<FailoverCallError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof FailoverCallError, String(err));
    return err;
  }
  assert.fail('the call succeeded');
}

async function drainStream(it: AsyncGenerator<unknown>): Promise<void> {
  for await (const _ of it) {
    /* consume */
  }
}

for (const rt of RUNTIMES) {
  void test(`[${rt}] seed scenario: the gRPC attempts fail as WrongBinding and Unimplemented, JSON-RPC serves the message once`, async () => {
    const a = await agent(rt, { grpc: { register: false } });
    const client = await failoverClient({
      card: card([grpc(a.ports.http!), grpc(a.ports.grpc!), jsonrpc(a.ports.http!)]),
    });
    await client.sendMessage(message());
    const r = client.lastReport!;
    assert.equal(r.outcome, CallOutcome.Served);
    assert.equal(r.servedBy?.protocolBinding, 'JSONRPC');
    assert.deepEqual(
      r.attempts.map((x) => `${x.interface.protocolBinding}=${x.state}`),
      ['GRPC=WrongBinding', 'GRPC=Unimplemented'],
    );
    assert.equal(await sends(a), 1);
    // The selection sticks to the interface that served: the next call makes no gRPC attempt.
    await client.sendMessage(message());
    assert.deepEqual(client.lastReport!.attempts, []);
    assert.equal(await sends(a), 2);
  });

  void test(`[${rt}] the seed card itself (v0.3): preferredTransport GRPC is a hint over additionalInterfaces, the unregistered gRPC fails as Unimplemented, JSON-RPC serves`, async () => {
    const a = await agent(rt, { grpc: { register: false }, legacyCompat: true });
    const rpc = `http://127.0.0.1:${a.ports.http}/a2a/jsonrpc`;
    const client = await failoverClient({
      card: {
        name: 'seed-agent',
        protocolVersion: '0.3.0',
        url: rpc,
        preferredTransport: 'GRPC',
        additionalInterfaces: [
          { url: rpc, transport: 'JSONRPC' },
          { url: `http://127.0.0.1:${a.ports.grpc}`, transport: 'GRPC' },
        ],
        capabilities: {},
        skills: [],
      },
    });
    assert.deepEqual(
      client.skipped.map((x) => `${x.protocolBinding} ${x.reason}`),
      ['GRPC PreferredTransportNotDeclared'],
    );
    await client.sendMessage(message());
    const r = client.lastReport!;
    assert.equal(r.servedBy?.protocolBinding, 'JSONRPC');
    assert.deepEqual(
      r.attempts.map((x) => `${x.interface.protocolBinding}=${x.state}`),
      ['GRPC=Unimplemented'],
    );
    assert.equal(await sends(a), 1);
  });

  void test(`[${rt}] UNAUTHENTICATED is returned at once, never retried on another binding or agent`, async () => {
    const locked = await agent(rt, { grpc: {}, authToken: 's3cret' });
    const open = await agent(rt);
    const client = await failoverClient({
      card: card([grpc(locked.ports.grpc!), jsonrpc(locked.ports.http!), jsonrpc(open.ports.http!)]),
    });
    const err = await failure(client.sendMessage(message()));
    assert.equal(err.outcome, CallOutcome.AuthRequired);
    assert.deepEqual(
      err.report.attempts.map((x) => `${x.interface.protocolBinding}=${x.state}`),
      ['GRPC=AuthRequired'],
    );
    assert.equal(await sends(open), 0);
    // a2a-go counts the refused call in its interceptor, the JS agent refuses before its handler.
    assert.ok((await sends(locked)) <= 1);
    assert.equal(client.selected?.protocolBinding, 'GRPC', 'an auth refusal does not move the selection');
  });

  void test(`[${rt}] a connection closed after the request was sent is returned as Ambiguous, not replayed`, async () => {
    const a = await agent(rt);
    const drop = dropAfterRequestServer();
    const dropPort = await listen(drop);
    const client = await failoverClient({ card: card([jsonrpc(dropPort), jsonrpc(a.ports.http!)]) });
    const err = await failure(client.sendMessage(message('task-known-1')));
    assert.equal(err.outcome, CallOutcome.Ambiguous);
    assert.equal(err.taskId, 'task-known-1');
    assert.equal(err.report.attempts.length, 1);
    assert.equal(err.report.attempts[0]!.requestSent, true);
    assert.equal(drop.requests.length, 1);
    assert.equal(await sends(a), 0, 'the message was not sent again to the next interface');
    // Later traffic moves on: the next call goes to the agent, the dropping endpoint sees nothing more.
    await client.sendMessage(message());
    assert.equal(client.lastReport!.servedBy?.url, jsonrpc(a.ports.http!).url);
    assert.equal(drop.requests.length, 1);
    assert.equal(await sends(a), 1);
  });

  void test(`[${rt}] a 200 whose body is broken (bad chunk size) or not JSON is Ambiguous, not replayed`, async () => {
    const a = await agent(rt);
    for (const mode of ['chunk', 'text'] as const) {
      const broken = brokenAnswerServer(mode);
      const port = await listen(broken);
      const client = await failoverClient({ card: card([jsonrpc(port), jsonrpc(a.ports.http!)]) });
      const err = await failure(client.sendMessage(message(`task-known-${mode}`)));
      assert.equal(err.outcome, CallOutcome.Ambiguous, mode);
      assert.equal(err.taskId, `task-known-${mode}`, mode);
      assert.equal(err.report.attempts.length, 1, mode);
      assert.equal(err.report.attempts[0]!.state, 'Inconclusive', mode);
      assert.equal(err.report.attempts[0]!.requestSent, true, mode);
      assert.equal(broken.requests.length, 1, mode);
      assert.equal(await sends(a), 0, `${mode}: the message was not sent again to the next interface`);
    }
  });

  void test(`[${rt}] a gRPC connection lost after the call was sent is Ambiguous, not replayed`, async () => {
    const a = await agent(rt);
    const drop = dropAfterGrpcRequestServer();
    const dropPort = await listen(drop);
    const client = await failoverClient({ card: card([grpc(dropPort), jsonrpc(a.ports.http!)]) });
    const err = await failure(client.sendMessage(message()));
    assert.equal(err.outcome, CallOutcome.Ambiguous);
    assert.equal(err.report.attempts[0]!.requestSent, true);
    assert.deepEqual(drop.requests, ['/lf.a2a.v1.A2AService/SendMessage']);
    assert.equal(await sends(a), 0);
    assert.equal(client.selected?.protocolBinding, 'JSONRPC');
  });

  void test(`[${rt}] an attempt that gets no answer in time is Ambiguous (Timeout), not replayed`, async () => {
    const a = await agent(rt);
    const hang = hangingServer();
    const hangPort = await listen(hang);
    const client = await failoverClient(
      { card: card([jsonrpc(hangPort), jsonrpc(a.ports.http!)]) },
      { callTimeoutMs: 1000 },
    );
    const err = await failure(client.sendMessage(message('task-known-2')));
    assert.equal(err.outcome, CallOutcome.Ambiguous);
    assert.equal(err.report.attempts[0]!.state, 'Timeout');
    assert.equal(err.taskId, 'task-known-2');
    assert.equal(await sends(a), 0);
    assert.equal(client.selected?.url, jsonrpc(a.ports.http!).url);
  });

  void test(`[${rt}] a stream is never replayed, not even after a refused connection`, async () => {
    const a = await agent(rt);
    const drop = dropAfterRequestServer();
    const dropPort = await listen(drop);
    const refused = await refusedPort();
    const client = await failoverClient({
      card: card([jsonrpc(refused), jsonrpc(dropPort), jsonrpc(a.ports.http!)]),
    });
    const first = await failure(drainStream(client.sendMessageStream(message())));
    assert.equal(first.outcome, CallOutcome.StreamFailed);
    assert.equal(first.report.attempts[0]!.state, 'Unreachable');
    assert.equal(first.report.attempts[0]!.requestSent, false);
    assert.equal(drop.requests.length, 0);
    assert.equal(await sends(a), 0);
    const second = await failure(drainStream(client.sendMessageStream(message())));
    assert.equal(second.outcome, CallOutcome.StreamFailed);
    assert.equal(drop.requests.length, 1);
    assert.equal(await sends(a), 0);
    await drainStream(client.sendMessageStream(message()));
    assert.equal(client.lastReport!.outcome, CallOutcome.Served);
    assert.equal(await sends(a), 1);
  });

  void test(`[${rt}] selection sticks to the serving interface and wraps around after the last`, async () => {
    const x = await agent(rt);
    const y = await agent(rt);
    const client = await failoverClient({ card: card([jsonrpc(x.ports.http!), rest(y.ports.http!)]) });
    await client.sendMessage(message());
    await client.sendMessage(message());
    assert.deepEqual([await sends(x), await sends(y)], [2, 0]);

    await x.setHttpMode('error500');
    const ambiguous = await failure(client.sendMessage(message()));
    assert.equal(ambiguous.outcome, CallOutcome.Ambiguous);
    assert.equal(await sends(y), 0, 'an ambiguous failure is not replayed on the next interface');
    assert.equal(client.selected?.protocolBinding, 'HTTP+JSON');
    await client.sendMessage(message());
    assert.equal(await sends(y), 1);

    await x.setHttpMode('a2a');
    await y.setHttpMode('error500');
    const again = await failure(client.sendMessage(message()));
    assert.equal(again.outcome, CallOutcome.Ambiguous);
    assert.equal(
      client.selected?.protocolBinding,
      'JSONRPC',
      'after the last candidate, selection wraps to the first',
    );
    const before = await sends(x);
    await client.sendMessage(message());
    assert.equal(client.lastReport!.servedBy?.protocolBinding, 'JSONRPC');
    assert.equal(await sends(x), before + 1);
  });

  void test(`[${rt}] a refused connection fails over within the same unary call (HTTP and gRPC)`, async () => {
    const a = await agent(rt);
    const client = await failoverClient({
      card: card([jsonrpc(await refusedPort()), grpc(await refusedPort()), rest(a.ports.http!)]),
    });
    await client.sendMessage(message());
    const r = client.lastReport!;
    assert.equal(r.servedBy?.protocolBinding, 'HTTP+JSON');
    assert.deepEqual(
      r.attempts.map((x) => `${x.interface.protocolBinding}=${x.state}/${x.requestSent}`),
      ['JSONRPC=Unreachable/false', 'GRPC=Unreachable/false'],
    );
    assert.equal(await sends(a), 1);
  });

  void test(`[${rt}] a stale-address failure refreshes the card in the background, throttled`, async () => {
    const a = await agent(rt);
    const refused = await refusedPort();
    let served = card([jsonrpc(refused)]);
    let fetches = 0;
    const cardServer = createServer((req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
    });
    const cardPort = await listen(cardServer);
    let now = 1_000_000;
    let refreshed: () => void = () => {};
    const client = await failoverClient(
      { cardUrl: `http://127.0.0.1:${cardPort}/.well-known/agent-card.json` },
      {
        now: () => now,
        cardRefreshIntervalMs: 60_000,
        onCardRefresh: () => refreshed(),
      },
    );
    assert.equal(fetches, 1);
    let done = new Promise<void>((r) => (refreshed = r));
    for (let i = 0; i < 5; i++) {
      assert.equal((await failure(client.sendMessage(message()))).outcome, CallOutcome.Exhausted);
    }
    await done;
    assert.equal(fetches, 2, 'five stale failures within the interval: one refresh');
    served = card([jsonrpc(refused), jsonrpc(a.ports.http!)]);
    await failure(client.sendMessage(message()));
    assert.equal(fetches, 2);
    now += 60_000;
    done = new Promise<void>((r) => (refreshed = r));
    await failure(client.sendMessage(message()));
    await done;
    assert.equal(fetches, 3);
    // The refreshed card's new interface serves the next call.
    await client.sendMessage(message());
    assert.equal(client.lastReport!.servedBy?.url, jsonrpc(a.ports.http!).url);
    assert.equal(await sends(a), 1);
  });
}
