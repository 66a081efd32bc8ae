/**
 * Credentials in URLs, redacted before anything is shown to a person (status and Event messages,
 * log lines, CLI output). A card or an answer may put a token in a URL (`https://user:pass@host`,
 * `?access_token=…`, `#access_token=…`, `;sig=…`); showing it must not publish it. Over-redaction
 * is harmless here, a leak is not, so the name rule is broad. One module for the operator and the
 * CLI: each rule below finds ranges to hide, and one pass replaces them with `***`. Plain index
 * scans, no regex over the text: linear in its length however hostile.
 */

const REDACTED = '***';

// Normalised (decoded, lower case, only [a-z0-9]) parameter-name fragments that mark a secret:
// `access_token`, `client_secret`, `x-api-key`, `X-Amz-Signature`, `Cookie`, `authorization`…
const SECRET_PARTS = [
  'token',
  'secret',
  'passw',
  'pwd',
  'key',
  'sig',
  'auth',
  'credential',
  'session',
  'jwt',
  'bearer',
  'cookie',
  'code',
];
// Names too short to be safe as fragments.
const SECRET_NAMES = new Set(['pass']);

/** A query, fragment or matrix parameter name whose value is a credential. */
export function isSecretParameter(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    // a malformed escape: judge the raw name
  }
  let n = '';
  for (const c of decoded.toLowerCase()) if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) n += c;
  return SECRET_NAMES.has(n) || SECRET_PARTS.some((p) => n.includes(p));
}

/** `[from, to)` of the text to replace by `***` (`from === to` inserts it). */
type Range = readonly [number, number];

/**
 * A test for a character code against an ASCII set: the scans below visit every character of
 * every message, so a table lookup, not a one-character string and a Set per character.
 */
function anyOf(chars: string): (code: number) => boolean {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return (code) => code < 128 && table[code] === 1;
}

// Free text quoting a URL: where an authority ends, where a parameter name or value ends.
const TEXT_DELIMITERS = ' \t\n\r"\'<>';
const authorityEnd = anyOf(`/?#\\\`${TEXT_DELIMITERS}`);
const paramSeparator = anyOf('?&;#');
const nameEnd = anyOf(`=?&;#\\${TEXT_DELIMITERS}`);
const valueEnd = anyOf(`&;#${TEXT_DELIMITERS}`);

/** Userinfo after every `scheme://` (either part may be the token): up to the last `@` of the authority. */
function userinfoAfterSchemes(text: string): Range[] {
  const ranges: Range[] = [];
  let from = 0;
  for (;;) {
    const i = text.indexOf('://', from);
    if (i < 0) return ranges;
    const start = i + 3;
    let end = start;
    let at = -1;
    for (; end < text.length && !authorityEnd(text.charCodeAt(end)); end++) if (text[end] === '@') at = end;
    if (at >= 0) ranges.push([start, at]);
    // `end - 1`: the authority may end in the `:` of a following `://`.
    from = Math.max(end - 1, start);
  }
}

/** Values of `[?&;#]name=value` anywhere in the text whose name is secret (empty values need no hiding). */
function secretParameterValues(text: string): Range[] {
  const ranges: Range[] = [];
  let i = 0;
  while (i < text.length) {
    if (!paramSeparator(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const nameStart = i + 1;
    let j = nameStart;
    while (j < text.length && !nameEnd(text.charCodeAt(j))) j++;
    if (j === nameStart || text[j] !== '=') {
      i = j;
      continue;
    }
    if (!isSecretParameter(text.slice(nameStart, j))) {
      // An ordinary value may quote a URL with its own parameters (`?next=…?code=…`): look inside.
      i = j + 1;
      continue;
    }
    let k = j + 1;
    while (k < text.length && !valueEnd(text.charCodeAt(k))) k++;
    if (k > j + 1) ranges.push([j + 1, k]);
    i = k;
  }
  return ranges;
}

function isSchemeChar(c: string, first: boolean): boolean {
  const alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return first ? alpha : alpha || (c >= '0' && c <= '9') || c === '+' || c === '.' || c === '-';
}

/** Where a URL's authority starts: after `scheme://`, or 0 for the gRPC `host:port` form. */
function authorityStart(url: string): number {
  const sep = url.indexOf('://');
  if (sep <= 0) return 0;
  for (let i = 0; i < sep; i++) if (!isSchemeChar(url[i]!, i === 0)) return 0;
  return sep + 3;
}

function firstOf(text: string, chars: string, from: number): number {
  for (let i = from; i < text.length; i++) if (chars.includes(text[i]!)) return i;
  return text.length;
}

/** The URL's own userinfo, scheme or not (`user:pw@host:9090`), up to the last `@` before `/?#`. */
function urlUserinfo(url: string): Range[] {
  const start = authorityStart(url);
  const end = firstOf(url, '/?#', start);
  const at = url.lastIndexOf('@', end - 1);
  return at >= start ? [[start, at]] : [];
}

/**
 * Query and fragment parameters split on `&` only, each value whole: `?token=a;b` hides `a;b`,
 * and a name is judged as written up to its `=` (`?to;ken=x`).
 */
function ampersandParameterValues(url: string): Range[] {
  const ranges: Range[] = [];
  const q = url.indexOf('?');
  const h = url.indexOf('#');
  const parts: Range[] = [];
  if (q >= 0 && (h < 0 || q < h)) parts.push([q + 1, h >= 0 ? h : url.length]);
  if (h >= 0) parts.push([h + 1, url.length]);
  for (const [from, to] of parts) {
    let start = from;
    let eq = -1;
    for (let i = from; i <= to; i++) {
      if (i < to && url[i] !== '&') {
        if (eq < 0 && url[i] === '=') eq = i;
        continue;
      }
      if (eq >= 0 && isSecretParameter(url.slice(start, eq))) ranges.push([eq + 1, i]);
      start = i + 1;
      eq = -1;
    }
  }
  return ranges;
}

/** `text` with every range replaced by `***`; overlapping or touching ranges become one. */
function applyRanges(text: string, ranges: Range[]): string {
  if (ranges.length === 0) return text;
  const sorted = ranges.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let out = '';
  let pos = 0;
  let i = 0;
  while (i < sorted.length) {
    const from = sorted[i]![0];
    let to = sorted[i]![1];
    for (i++; i < sorted.length && sorted[i]![0] <= to; i++) to = Math.max(to, sorted[i]![1]);
    out += `${text.slice(pos, from)}${REDACTED}`;
    pos = to;
  }
  return out + text.slice(pos);
}

/**
 * `text` (a message, an error, a table cell) with the credentials of every URL it quotes replaced
 * by `***`: userinfo after `scheme://`, and secret-named `?&;#` parameter values. `ops@example.com`
 * outside a URL is left alone.
 */
export function redactCredentials(text: string): string {
  return applyRanges(text, [...userinfoAfterSchemes(text), ...secretParameterValues(text)]);
}

/**
 * One URL (a card's, a `Location`): everything `redactCredentials` hides, plus userinfo without a
 * scheme (gRPC `user:pw@host:port`) and whole `&`-separated parameter values.
 */
export function redactUrlCredentials(url: string): string {
  return applyRanges(url, [
    ...urlUserinfo(url),
    ...userinfoAfterSchemes(url),
    ...ampersandParameterValues(url),
    ...secretParameterValues(url),
  ]);
}

/**
 * The secrets a URL carries (a userinfo password, secret-named parameter values), raw and
 * percent-decoded: registered with the CLI's SecretRedactor, they are redacted even where a
 * message quotes the URL in a form the rules above do not recognise.
 */
export function credentialsIn(url: string): string[] {
  const found: string[] = [];
  for (const [start, at] of userinfoAfterSchemes(url).slice(0, 1)) {
    const colon = url.indexOf(':', start);
    if (colon >= 0 && colon < at) found.push(url.slice(colon + 1, at));
  }
  for (const [from, to] of secretParameterValues(url)) found.push(url.slice(from, to));
  const decoded = found.flatMap((s) => {
    try {
      const d = decodeURIComponent(s);
      return d === s ? [] : [d];
    } catch {
      return [];
    }
  });
  return [...found, ...decoded];
}
