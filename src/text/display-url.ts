/**
 * A URL from a card, as shown to a person (status and Event messages, log lines, CLI output):
 * credentials redacted, control characters escaped, length bounded, all linear.
 */
import { clipText, printable } from './display-text.js';
import { redactUrlCredentials } from './redact-credentials.js';

/** Room for any real endpoint URL, not for a card's attempt to fill status. */
export const MAX_SHOWN_URL = 256;

/** The form of a card URL for a message: credentials redacted, then `printable`, then clipped. */
export function displayUrl(url: string, max = MAX_SHOWN_URL): string {
  return clipText(printable(redactUrlCredentials(url)), max);
}
