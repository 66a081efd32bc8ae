/**
 * What `check` may dial. A card is the agent's word, not the operator's: it may name any port of
 * the base host (a Docker socket proxy, an admin port) or any other host, and the probe would
 * carry the token there. So only the base URL's own host:port is dialled, plus the ports
 * `--allow-port` adds on that host and whatever `--connect-to` maps; everything else is reported
 * without a connection, with the flag that would allow it.
 */
import { UsageError } from '../cli-errors.js';
import { hostPort } from '../../probe/dial-target.js';
import { applyConnectTo, bareHost, type ConnectToRule } from './connect-to.js';

export interface DialPolicy {
  /** The base URL's host (lower case, no brackets); undefined with `--card` and no base URL. */
  baseHost?: string;
  basePort?: number;
  allowPorts: readonly number[];
  connectTo: readonly ConnectToRule[];
}

export type DialDecision =
  | { kind: 'dial'; host: string; port: number }
  /** Another port of the base host, not allowed: Ineligible. */
  | { kind: 'portNotAllowed'; message: string }
  /** Another host, not mapped: Unmapped. */
  | { kind: 'hostNotMapped'; message: string };

export function dialDecision(policy: DialPolicy, host: string, port: number): DialDecision {
  const h = bareHost(host);
  const mapped = applyConnectTo(policy.connectTo, h, port);
  if (mapped) return { kind: 'dial', host: mapped.address, port: mapped.port };
  if (policy.baseHost !== undefined && h === policy.baseHost) {
    if (port === policy.basePort || policy.allowPorts.includes(port)) return { kind: 'dial', host: h, port };
    return {
      kind: 'portNotAllowed',
      message: `port ${port} of ${hostPort(h, port)} is not the base URL's port, so it is not dialled; pass --allow-port ${port} to probe it`,
    };
  }
  return {
    kind: 'hostNotMapped',
    message: `host ${h} is not the base URL's host, so it is not dialled; use --connect-to ${hostPort(h, port)}:ADDRESS:PORT to probe it`,
  };
}

/** `--allow-port N` (repeatable; `N,M` also accepted). */
export function parseAllowPorts(specs: readonly string[]): number[] {
  const ports: number[] = [];
  for (const spec of specs) {
    for (const part of spec.split(',')) {
      const text = part.trim();
      const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
      if (!Number.isInteger(n) || n < 1 || n > 65535)
        throw new UsageError(`--allow-port ${spec}: expected a port number from 1 to 65535`);
      if (!ports.includes(n)) ports.push(n);
    }
  }
  return ports;
}
