/**
 * Capability truth, the pure part: each binding's answer reduced to a signal, and each signal
 * judged against the card's claim (docs/conditions.md, "Capability truth"). The wire forms per binding and version too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  capabilityVerdict,
  grpcCapabilityAnswer,
  jsonRpcCapabilityAnswer,
  restCapabilityAnswer,
  type CapabilityAnswer,
} from '../../src/probe/index.js';
import { firstSseData } from '../../src/probe/classify-capability.js';
import {
  grpcCapabilityCall,
  jsonRpcCapabilityCall,
  restCapabilityCall,
} from '../../src/probe/capability-wire.js';
import { errorInfo, httpAnswer, rpcError } from './answer-fixtures.js';

const info = (reason: string) => errorInfo(reason);
const json = httpAnswer;

test('JSON-RPC answers → signals, plain and as the first SSE event', () => {
  const cases: [ReturnType<typeof json>, string][] = [
    [json(200, rpcError(-32001)), 'TaskNotFound'],
    [json(200, rpcError(-32004)), 'Unsupported'],
    [json(200, rpcError(-32003)), 'PushNotSupported'],
    [json(200, rpcError(-32007)), 'NotConfigured'],
    [json(200, rpcError(-32601)), 'MethodMissing'],
    [json(200, rpcError(-31401, [info('UNAUTHENTICATED')])), 'Auth'],
    [json(401, 'no'), 'Auth'],
    [json(200, rpcError(-32000, [info('UNSUPPORTED_OPERATION')])), 'Unsupported'],
    [json(500, rpcError(-32603)), 'Other'],
    [json(200, { jsonrpc: '2.0', id: 'p', result: {} }), 'Success'],
    [json(404, '<html>', 'text/html'), 'MethodMissing'],
    [json(200, 'hello', 'text/plain'), 'Other'],
    [
      json(200, `event: x\ndata: ${JSON.stringify(rpcError(-32001))}\n\n`, 'text/event-stream'),
      'TaskNotFound',
    ],
    [json(200, `data: ${JSON.stringify(rpcError(-32004))}\r\n\r\n`, 'text/event-stream'), 'Unsupported'],
    [json(200, `data: {"jsonrpc":"2.0","result":{"task":{}}}\n\n`, 'text/event-stream'), 'Success'],
  ];
  for (const [a, signal] of cases) assert.equal(jsonRpcCapabilityAnswer(a).signal, signal, a.body.toString());
});

test('REST answers → signals: ErrorInfo, v0.3 {code}, problem details, results, route 404', () => {
  const status = (code: number, reason: string) => ({
    error: { code, status: 'X', details: [info(reason)] },
  });
  const cases: [ReturnType<typeof json>, string][] = [
    [json(404, status(404, 'TASK_NOT_FOUND')), 'TaskNotFound'],
    [json(400, status(400, 'UNSUPPORTED_OPERATION')), 'Unsupported'],
    [json(400, status(400, 'PUSH_NOTIFICATION_NOT_SUPPORTED')), 'PushNotSupported'],
    [json(400, status(400, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED')), 'NotConfigured'],
    [json(404, { code: -32001, message: 'x' }), 'TaskNotFound'],
    [json(400, { code: -32004, message: 'x' }), 'Unsupported'],
    [
      json(
        404,
        { type: 'https://a2a-protocol.org/errors/task-not-found', title: 't' },
        'application/problem+json',
      ),
      'TaskNotFound',
    ],
    [
      json(
        400,
        { type: 'https://a2a-protocol.org/errors/unsupported-operation' },
        'application/problem+json',
      ),
      'Unsupported',
    ],
    [json(200, { name: 'card' }), 'Success'],
    [json(404, 'Cannot GET', 'text/html'), 'MethodMissing'],
    [json(403, ''), 'Auth'],
    [json(500, status(500, 'INTERNAL')), 'Other'],
  ];
  for (const [a, signal] of cases) assert.equal(restCapabilityAnswer(a).signal, signal, a.body.toString());
});

test('gRPC statuses → signals; v0.3 NOT_FOUND without ErrorInfo is TaskNotFound only from a gRPC server', () => {
  assert.equal(grpcCapabilityAnswer(5, ['TASK_NOT_FOUND'], true, '1.0').signal, 'TaskNotFound');
  assert.equal(grpcCapabilityAnswer(5, [], true, '1.0').signal, 'Other');
  assert.equal(grpcCapabilityAnswer(5, [], true, '0.3').signal, 'TaskNotFound');
  assert.equal(grpcCapabilityAnswer(5, [], false, '0.3').signal, 'Other');
  assert.equal(grpcCapabilityAnswer(9, ['UNSUPPORTED_OPERATION'], true, '1.0').signal, 'Unsupported');
  assert.equal(grpcCapabilityAnswer(12, ['UNSUPPORTED_OPERATION'], true, '1.0').signal, 'Unsupported');
  assert.equal(
    grpcCapabilityAnswer(9, ['PUSH_NOTIFICATION_NOT_SUPPORTED'], true, '1.0').signal,
    'PushNotSupported',
  );
  assert.equal(grpcCapabilityAnswer(12, [], true, '1.0').signal, 'MethodMissing');
  assert.equal(grpcCapabilityAnswer(12, [], false, '1.0').signal, 'Other');
  assert.equal(grpcCapabilityAnswer(16, [], true, '1.0').signal, 'Auth');
  assert.equal(grpcCapabilityAnswer(0, [], true, '1.0').signal, 'Success');
  assert.equal(grpcCapabilityAnswer(4, [], true, '1.0').signal, 'Other');
});

test('verdicts: served/not served against the claim, both ways; auth serves only the extended card', () => {
  const ctx = { what: 'JSONRPC v1.0 http://a/', request: 'POST / SubscribeToTask' };
  const a = (signal: CapabilityAnswer['signal']): CapabilityAnswer => ({ signal, shown: signal });
  const state = (
    c: 'streaming' | 'pushNotifications' | 'extendedAgentCard',
    declared: boolean,
    s: CapabilityAnswer['signal'],
  ) => capabilityVerdict(c, declared, a(s), ctx).state;
  assert.equal(state('streaming', true, 'TaskNotFound'), 'Verified');
  assert.equal(state('streaming', true, 'Unsupported'), 'NotServed');
  assert.equal(state('streaming', true, 'MethodMissing'), 'NotServed');
  assert.equal(state('streaming', false, 'Unsupported'), 'Absent');
  assert.equal(state('streaming', false, 'TaskNotFound'), 'Undeclared');
  assert.equal(state('streaming', true, 'Auth'), 'Inconclusive');
  assert.equal(state('streaming', true, 'Other'), 'Inconclusive');
  assert.equal(state('pushNotifications', true, 'PushNotSupported'), 'NotServed');
  assert.equal(state('pushNotifications', false, 'PushNotSupported'), 'Absent');
  assert.equal(state('pushNotifications', true, 'TaskNotFound'), 'Verified');
  assert.equal(state('extendedAgentCard', true, 'Success'), 'Verified');
  assert.equal(state('extendedAgentCard', true, 'Auth'), 'Verified');
  assert.equal(state('extendedAgentCard', true, 'NotConfigured'), 'NotServed');
  assert.equal(state('extendedAgentCard', false, 'Unsupported'), 'Absent');
  const v = capabilityVerdict('streaming', true, a('Unsupported'), ctx);
  assert.match(
    v.message,
    /POST \/ SubscribeToTask answered Unsupported: not served although the card claims streaming: true/,
  );
});

test('firstSseData: the first event only, multi-line data joined, garbage is undefined', () => {
  assert.deepEqual(firstSseData(Buffer.from('data: {"a":\ndata: 1}\n\ndata: {"b":2}\n\n')), { a: 1 });
  assert.equal(firstSseData(Buffer.from(': comment\n\n')), undefined);
  assert.equal(firstSseData(Buffer.from('data: not json\n\n')), undefined);
});

test('wire forms per binding and version', () => {
  const id = 'T';
  const rpc = (c: 'streaming' | 'pushNotifications' | 'extendedAgentCard', v: string, tenant?: string) =>
    JSON.parse(jsonRpcCapabilityCall(c, v, '/a2a', id, tenant).body!) as { method: string; params: unknown };
  assert.deepEqual(rpc('streaming', '1.0', 'acme'), {
    jsonrpc: '2.0',
    id: 'a2a-operator-probe',
    method: 'SubscribeToTask',
    params: { id, tenant: 'acme' },
  });
  assert.equal(rpc('streaming', '0.3').method, 'tasks/resubscribe');
  assert.deepEqual(rpc('pushNotifications', '1.1').params, { taskId: id });
  assert.deepEqual(rpc('pushNotifications', '0.3'), {
    jsonrpc: '2.0',
    id: 'a2a-operator-probe',
    method: 'tasks/pushNotificationConfig/list',
    params: { id },
  });
  assert.equal(rpc('extendedAgentCard', '1.0').method, 'GetExtendedAgentCard');
  assert.equal(rpc('extendedAgentCard', '0.3').method, 'agent/getAuthenticatedExtendedCard');
  const rest = (c: 'streaming' | 'pushNotifications' | 'extendedAgentCard', v: string, tenant?: string) => {
    const r = restCapabilityCall(c, v, '/a2a/rest', id, tenant);
    return `${r.method} ${r.path}`;
  };
  assert.equal(rest('streaming', '1.0', 'acme'), 'POST /a2a/rest/acme/tasks/T:subscribe');
  assert.equal(rest('streaming', '0.3'), 'POST /a2a/rest/v1/tasks/T:subscribe');
  assert.equal(rest('pushNotifications', '1.0'), 'GET /a2a/rest/tasks/T/pushNotificationConfigs');
  assert.equal(rest('pushNotifications', '0.3'), 'GET /a2a/rest/v1/tasks/T/pushNotificationConfigs');
  assert.equal(rest('extendedAgentCard', '1.0'), 'GET /a2a/rest/extendedAgentCard');
  assert.equal(rest('extendedAgentCard', '0.3'), 'GET /a2a/rest/v1/card');
  assert.equal(
    grpcCapabilityCall('streaming', '1.0', id, undefined).method,
    '/lf.a2a.v1.A2AService/SubscribeToTask',
  );
  assert.equal(
    grpcCapabilityCall('streaming', '0.3', id, undefined).method,
    '/a2a.v1.A2AService/TaskSubscription',
  );
  assert.equal(
    grpcCapabilityCall('pushNotifications', '1.0', id, undefined).method,
    '/lf.a2a.v1.A2AService/ListTaskPushNotificationConfigs',
  );
  assert.equal(
    grpcCapabilityCall('pushNotifications', '0.3', id, undefined).method,
    '/a2a.v1.A2AService/ListTaskPushNotificationConfig',
  );
  assert.equal(
    grpcCapabilityCall('extendedAgentCard', '0.3', id, undefined).method,
    '/a2a.v1.A2AService/GetAgentCard',
  );
  // ListTaskPushNotificationConfigsRequest{task_id=1 "T"}: tag 0x0a, length 1.
  assert.deepEqual(
    [...grpcCapabilityCall('pushNotifications', '1.0', id, undefined).request],
    [0x0a, 1, 0x54],
  );
});

test('FirstEventScanner: the first data event ends at a blank line, whatever the chunking (byte at a time too)', async () => {
  const { FirstEventScanner } = await import('../../src/probe/capability-probe.js');
  const ends = (chunks: string[]): number => {
    const s = new FirstEventScanner();
    return chunks.findIndex((c) => s.feed(Buffer.from(c, 'latin1')));
  };
  const text = ': keepalive\n\nevent: x\ndata: {"a":1}\n\ndata: 2\n\n';
  assert.equal(ends([text]), 0);
  const bytes = [...text];
  assert.equal(ends(bytes), text.indexOf('}\n\n') + 2);
  assert.equal(ends([...'data: 1\r\n\r\n']), 'data: 1\r\n\r\n'.length - 1);
  assert.equal(ends([': only comments\n\n', ': more\n\n']), -1);
  // A long stream fed a byte at a time: linear work (a re-scan of what came before would make
  // this 200 000-byte feed take ~40 GB of copying and the test time out).
  assert.equal(ends([...`data: ${'x'.repeat(200_000)}`]), -1);
});
