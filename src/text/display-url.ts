/**
 * A URL from a card, as shown to a person (status and Event messages, log lines, CLI output):
 * credentials redacted, control characters escaped, length bounded. A card may put a token in
 * its URLs (`https://user:pass@host`, `?access_token=…`); showing the URL must not publish it to
 * everyone who can read status or the logs. Plain index scans, no regex over the URL: linear.
 */
import { clipText, printable } from './display-text.js';

/** Room for any real endpoint URL, not for a card's attempt to fill status. */
export const MAX_SHOWN_URL = 256;

const REDACTED = '***';

// Normalised (lower case, only [a-z0-9]) parameter names that carry a secret, and fragments
// of names that do (`x-api-key`, `client_secret`, `X-Amz-Signature`, `refresh_token`).
const SECRET_NAMES = new Set(['key', 'sig', 'pass', 'pwd', 'code', 'jwt', 'auth', 'session', 'sessionid']);
const SECRET_PARTS = ['token', 'secret', 'passw', 'apikey', 'signature', 'credential', 'authorization'];

/** A query (or fragment) parameter name whose value is a credential. */
export function isSecretParameter(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    // a malformed escape: judge the raw name
  }
  let n = '';
  for (const c of decoded.toLowerCase()) if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) n += c;
  return SECRET_NAMES.has(n) || SECRET_PARTS.some((p) => n.includes(p)) || n.endsWith('key');
}

function redactParameters(params: string): string {
  return params
    .split('&')
    .map((p) => {
      const eq = p.indexOf('=');
      return eq >= 0 && isSecretParameter(p.slice(0, eq)) ? `${p.slice(0, eq + 1)}${REDACTED}` : p;
    })
    .join('&');
}

function firstOf(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) if (chars.includes(text[i]!)) return i;
  return text.length;
}

function isSchemeChar(c: string, first: boolean): boolean {
  const alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return first ? alpha : alpha || (c >= '0' && c <= '9') || c === '+' || c === '.' || c === '-';
}

/** Where the authority starts: after `scheme://`, or 0 for `host:port` forms. */
function authorityStart(url: string): number {
  const sep = url.indexOf('://');
  if (sep <= 0) return 0;
  for (let i = 0; i < sep; i++) if (!isSchemeChar(url[i]!, i === 0)) return 0;
  return sep + 3;
}

/**
 * `url` with its userinfo (user and password: either may be the token) and the values of
 * credential-like query and fragment parameters replaced by `***`. Text that is not a URL comes
 * back unchanged but for those same rules.
 */
export function redactUrlCredentials(url: string): string {
  const start = authorityStart(url);
  const authorityEnd = firstOf(url, '/?#', start);
  const at = url.lastIndexOf('@', authorityEnd - 1);
  let out = at >= start ? `${url.slice(0, start)}${REDACTED}${url.slice(at)}` : url;
  const q = out.indexOf('?');
  const h = out.indexOf('#');
  if (h >= 0) out = `${out.slice(0, h + 1)}${redactParameters(out.slice(h + 1))}`;
  if (q >= 0 && (h < 0 || q < h)) {
    const end = h >= 0 ? out.indexOf('#') : out.length;
    out = `${out.slice(0, q + 1)}${redactParameters(out.slice(q + 1, end))}${out.slice(end)}`;
  }
  return out;
}

/** The form of a card URL for a message: credentials redacted, then `printable`, then clipped. */
export function displayUrl(url: string, max = MAX_SHOWN_URL): string {
  return clipText(printable(redactUrlCredentials(url)), max);
}
