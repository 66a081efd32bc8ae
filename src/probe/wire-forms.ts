/**
 * The GetTask request of each binding and protocol version (research/a2a-protocol.md section 2):
 * v1.x `GetTask` / `GET {url}[/{tenant}]/tasks/{id}` / `/lf.a2a.v1.A2AService/GetTask`;
 * v0.3 `tasks/get` / `GET {url}/v1/tasks/{id}` / `/a2a.v1.A2AService/GetTask`.
 */
import { wireOf } from '../card/bindings.js';

const isV1 = (version: string): boolean => wireOf(version) === 'v1';
import { encodeGetTaskRequestV03, encodeGetTaskRequestV1 } from './grpc-wire-messages.js';

export function jsonRpcGetTaskBody(version: string, id: string, tenant: string | undefined): string {
  const v1 = isV1(version);
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 'a2a-operator-probe',
    method: v1 ? 'GetTask' : 'tasks/get',
    params: v1 && tenant ? { id, tenant } : { id },
  });
}

export function restGetTaskPath(
  version: string,
  basePath: string,
  id: string,
  tenant: string | undefined,
): string {
  if (isV1(version)) {
    const prefix = tenant ? `/${encodeURIComponent(tenant)}` : '';
    return `${basePath}${prefix}/tasks/${encodeURIComponent(id)}`;
  }
  return `${basePath}/v1/tasks/${encodeURIComponent(id)}`;
}

export function grpcGetTaskMethod(version: string): string {
  return isV1(version) ? '/lf.a2a.v1.A2AService/GetTask' : '/a2a.v1.A2AService/GetTask';
}

export function grpcGetTaskRequest(version: string, id: string, tenant: string | undefined): Buffer {
  return isV1(version) ? encodeGetTaskRequestV1(id, tenant) : encodeGetTaskRequestV03(id);
}

/**
 * The headers (HTTP) or metadata keys (gRPC, lowercase) that declare the card's required
 * extensions: `A2A-Extensions` from v1.0, `X-A2A-Extensions` in v0.3 (sent with the v1.0 name
 * too, which v0.3 servers ignore and compat layers read). Empty when none are required.
 */
export function extensionHeaders(
  version: string,
  uris: readonly string[] | undefined,
): Record<string, string> {
  if (!uris || uris.length === 0) return {};
  const value = uris.join(', ');
  return isV1(version) ? { 'a2a-extensions': value } : { 'x-a2a-extensions': value, 'a2a-extensions': value };
}
