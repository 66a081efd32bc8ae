/**
 * Credentials in URLs that `check` shows (a card's or an answer's): userinfo after `scheme://`
 * and the values of query/fragment parameters whose names look like secrets become `***`.
 * Over-redaction is harmless here, a leak is not, so the name test is deliberately broad.
 * Linear: one `indexOf` walk over disjoint authorities, and a parameter regex whose only
 * bounded repetition is the parameter name.
 */

const REDACTED = '***';

/** Normalised (lower case, no `-_.`) parameter-name fragments that mark a secret. */
const SECRET_NAME_PARTS = [
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

export function isSecretParamName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // keep the raw name: a malformed escape is still matched as written
  }
  const n = decoded.toLowerCase().replace(/[-_.\s]/g, '');
  return SECRET_NAME_PARTS.some((p) => n.includes(p));
}

// Where an authority or a parameter value ends in free text (a message quoting a URL).
const AUTHORITY_END = new Set(['/', '?', '#', ' ', '\t', '\n', '\r', '"', "'", '<', '>', '\\', '`']);

function redactUserinfo(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const i = text.indexOf('://', from);
    if (i < 0) break;
    const start = i + 3;
    let end = start;
    let at = -1;
    for (; end < text.length && !AUTHORITY_END.has(text[end]!); end++) if (text[end] === '@') at = end;
    if (at >= 0) {
      out += `${text.slice(from, start)}${REDACTED}`;
      from = at;
    } else {
      out += text.slice(from, end);
      from = end;
    }
  }
  return out + text.slice(from);
}

// `?name=value`, `&name=value`, `;name=value`, `#name=value` (OAuth puts access_token in the fragment).
const PARAM = /([?&;#])([^=&;#?\s"'<>\\]{1,256})=([^&;#\s"'<>]*)/g;

/** `text` with URL credentials replaced by `***` (see the file comment). */
export function redactCredentials(text: string): string {
  return redactUserinfo(text).replace(PARAM, (m, sep: string, name: string, value: string) =>
    value !== '' && isSecretParamName(name) ? `${sep}${name}=${REDACTED}` : m,
  );
}

/**
 * The secrets a URL carries (a userinfo password, secret-named parameter values), raw and
 * percent-decoded: registered with the SecretRedactor, they are redacted even where a message
 * quotes the URL in a form the patterns above do not recognise.
 */
export function credentialsIn(url: string): string[] {
  const found: string[] = [];
  const start = url.indexOf('://') + 3;
  if (start >= 3) {
    let at = -1;
    for (let end = start; end < url.length && !AUTHORITY_END.has(url[end]!); end++)
      if (url[end] === '@') at = end;
    const colon = at >= 0 ? url.indexOf(':', start) : -1;
    if (colon >= 0 && colon < at) found.push(url.slice(colon + 1, at));
  }
  for (const m of url.matchAll(PARAM)) if (m[3] && isSecretParamName(m[2]!)) found.push(m[3]);
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
