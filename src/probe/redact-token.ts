/**
 * The last line of defence for a credential: an agent may echo request headers in its error
 * bodies, card or gRPC status, and the probe quotes (a clip of) what the server said. Every
 * message built from a server's words has the token cut out first, in the raw text (before
 * clipping, so no prefix survives a cut) and again in the final message.
 */

export const REDACTED = '[redacted]';

/** `text` with every occurrence of `token` (as is, and as JSON would escape it) replaced. Linear. */
export function redactToken(text: string, token: string | undefined): string {
  if (!token) return text;
  let out = text.split(token).join(REDACTED);
  const escaped = JSON.stringify(token).slice(1, -1);
  if (escaped !== token) out = out.split(escaped).join(REDACTED);
  return out;
}
