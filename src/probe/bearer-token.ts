/**
 * A bearer token goes into an HTTP `Authorization` header and gRPC metadata. Both refuse
 * control and non-ASCII characters, and the refusal (grpc-js's, undici's) quotes the whole
 * value in its message, which would then reach logs, status and the CLI's output. So a token is
 * checked once, where it is read, and refused by a message that never contains it.
 *
 * Accepted: visible ASCII (0x21-0x7E), the header-value characters every client sends as is; RFC
 * 6750's b64token is a subset. Leading and trailing white space (a Secret written from a file
 * with its newline) is trimmed before the check by the callers.
 */

const MAX_TOKEN_LENGTH = 16 * 1024;

/** Why `token` cannot be sent, without quoting it; undefined when it can. */
export function bearerTokenProblem(token: string): string | undefined {
  if (token.length === 0) return 'the bearer token is empty';
  if (token.length > MAX_TOKEN_LENGTH)
    return `the bearer token is longer than ${MAX_TOKEN_LENGTH} characters`;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) {
      const what =
        c === 0x20 || c === 0x09
          ? 'white space'
          : c < 0x20 || c === 0x7f
            ? 'a control character'
            : 'a non-ASCII character';
      return `the bearer token contains ${what} at position ${i + 1}: only visible ASCII characters can be sent in an Authorization header`;
    }
  }
  return undefined;
}
