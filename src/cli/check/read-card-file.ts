/**
 * `--card FILE`: read with the limits a fetched card has (1 MiB, nesting depth), reading at most
 * one byte past the cap so a huge file or a device never fills memory. Every failure is an
 * ExitError(2) naming the card reason, never a stack trace.
 */
import { CardReason } from '../../api/conditions.js';
import { MAX_CARD_BYTES, MAX_CARD_DEPTH, syntaxErrorOffset } from '../../probe/fetch-card.js';
import { exceedsDepth } from '../../probe/json-depth.js';
import { ExitError } from '../cli-errors.js';
import { readAtMost } from './read-at-most.js';

export async function readCardFile(file: string, maxBytes = MAX_CARD_BYTES): Promise<unknown> {
  let raw: Buffer;
  try {
    raw = await readAtMost(file, maxBytes + 1);
  } catch (err) {
    throw new ExitError(
      2,
      `${CardReason.CardFetchFailed}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'read failed'}`,
    );
  }
  if (raw.length > maxBytes)
    throw new ExitError(
      2,
      `${CardReason.CardTooLarge}: ${file} is larger than the ${maxBytes}-byte card limit`,
    );
  let body: unknown;
  const text = raw.toString('utf8');
  try {
    body = JSON.parse(text);
  } catch (err) {
    // Not the parser's message: it quotes a snippet of the file, as fetch-card.ts explains.
    const at = syntaxErrorOffset(err, text);
    throw new ExitError(
      2,
      `${CardReason.CardInvalid}: ${file} is not valid JSON${at === undefined ? '' : ` at byte ${at}`}`,
    );
  }
  if (exceedsDepth(body, MAX_CARD_DEPTH))
    throw new ExitError(
      2,
      `${CardReason.CardInvalid}: ${file} nests objects or arrays deeper than ${MAX_CARD_DEPTH} levels; it is not read further`,
    );
  return body;
}
