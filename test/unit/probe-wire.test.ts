/** The hand-encoded gRPC messages agree with proto/*.proto and with the official SDK's codecs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadSync } from '@grpc/proto-loader';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import {
  decodeRpcStatus,
  encodeGetTaskRequestV03,
  encodeGetTaskRequestV1,
} from '../../src/probe/grpc-wire-messages.js';
import { stringField } from '../../src/probe/protobuf-wire.js';

const protoDir = join(import.meta.dirname, '..', '..', 'proto');
const load = (file: string) => loadSync(join(protoDir, file), { keepCase: true, defaults: false });

type Deserialize = (b: Buffer) => Record<string, unknown>;
function getTaskDeserializer(file: string, service: string): Deserialize {
  const def = load(file)[service] as unknown as { GetTask: { requestDeserialize: Deserialize } };
  return def.GetTask.requestDeserialize;
}

void test('v1.0 GetTaskRequest: tenant=1, id=2 (proto file and SDK agree)', () => {
  const bytes = encodeGetTaskRequestV1('7c1e-id', 'acme');
  assert.deepEqual(getTaskDeserializer('a2a-probe-v1.proto', 'lf.a2a.v1.A2AService')(bytes), {
    tenant: 'acme',
    id: '7c1e-id',
  });
  const sdk = A2AService.getTask.requestDeserialize(bytes);
  assert.equal(sdk.id, '7c1e-id');
  assert.equal(sdk.tenant, 'acme');
  assert.deepEqual(A2AService.getTask.requestDeserialize(encodeGetTaskRequestV1('x', undefined)).tenant, '');
});

void test('v0.3 GetTaskRequest: name=1 "tasks/{id}"', () => {
  const bytes = encodeGetTaskRequestV03('abc');
  assert.deepEqual(getTaskDeserializer('a2a-probe-v0_3.proto', 'a2a.v1.A2AService')(bytes), {
    name: 'tasks/abc',
  });
});

void test('grpc-status-details-bin: google.rpc.Status with ErrorInfo in Any', () => {
  const root = load('google-rpc-status.proto');
  assert.ok(root['google.rpc.Status']);
  const errorInfo = Buffer.concat([stringField(1, 'TASK_NOT_FOUND'), stringField(2, 'a2a-protocol.org')]);
  const any = Buffer.concat([
    stringField(1, 'type.googleapis.com/google.rpc.ErrorInfo'),
    Buffer.from([0x12, errorInfo.length]),
    errorInfo,
  ]);
  const other = stringField(1, 'type.googleapis.com/google.rpc.DebugInfo');
  const status = Buffer.concat([
    Buffer.from([0x08, 0x05]),
    stringField(2, 'Task not found'),
    Buffer.from([0x1a, other.length]),
    other,
    Buffer.from([0x1a, any.length]),
    any,
  ]);
  assert.deepEqual(decodeRpcStatus(status), {
    code: 5,
    message: 'Task not found',
    errorInfos: [{ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
  });
  assert.throws(() => decodeRpcStatus(Buffer.from([0x12, 0x40, 0x41])), { name: 'ProtobufDecodeError' });
});
