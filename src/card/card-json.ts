/**
 * What JSON.parse accepts but no later step can handle: nesting deep enough to overflow every
 * recursive walk (canonical JSON, JSON.stringify), and numbers outside the double range (`1e400`
 * parses to Infinity, which canonical JSON cannot write). One iterative pass finds both, so any
 * parsed document becomes a card or a `CardInvalid` verdict, never an exception later on.
 * `-0`, integers past 2^53 (rounded by the parser, as every client's parser does), `__proto__`
 * keys (own data properties after JSON.parse), duplicate keys (last wins, as in every JSON.parse
 * client) and lone surrogates (escaped by JSON.stringify) are all representable and pass.
 */

import { displayText } from '../text/display-text.js';

/** Objects and arrays nested deeper than this: a real card nests a handful of levels. */
export const MAX_CARD_DEPTH = 64;

/**
 * What a card's published form needs beyond the card's own JSON, within the same 1 MiB: the
 * ConfigMap holds it under `agent-card.json` with a newline (16 bytes of the API server's limit
 * on keys and values), and with spec.routing.signingKey the operator adds one signature (204
 * bytes with an EC key, 801 with RSA-4096, 2,849 with RSA-16384, the largest modulus OpenSSL
 * verifies; a kid, at most 1 KiB (MAX_KID_BYTES in routing/card-signing.ts), adds 1,341 more).
 */
export const WRITTEN_CARD_HEADROOM = 8 * 1024;

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | number;
}

function pathOf(frame: Frame): string {
  const parts: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) {
    parts.push(typeof f.key === 'number' ? `[${f.key}]` : `.${JSON.stringify(f.key).slice(1, -1)}`);
  }
  // Keys are the card's: escaped (JSON.stringify leaves bidi overrides) and clipped.
  return displayText(`(card)${parts.reverse().join('')}`, 200);
}

/** Why the parsed document cannot be read as a card, or undefined when it can. */
export function cardJsonProblem(value: unknown, maxDepth = MAX_CARD_DEPTH): string | undefined {
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) {
        return `the card holds a number outside the IEEE 754 double range at ${pathOf(frame)} (it parses to ${v}); no client reads it as written`;
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (frame.depth > maxDepth) {
      return `the card nests objects or arrays deeper than ${maxDepth} levels; it is not read further`;
    }
    const depth = frame.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth, parent: frame, key: i });
    } else {
      for (const k of Object.keys(v)) {
        stack.push({ value: (v as Record<string, unknown>)[k], depth, parent: frame, key: k });
      }
    }
  }
  return undefined;
}

/** Whether objects and arrays nest deeper than `max` (scalars do not count). */
export function exceedsDepth(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
