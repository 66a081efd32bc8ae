/**
 * The side-effect-free call that tests each capability claim, per binding and protocol version
 * (research/a2a-protocol.md section 2; spec §3.3.4 says what a server without the capability
 * MUST answer). Every call names a random task id that cannot exist, so a server with the
 * capability answers TaskNotFound and one without it UnsupportedOperation /
 * PushNotificationNotSupported; nothing is created, changed or subscribed to.
 *
 * | capability | JSON-RPC 1.x / 0.3 | HTTP+JSON 1.x / 0.3 | gRPC 1.x / 0.3 |
 * | streaming | `SubscribeToTask` / `tasks/resubscribe` | `POST {url}[/{tenant}]/tasks/{id}:subscribe` / `POST {url}/v1/tasks/{id}:subscribe` | `lf.a2a.v1.A2AService/SubscribeToTask` / `a2a.v1.A2AService/TaskSubscription` (server streaming) |
 * | pushNotifications | `ListTaskPushNotificationConfigs` / `tasks/pushNotificationConfig/list` | `GET {url}[/{tenant}]/tasks/{id}/pushNotificationConfigs` / `GET {url}/v1/tasks/{id}/pushNotificationConfigs` | `ListTaskPushNotificationConfigs` / `ListTaskPushNotificationConfig` |
 * | extendedAgentCard | `GetExtendedAgentCard` / `agent/getAuthenticatedExtendedCard` | `GET {url}[/{tenant}]/extendedAgentCard` / `GET {url}/v1/card` | `GetExtendedAgentCard` / `GetAgentCard` |
 */
import { wireOf } from '../card/bindings.js';
import type { Capability } from '../card/card-claims.js';
import { stringField } from './protobuf-wire.js';

export interface HttpCapabilityCall {
  method: 'GET' | 'POST';
  /** Path below the interface URL's path (tenant and `/v1` prefix applied), unencoded id inside. */
  path: string;
  /** JSON-RPC body; undefined for REST GETs. */
  body?: string;
  /** What the message names: `POST /a2a SubscribeToTask`. */
  label: string;
  /** The answer may be an event stream: read only its first event. */
  stream: boolean;
}

export interface GrpcCapabilityCall {
  method: string;
  request: Buffer;
  stream: boolean;
}

const JSONRPC_METHODS: Record<Capability, { v1: string; v03: string }> = {
  streaming: { v1: 'SubscribeToTask', v03: 'tasks/resubscribe' },
  pushNotifications: { v1: 'ListTaskPushNotificationConfigs', v03: 'tasks/pushNotificationConfig/list' },
  extendedAgentCard: { v1: 'GetExtendedAgentCard', v03: 'agent/getAuthenticatedExtendedCard' },
};

function jsonRpcParams(capability: Capability, v1: boolean, id: string, tenant: string | undefined) {
  const t = v1 && tenant ? { tenant } : {};
  switch (capability) {
    case 'streaming':
      return { id, ...t };
    case 'pushNotifications':
      return v1 ? { taskId: id, ...t } : { id };
    case 'extendedAgentCard':
      return t;
  }
}

export function jsonRpcCapabilityCall(
  capability: Capability,
  version: string,
  basePath: string,
  id: string,
  tenant: string | undefined,
): HttpCapabilityCall {
  const v1 = wireOf(version) === 'v1';
  const method = v1 ? JSONRPC_METHODS[capability].v1 : JSONRPC_METHODS[capability].v03;
  return {
    method: 'POST',
    path: basePath || '/',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'a2a-operator-probe',
      method,
      params: jsonRpcParams(capability, v1, id, tenant),
    }),
    label: `POST ${basePath || '/'} ${method}`,
    stream: capability === 'streaming',
  };
}

export function restCapabilityCall(
  capability: Capability,
  version: string,
  basePath: string,
  id: string,
  tenant: string | undefined,
): HttpCapabilityCall {
  const v1 = wireOf(version) === 'v1';
  const prefix = v1 ? (tenant ? `/${encodeURIComponent(tenant)}` : '') : '/v1';
  const task = `${basePath}${prefix}/tasks/${encodeURIComponent(id)}`;
  const call = (method: 'GET' | 'POST', path: string, stream = false): HttpCapabilityCall => ({
    method,
    path,
    label: `${method} ${path}`,
    stream,
  });
  switch (capability) {
    case 'streaming':
      // POST: the spec's prose and a2a-go (the proto says GET; the JS SDK takes both, A2A#1574).
      return call('POST', `${task}:subscribe`, true);
    case 'pushNotifications':
      return call('GET', `${task}/pushNotificationConfigs`);
    case 'extendedAgentCard':
      return call('GET', v1 ? `${basePath}${prefix}/extendedAgentCard` : `${basePath}/v1/card`);
  }
}

/**
 * gRPC requests, hand-encoded: v1 SubscribeToTaskRequest{tenant=1, id=2},
 * ListTaskPushNotificationConfigsRequest{task_id=1, tenant=4}, GetExtendedAgentCardRequest{tenant=1};
 * v0.3 TaskSubscriptionRequest{name=1 "tasks/{id}"}, ListTaskPushNotificationConfigRequest{parent=1
 * "tasks/{id}"}, GetAgentCardRequest{}.
 */
export function grpcCapabilityCall(
  capability: Capability,
  version: string,
  id: string,
  tenant: string | undefined,
): GrpcCapabilityCall {
  const v1 = wireOf(version) === 'v1';
  const svc = v1 ? '/lf.a2a.v1.A2AService/' : '/a2a.v1.A2AService/';
  const t = tenant ?? '';
  switch (capability) {
    case 'streaming':
      return v1
        ? {
            method: `${svc}SubscribeToTask`,
            request: Buffer.concat([stringField(1, t), stringField(2, id)]),
            stream: true,
          }
        : { method: `${svc}TaskSubscription`, request: stringField(1, `tasks/${id}`), stream: true };
    case 'pushNotifications':
      return v1
        ? {
            method: `${svc}ListTaskPushNotificationConfigs`,
            request: Buffer.concat([stringField(1, id), stringField(4, t)]),
            stream: false,
          }
        : {
            method: `${svc}ListTaskPushNotificationConfig`,
            request: stringField(1, `tasks/${id}`),
            stream: false,
          };
    case 'extendedAgentCard':
      return v1
        ? { method: `${svc}GetExtendedAgentCard`, request: stringField(1, t), stream: false }
        : { method: `${svc}GetAgentCard`, request: Buffer.alloc(0), stream: false };
  }
}
