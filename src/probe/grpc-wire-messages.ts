/**
 * The probe's gRPC messages, hand-encoded from proto/a2a-probe-v1.proto and
 * proto/a2a-probe-v0_3.proto, and the decoder for `grpc-status-details-bin`
 * (proto/google-rpc-status.proto).
 */
import { decodeFields, stringField } from './protobuf-wire.js';

/** v1.0 (spec v1.0.1): GetTaskRequest{tenant=1, id=2}. */
export function encodeGetTaskRequestV1(id: string, tenant: string | undefined): Buffer {
  return Buffer.concat([stringField(1, tenant ?? ''), stringField(2, id)]);
}

/** v0.3 (spec v0.3.0): GetTaskRequest{name=1 "tasks/{id}"}. There is no tenant in v0.3. */
export function encodeGetTaskRequestV03(id: string): Buffer {
  return stringField(1, `tasks/${id}`);
}

export interface ErrorInfo {
  reason: string;
  domain: string;
}

export interface RpcStatus {
  code: number;
  message: string;
  errorInfos: ErrorInfo[];
}

const errorInfoType = 'type.googleapis.com/google.rpc.ErrorInfo';

function str(v: { wireType: number; value: number | Buffer }): string {
  return Buffer.isBuffer(v.value) ? v.value.toString('utf8') : '';
}

/** Decodes google.rpc.Status and the ErrorInfo entries among its details; throws ProtobufDecodeError. */
export function decodeRpcStatus(bin: Buffer): RpcStatus {
  const status: RpcStatus = { code: 0, message: '', errorInfos: [] };
  for (const [n, v] of decodeFields(bin)) {
    if (n === 1 && v.wireType === 0) status.code = v.value;
    else if (n === 2) status.message = str(v);
    else if (n === 3 && v.wireType === 2) {
      let typeUrl = '';
      let value: Buffer | undefined;
      for (const [an, av] of decodeFields(v.value)) {
        if (an === 1) typeUrl = str(av);
        else if (an === 2 && av.wireType === 2) value = av.value;
      }
      if (typeUrl === errorInfoType && value) {
        const info: ErrorInfo = { reason: '', domain: '' };
        for (const [en, ev] of decodeFields(value)) {
          if (en === 1) info.reason = str(ev);
          else if (en === 2) info.domain = str(ev);
        }
        status.errorInfos.push(info);
      }
    }
  }
  return status;
}

/**
 * The ErrorInfo reasons of a `grpc-status-details-bin` value; none when it is absent or
 * undecodable (such details prove nothing: the status code alone is classified).
 */
export function errorInfoReasonsOf(bin: unknown): string[] {
  if (!Buffer.isBuffer(bin)) return [];
  try {
    return decodeRpcStatus(bin).errorInfos.map((e) => e.reason);
  } catch {
    return [];
  }
}
