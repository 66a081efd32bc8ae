import { CardReason } from '../api/conditions.js';

/** A document that is not a card of any known shape. `reason` is always `CardInvalid`. */
export class CardParseError extends Error {
  override readonly name = 'CardParseError';
  readonly reason = CardReason.CardInvalid;
  readonly code = 'OPR_ERR_CARD_INVALID';
  constructor(message: string) {
    super(message);
  }
}
