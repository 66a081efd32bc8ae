/**
 * Text from cards and probe answers is attacker-controlled. Before it reaches a terminal, a CI
 * log, status, an Event or a log line it goes through `printable`: control characters (C0, DEL,
 * C1) and the bidirectional overrides that reorder what a reader sees are written as `\u{..}`
 * escapes, so an ANSI sequence or a `::error::` workflow command on a line of its own cannot be
 * smuggled through. One pass, no backtracking: linear in the input.
 */

// C0 (incl. tab, CR, LF), DEL, C1, the bidi embeddings/overrides/isolates, LS/PS.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escapeChar = (c: string): string => `\\u{${c.charCodeAt(0).toString(16)}}`;

/** `text` with every control and bidi-override character escaped (see above). */
export function printable(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/**
 * At most `max` UTF-16 units (including the `…` it ends with when cut), never splitting a
 * surrogate pair.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** `printable`, then clipped: the form for one value from a card or an answer shown to a person. */
export function displayText(text: string, max: number): string {
  return clipText(printable(text), max);
}
