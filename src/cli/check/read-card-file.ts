/**
 * `--card FILE`: read with the limits a fetched card has (1 MiB as read and as written back,
 * nesting depth, numbers in the double range; parse-card-body.ts), reading at most one byte
 * past the cap so a huge file or a device never fills memory. Every failure is an ExitError(2)
 * naming the card reason, never a stack trace.
 */
import { CardReason } from '../../api/conditions.js';
import { MAX_CARD_BYTES } from '../../probe/fetch-card.js';
import { parseCardBody } from '../../probe/parse-card-body.js';
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
  const parsed = parseCardBody(raw, maxBytes);
  if ('problem' in parsed) throw new ExitError(2, `${parsed.reason}: ${file}: ${parsed.problem}`);
  return parsed.body;
}
