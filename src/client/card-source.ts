/**
 * Where the client's card comes from: a card the caller already holds (the agent's own), or a
 * URL serving one: the agent's `/.well-known/agent-card.json` or the operator's advertised card
 * endpoint (`/cards/<namespace>/<name>`), which lists only verified interfaces.
 */
import { CardParseError, parseCard, type ParsedCard } from '../card/index.js';

/** Cards are small; an answer past this is not one. */
const MAX_CARD_BYTES = 1024 * 1024;

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

export async function loadCard(source: CardSource, fetchImpl: typeof fetch): Promise<LoadedCard> {
  if ('card' in source) {
    const parsed = parseCard(source.card);
    if (parsed instanceof CardParseError) throw new CardLoadError(parsed.message);
    return { parsed };
  }
  const url = new URL(source.cardUrl);
  let res: Response;
  try {
    res = await fetchImpl(url, {
      headers: { 'A2A-Version': '1.0', Accept: 'application/json' },
      redirect: 'error',
    });
  } catch (err) {
    throw new CardLoadError(`card fetch from ${url.origin}${url.pathname} failed`, { cause: err });
  }
  if (!res.ok) {
    void res.body?.cancel().catch(() => {});
    throw new CardLoadError(`card fetch from ${url.origin}${url.pathname} answered HTTP ${res.status}`);
  }
  const text = await res.text();
  if (text.length > MAX_CARD_BYTES) throw new CardLoadError(`the card is over ${MAX_CARD_BYTES} bytes`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new CardLoadError('the card is not JSON', { cause: err });
  }
  const parsed = parseCard(json);
  if (parsed instanceof CardParseError) throw new CardLoadError(parsed.message);
  return { parsed, scheme: url.protocol === 'https:' ? 'https' : 'http' };
}
