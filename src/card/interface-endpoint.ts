/**
 * Where an interface URL points, under the eligibility rules every gateway applies
 * (seeds/003, docs/client.md; docs/conditions.md, "Card reasons"): HTTP bindings need an absolute http(s) URL without credentials; gRPC
 * needs `host:port` or `https://host:port` (both TLS) or `http://host:port` (explicit plaintext),
 * never a path, query or credentials.
 */
import { CardReason } from '../api/conditions.js';
import { clipText } from '../text/display-text.js';
import { redactUrlCredentials } from '../text/redact-credentials.js';
import { ProtocolBinding } from './bindings.js';

/** Longer interface URLs are ineligible: no gateway or client takes one, and every later step stays cheap. */
export const MAX_URL_BYTES = 8 * 1024;
/** How much of an over-long URL a message quotes. */
const QUOTED_LONG_URL_CHARS = 64;
/** How much of any other URL: the reason after it survives the 512-character status clip. */
const QUOTED_URL_CHARS = 160;

export interface InterfaceEndpoint {
  tls: boolean;
  /** Host name or IP literal, without IPv6 brackets, lower case. */
  host: string;
  port: number;
  /** HTTP bindings: the URL path without a trailing slash ('' for the root). gRPC: always ''. */
  path: string;
  /** HTTP bindings: the URL query including `?`, or ''. */
  query: string;
  /** Host header / `:authority`: host, plus the port when the URL names a non-default one. */
  authority: string;
  /** How the URL was written, for messages. */
  form: 'http-url' | 'grpc-bare' | 'grpc-url';
}

export interface EndpointViolation {
  reason: typeof CardReason.InterfaceURLInvalid;
  message: string;
}

// Anchored, and no quantified part can hand characters to its neighbour: linear in the input
// (test/unit/card-hostile-input-cost.test.ts measures it on long runs of every character).
const bareHostPort = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The URL as a message quotes it: credentials redacted (a card may carry `?token=`), bounded. */
function shown(url: string, max = QUOTED_URL_CHARS): string {
  return clipText(redactUrlCredentials(url), max);
}

function invalid(message: string): EndpointViolation {
  return { reason: CardReason.InterfaceURLInvalid, message };
}

function validPort(port: number): boolean {
  return Number.isInteger(port) && port > 0 && port < 65536;
}

/** `text` without its trailing slashes, in one backward scan (`/\/+$/` is quadratic on a run of slashes). */
export function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return end === text.length ? text : text.slice(0, end);
}

export function interfaceEndpoint(url: string, binding: string): InterfaceEndpoint | EndpointViolation {
  // Checked first, before any parsing, so a megabyte of URL costs one length check.
  if (url.length > MAX_URL_BYTES || Buffer.byteLength(url, 'utf8') > MAX_URL_BYTES) {
    return invalid(
      `URL ${JSON.stringify(shown(url, QUOTED_LONG_URL_CHARS))} is ${Buffer.byteLength(url, 'utf8')} bytes long, over the ${MAX_URL_BYTES}-byte limit for an interface URL`,
    );
  }
  if (binding === ProtocolBinding.GRPC) {
    const bare = bareHostPort.exec(url);
    if (bare) {
      const port = Number(bare[2]);
      if (!validPort(port)) return invalid(`gRPC URL ${shown(url)} has port ${bare[2]}, outside 1-65535`);
      const host = bare[1]!.toLowerCase();
      return {
        tls: true,
        host: stripBrackets(host),
        port,
        path: '',
        query: '',
        authority: `${host}:${port}`,
        form: 'grpc-bare',
      };
    }
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid(
      binding === ProtocolBinding.GRPC
        ? `gRPC URL ${JSON.stringify(shown(url))} is neither host:port nor an absolute http(s)://host:port URL`
        : `URL ${JSON.stringify(shown(url))} is not an absolute URL`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return invalid(
      `URL ${shown(url)} uses scheme ${parsed.protocol.slice(0, -1)}; only http and https are allowed`,
    );
  }
  if (parsed.username || parsed.password) {
    return invalid(
      `URL ${parsed.protocol}//…@${parsed.host} embeds credentials; put them in securitySchemes instead`,
    );
  }
  if (!parsed.hostname) return invalid(`URL ${shown(url)} has no host`);
  const tls = parsed.protocol === 'https:';
  const port = parsed.port ? Number(parsed.port) : tls ? 443 : 80;
  const host = parsed.hostname.toLowerCase();
  if (binding === ProtocolBinding.GRPC) {
    if ((parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search || parsed.hash) {
      return invalid(
        `gRPC URL ${shown(url)} carries a path, query or fragment; gRPC dials host:port only (write ${parsed.protocol}//${parsed.host})`,
      );
    }
    return {
      tls,
      host: stripBrackets(host),
      port,
      path: '',
      query: '',
      authority: parsed.host,
      form: 'grpc-url',
    };
  }
  const path = trimTrailingSlashes(parsed.pathname);
  return {
    tls,
    host: stripBrackets(host),
    port,
    path,
    query: parsed.search,
    authority: parsed.host,
    form: 'http-url',
  };
}

export function isEndpointViolation(v: InterfaceEndpoint | EndpointViolation): v is EndpointViolation {
  return 'reason' in v;
}

/** Loopback hosts, where a plaintext interface on an HTTPS card is a development setup, not a downgrade. */
export function isLoopbackHost(host: string): boolean {
  const h = stripBrackets(host).toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
