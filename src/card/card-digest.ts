/**
 * A canonical digest of a card: sha256 over JCS-style canonical JSON (RFC 8785: object keys
 * sorted by UTF-16 code units, no whitespace, ECMAScript number and string serialisation), so
 * key order and whitespace do not change it and every other difference does.
 */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new TypeError('non-finite number in card');
    // JSON.stringify gives RFC 8785 output for strings, finite numbers, booleans and null.
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** `sha256:<hex>` of the canonical JSON of `raw`. */
export function cardDigest(raw: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(raw)).digest('hex')}`;
}
