/**
 * `--connect-to HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT`, as in curl: requests for HOST:PORT
 * go to the other address instead. An empty HOST or PORT matches any; an empty target part
 * keeps the original. IPv6 addresses are written in brackets.
 */
import { UsageError } from '../cli-errors.js';

export interface ConnectToRule {
  host: string | undefined;
  port: number | undefined;
  toHost: string | undefined;
  toPort: number | undefined;
}

const part = String.raw`(\[[0-9A-Fa-f:.]+\]|[^:\[\]]*)`;
const rulePattern = new RegExp(`^${part}:(\\d*):${part}:(\\d*)$`);

function port(text: string, spec: string): number | undefined {
  if (text === '') return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new UsageError(`--connect-to ${spec}: port ${text} out of range`);
  return n;
}

/** A host as dial rules compare it: lower case, without IPv6 brackets. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

function host(text: string): string | undefined {
  return text === '' ? undefined : bareHost(text);
}

export function parseConnectTo(spec: string): ConnectToRule {
  const m = rulePattern.exec(spec);
  if (!m) throw new UsageError(`--connect-to ${spec}: expected HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT`);
  return { host: host(m[1]!), port: port(m[2]!, spec), toHost: host(m[3]!), toPort: port(m[4]!, spec) };
}

/** The first rule matching host:port, applied; undefined when none matches. */
export function applyConnectTo(
  rules: readonly ConnectToRule[],
  hostName: string,
  portNumber: number,
): { address: string; port: number } | undefined {
  const h = hostName.toLowerCase();
  const rule = rules.find(
    (r) => (r.host === undefined || r.host === h) && (r.port === undefined || r.port === portNumber),
  );
  return rule && { address: rule.toHost ?? h, port: rule.toPort ?? portNumber };
}
