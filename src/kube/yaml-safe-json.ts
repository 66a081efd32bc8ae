/**
 * JSON the API server's YAML decoder accepts. A server-side apply body
 * (`application/apply-patch+yaml`) is read as YAML, and YAML forbids some characters raw that
 * JSON.stringify leaves raw inside strings (DEL, C1 controls but NEL, U+FFFE/U+FFFF): one such
 * character from a card (its name, a URL) made every apply of that agent fail ("control
 * characters are not allowed"), so its status and routing froze. Escaped as `\u00XX` they are
 * the same JSON value and valid YAML. Outside strings JSON has no such characters.
 */

const YAML_UNPRINTABLE = /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/g;

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `JSON.stringify(value)` with the characters YAML forbids escaped (same JSON value). */
export function yamlSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(YAML_UNPRINTABLE, escape);
}
