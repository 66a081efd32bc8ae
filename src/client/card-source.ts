/**
 * Where the client's card comes from: a card the caller already holds (the agent's own), or a
 * URL serving one: the agent's `/.well-known/agent-card.json` or the operator's advertised card
 * endpoint (`/cards/<namespace>/<name>`), which lists only verified interfaces. A fetched card
 * is read as the operator reads one (probe/parse-card-body.ts): at most 1 MiB, the reading
 * stopped there, and any JSON a card cannot be (too deep, `1e400`, over 1 MiB written back)
 * is refused with the operator's reason, never a throw from a later step.
 */
import { CardParseError, parseCard, type ParsedCard } from '../card/index.js';
import { MAX_CARD_BYTES } from '../probe/fetch-card.js';
import { parseCardBody } from '../probe/parse-card-body.js';

export type CardSource = { card: unknown } | { cardUrl: string };

export interface LoadedCard {
  parsed: ParsedCard;
  /** The scheme the card was served over (an HTTPS card never sends calls over plaintext). */
  scheme?: 'http' | 'https';
}

export class CardLoadError extends Error {
  readonly code = 'A2A_CLIENT_CARD_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CardLoadError';
  }
}

/**
 * `timeoutMs` bounds the whole fetch, body included (a server that sends headers and stalls
 * would otherwise hold the caller as long as its fetch lets it).
 */
export async function loadCard(
  source: CardSource,
  fetchImpl: typeof fetch,
  timeoutMs = 60_000,
): Promise<LoadedCard> {
  if ('card' in source) {
    const parsed = parseCard(source.card);
    if (parsed instanceof CardParseError) throw new CardLoadError(parsed.message);
    return { parsed };
  }
  let url: URL;
  try {
    url = new URL(source.cardUrl);
  } catch (err) {
    throw new CardLoadError('cardUrl is not an absolute URL', { cause: err });
  }
  const from = `${url.origin}${url.pathname}`;
  let res: Response;
  try {
    res = await fetchImpl(url, {
      headers: { 'A2A-Version': '1.0', Accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new CardLoadError(`card fetch from ${from} failed`, { cause: err });
  }
  if (!res.ok) {
    void res.body?.cancel().catch(() => {});
    throw new CardLoadError(`card fetch from ${from} answered HTTP ${res.status}`);
  }
  let read: { raw: Buffer } | { over: string };
  try {
    read = await readBodyAtMost(res, MAX_CARD_BYTES);
  } catch (err) {
    throw new CardLoadError(`card fetch from ${from} failed while reading`, { cause: err });
  }
  if ('over' in read)
    throw new CardLoadError(
      `CardTooLarge: the card from ${from} is over the ${MAX_CARD_BYTES}-byte card limit (${read.over})`,
    );
  // No room for publishing: the client publishes nothing, and the operator's own card endpoint
  // serves a card that used that room (a signature).
  const body = parseCardBody(read.raw, MAX_CARD_BYTES, 0);
  if ('problem' in body) throw new CardLoadError(`${body.reason}: ${body.problem}`);
  const parsed = parseCard(body.body);
  if (parsed instanceof CardParseError) throw new CardLoadError(parsed.message);
  return { parsed, scheme: url.protocol === 'https:' ? 'https' : 'http' };
}

/**
 * The body, or why it is over `max` bytes (declared, or counted while reading, which stops
 * there): a card URL that streams without end costs the client at most `max` bytes. Counted
 * as decoded (a gzip body is counted as it expands).
 */
async function readBodyAtMost(res: Response, max: number): Promise<{ raw: Buffer } | { over: string }> {
  const declared = Number(res.headers.get('content-length') ?? '');
  if (Number.isFinite(declared) && declared > max) {
    void res.body?.cancel().catch(() => {});
    return { over: `Content-Length ${declared}` };
  }
  if (!res.body) return { raw: Buffer.alloc(0) };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { raw: Buffer.concat(chunks, size) };
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return { over: 'reading stopped there' };
    }
    chunks.push(value);
  }
}
