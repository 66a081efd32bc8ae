/**
 * `a2a-operator check --task-continuity` against ground truth: one SDK agent process behind all
 * three bindings shares one task store (TaskShared everywhere); two agent processes behind one
 * card (JSON-RPC on the first, REST and gRPC on the second) do not (TaskNotShared, exit 1).
 * The agents count what they received: exactly one SendMessage, and GetTask for the real id.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../harness/cli.js';
import { startAgent, type RunningAgent } from '../agents/start-agent.js';

interface ContinuityJson {
  consistent: boolean;
  taskContinuity: {
    createsTask: boolean;
    note: string;
    taskId?: string;
    origin?: { protocolBinding: string };
    problem?: string;
    interfaces: { protocolBinding: string; result: string }[];
    cancel: { result: string };
  };
}

const agents: RunningAgent[] = [];
after(async () => {
  for (const a of agents) await a.close();
});

async function agent(config: Parameters<typeof startAgent>[0]): Promise<RunningAgent> {
  const a = await startAgent(config);
  agents.push(a);
  return a;
}

void test('one agent process: every other binding finds the task (TaskShared), the check says it created one', async () => {
  const a = await agent({ grpc: {}, replyWithTask: true });
  const r = await runCli([
    'check',
    `http://127.0.0.1:${a.ports.http}`,
    '--allow-port',
    String(a.ports.grpc),
    '--task-continuity',
    '--message',
    'continuity test',
    '--output',
    'json',
  ]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const json = JSON.parse(r.stdout) as ContinuityJson;
  const tc = json.taskContinuity;
  assert.equal(tc.createsTask, true);
  assert.match(tc.note, /created a task/);
  assert.equal(tc.origin?.protocolBinding, 'JSONRPC');
  assert.deepEqual(
    tc.interfaces.map((i) => `${i.protocolBinding}=${i.result}`),
    ['HTTP+JSON=TaskShared', 'GRPC=TaskShared'],
  );
  assert.ok(['Cancelled', 'NotCancelable'].includes(tc.cancel.result), tc.cancel.result);
  assert.deepEqual(
    a.calls.filter((c) => c === 'SendMessage'),
    ['SendMessage'],
  );
  assert.ok(
    a.seen.some((s) => s.id === tc.taskId),
    'GetTask asked for the created task',
  );
});

void test('two agent processes behind one card: the second does not find the task (TaskNotShared, exit 1)', async () => {
  const second = await agent({ grpc: {}, replyWithTask: true });
  const first = await agent({
    replyWithTask: true,
    card: {
      serve: 'json',
      json: {
        name: 'split-agent',
        description: 'two processes behind one card',
        version: '1.0.0',
        supportedInterfaces: [
          {
            url: 'http://127.0.0.1:{{HTTP_PORT}}/a2a/jsonrpc',
            protocolBinding: 'JSONRPC',
            protocolVersion: '1.0',
          },
          {
            url: `http://127.0.0.1:${second.ports.http}/a2a/rest`,
            protocolBinding: 'HTTP+JSON',
            protocolVersion: '1.0',
          },
          { url: `http://127.0.0.1:${second.ports.grpc}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
        ],
        capabilities: { streaming: false, pushNotifications: false },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      },
    },
  });
  const r = await runCli([
    'check',
    `http://127.0.0.1:${first.ports.http}`,
    '--allow-port',
    String(second.ports.http),
    '--allow-port',
    String(second.ports.grpc),
    '--task-continuity',
    '--output',
    'json',
  ]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const json = JSON.parse(r.stdout) as ContinuityJson;
  assert.equal(json.consistent, false);
  assert.deepEqual(
    json.taskContinuity.interfaces.map((i) => `${i.protocolBinding}=${i.result}`),
    ['HTTP+JSON=TaskNotShared', 'GRPC=TaskNotShared'],
  );
  assert.equal(first.calls.filter((c) => c === 'SendMessage').length, 1);
  assert.equal(second.calls.filter((c) => c === 'SendMessage').length, 0);
  assert.ok(second.seen.some((s) => s.id === json.taskContinuity.taskId));
});

void test('without --task-continuity nothing is sent and the JSON has no taskContinuity', async () => {
  const a = await agent({ replyWithTask: true });
  const r = await runCli(['check', `http://127.0.0.1:${a.ports.http}`, '--output', 'json']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((JSON.parse(r.stdout) as Partial<ContinuityJson>).taskContinuity, undefined);
  assert.deepEqual(
    a.calls.filter((c) => c !== 'GetTask'),
    [],
  );
});
