/**
 * The bytes of a card (fetched, or a `--card` file) as JSON, or why they cannot be a card:
 * not JSON, nested too deep, a number outside the double range. The messages are made from
 * positions, never from the parser's text, which quotes a snippet of the body (a partial token,
 * control characters).
 */
import { cardJsonProblem } from '../card/card-json.js';

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

export function parseCardBody(raw: Buffer): { body: unknown } | { problem: string } {
  const text = raw.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    const at = syntaxErrorOffset(err, text);
    return { problem: `the card is not valid JSON${at === undefined ? '' : ` at byte ${at}`}` };
  }
  // Too deep, or a number JSON.parse turns into Infinity: a verdict here, not a throw later.
  const problem = cardJsonProblem(body);
  return problem ? { problem } : { body };
}
