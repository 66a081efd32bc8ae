/**
 * The bytes of a card (fetched, or a `--card` file) as JSON, or why they cannot be a card:
 * not JSON, nested too deep, a number outside the double range (CardInvalid), or larger than
 * the card limit once written back (CardTooLarge). The messages are made from positions and
 * sizes, never from the parser's text, which quotes a snippet of the body (a partial token,
 * control characters).
 */
import { CardReason } from '../api/conditions.js';
import { cardJsonProblem, WRITTEN_CARD_HEADROOM } from '../card/card-json.js';

export type CardBodyProblem = {
  reason: typeof CardReason.CardInvalid | typeof CardReason.CardTooLarge;
  problem: string;
};

/**
 * Where JSON.parse stopped, as a byte offset into the body, or undefined when it does not say.
 * Only V8's position number is taken from its message, never its text.
 */
export function syntaxErrorOffset(err: unknown, text: string): number | undefined {
  const message = err instanceof Error ? err.message : '';
  if (message.startsWith('Unexpected end of JSON input')) return Buffer.byteLength(text, 'utf8');
  const marker = ' at position ';
  const i = message.indexOf(marker);
  if (i < 0) return undefined;
  let end = i + marker.length;
  while (end < message.length && message[end]! >= '0' && message[end]! <= '9') end++;
  const chars = Number(message.slice(i + marker.length, end));
  return end > i + marker.length && chars <= text.length
    ? Buffer.byteLength(text.slice(0, chars), 'utf8')
    : undefined;
}

/**
 * `maxBytes` bounds the card twice: the body as read (the caller stops reading there) and the
 * card as written back, less the room its published form needs (WRITTEN_CARD_HEADROOM: the
 * ConfigMap key, a signature). The operator publishes what it parsed, re-serialised, and that
 * can be larger than what was read: a number is written in full (`1e20`, 4 bytes as read,
 * takes 21), a byte that is not UTF-8 becomes U+FFFD (3 bytes). A card that passes here fits
 * where it is published, whatever its spelling; one that does not gets the same verdict as a
 * body over the limit, from the operator and `check --card` alike. A reader that publishes
 * nothing (the client, which may be reading the card the operator published, signature and
 * all) passes `headroom` 0.
 */
export function parseCardBody(
  raw: Buffer,
  maxBytes: number,
  headroom = WRITTEN_CARD_HEADROOM,
): { body: unknown } | CardBodyProblem {
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    const at = syntaxErrorOffset(err, text);
    return {
      reason: CardReason.CardInvalid,
      problem: `the card is not valid JSON${at === undefined ? '' : ` at byte ${at}`}`,
    };
  }
  // Too deep, or a number JSON.parse turns into Infinity: a verdict here, not a throw later.
  const problem = cardJsonProblem(body);
  if (problem) return { reason: CardReason.CardInvalid, problem };
  // Linear in the body: a written number takes at most 24 bytes, a written byte at most 3.
  const written = Buffer.byteLength(JSON.stringify(body), 'utf8');
  const limit = maxBytes - headroom;
  if (written <= limit) return { body };
  const over =
    headroom > 0
      ? `the ${limit}-byte limit of a published card (the ${maxBytes}-byte card limit less room for the ConfigMap key and a signature)`
      : `the ${maxBytes}-byte card limit`;
  return {
    reason: CardReason.CardTooLarge,
    problem: `the card takes ${written} bytes written back as JSON (${raw.length} as read: numbers are written in full, bytes that are not UTF-8 as U+FFFD), over ${over}`,
  };
}
