/**
 * Fetches an agent card from one pod: `A2A-Version: 1.0` (so SDK agents serve their v1.0 card,
 * not the compat one), a 1 MiB cap enforced while streaming, a nesting-depth cap, a timeout, no
 * redirects followed, and `If-None-Match` revalidation with the ETag of the last fetch. A
 * server that sends no ETag (the SDKs send none) gets the same saving from `heldBodyDigest`:
 * the same bytes again are `notModified`, not parsed, validated and digested again.
 */
import { createHash } from 'node:crypto';
import { Client, type Dispatcher } from 'undici';
import { CardReason } from '../api/conditions.js';
import { MAX_CARD_DEPTH } from '../card/card-json.js';
import { displayUrl } from '../text/display-url.js';
import { parseCardBody } from './parse-card-body.js';
import { exchange } from './http-exchange.js';
import { hostPort } from './dial-target.js';
import { MAX_HEADER_BYTES } from './http-pools.js';
import { checkIdentityFor, isIpLiteral, type TlsSettings } from './tls-settings.js';
import { errorCode } from './transport-failure.js';

export const MAX_CARD_BYTES = 1024 * 1024;
export { MAX_CARD_DEPTH };

export interface FetchCardOptions {
  /** IP or host name to dial (the pod). */
  address: string;
  port: number;
  scheme: 'http' | 'https';
  /** Request path, e.g. `/.well-known/agent-card.json`. */
  path: string;
  /** Host header (`host[:port]`); its host part is also the TLS SNI and certificate name. */
  hostHeader: string;
  timeoutMs: number;
  tls?: TlsSettings;
  /** ETag of the card held; a 304 answer becomes `notModified`. */
  etag?: string;
  /**
   * `bodyDigest` of the card held (an earlier `ok` result): a 200 answer with the same bytes
   * becomes `notModified`, unparsed.
   */
  heldBodyDigest?: string;
  signal?: AbortSignal;
  bearerToken?: string;
  /** Default 1 MiB. */
  maxBytes?: number;
  /** Reuse a connection pool to this pod; otherwise a one-shot connection is opened and closed. */
  dispatcher?: Dispatcher;
}

export type CardFetchReason =
  typeof CardReason.CardFetchFailed | typeof CardReason.CardTooLarge | typeof CardReason.CardInvalid;

/** Why a card could not be had. `reason` is a `CardReason`; `code` is stable for the CLI. */
export class CardFetchError extends Error {
  override readonly name = 'CardFetchError';
  readonly code = 'OPR_ERR_CARD_FETCH';
  constructor(
    readonly reason: CardFetchReason,
    message: string,
    readonly evidence: { httpStatus?: number; errorCode?: string } = {},
  ) {
    super(message);
  }
}

export type FetchCardResult =
  | {
      kind: 'ok';
      body: unknown;
      raw: Buffer;
      /** sha256 of the bytes as served (not canonical): what `heldBodyDigest` is compared with. */
      bodyDigest: string;
      etag?: string;
      contentType?: string;
    }
  /** A 304 to `etag`, or the bytes of `heldBodyDigest` again; `etag` is the server's, if any. */
  | { kind: 'notModified'; etag?: string }
  | { kind: 'error'; error: CardFetchError };

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The host part of a Host header value (`host[:port]`, `[v6]:port`): TLS SNI and certificate name. */
export function urlHostOf(hostHeader: string): string {
  try {
    return new URL(`http://${hostHeader}`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return hostHeader;
  }
}

export async function fetchCard(opts: FetchCardOptions): Promise<FetchCardResult> {
  const maxBytes = opts.maxBytes ?? MAX_CARD_BYTES;
  const where = `${opts.scheme}://${opts.hostHeader}${opts.path} (dialled ${hostPort(opts.address, opts.port)})`;
  const fail = (
    reason: CardFetchReason,
    message: string,
    evidence: CardFetchError['evidence'] = {},
  ): FetchCardResult => ({
    kind: 'error',
    error: new CardFetchError(reason, `${where}: ${message}`, evidence),
  });
  const urlHost = urlHostOf(opts.hostHeader);
  const insecure = opts.tls?.insecureSkipVerify === true;
  const owned = opts.dispatcher
    ? undefined
    : new Client(`${opts.scheme}://${hostPort(opts.address, opts.port)}`, {
        maxHeaderSize: MAX_HEADER_BYTES,
        connect: {
          timeout: opts.timeoutMs,
          ...(opts.scheme === 'https'
            ? {
                servername: isIpLiteral(urlHost) ? undefined : urlHost,
                ca: opts.tls?.ca,
                rejectUnauthorized: !insecure,
                checkServerIdentity: insecure ? () => undefined : checkIdentityFor(urlHost),
              }
            : {}),
        },
      });
  const dispatcher = opts.dispatcher ?? owned!;
  try {
    const headers: Record<string, string> = {
      host: opts.hostHeader,
      'a2a-version': '1.0',
      accept: 'application/json',
    };
    if (opts.etag) headers['if-none-match'] = opts.etag;
    if (opts.bearerToken) headers.authorization = `Bearer ${opts.bearerToken}`;
    // Every answer is read within the card limit, whatever its status: a redirect's or an
    // error's body is bounded like a card's, and the connection stays reusable after it.
    const res = await exchange(dispatcher, {
      method: 'GET',
      path: opts.path,
      headers,
      timeoutMs: opts.timeoutMs,
      maxBodyBytes: maxBytes,
      signal: opts.signal,
    });
    const etag = header(res.headers.etag);
    const contentType = header(res.headers['content-type']);
    if (res.status === 304 && opts.etag) return { kind: 'notModified', etag: etag ?? opts.etag };
    if (res.status >= 300 && res.status < 400) {
      // The server's Location is shown only as displayUrl makes any card URL: redacted, escaped, clipped.
      const location = header(res.headers.location);
      return fail(
        CardReason.CardFetchFailed,
        `redirect (HTTP ${res.status})${location ? ` to ${displayUrl(location)}` : ''}, not followed; serve the card at this path`,
        { httpStatus: res.status },
      );
    }
    if (res.status !== 200)
      return fail(CardReason.CardFetchFailed, `HTTP ${res.status}`, { httpStatus: res.status });
    const declared = Number(header(res.headers['content-length']));
    if (Number.isFinite(declared) && declared > maxBytes) {
      return fail(
        CardReason.CardTooLarge,
        `Content-Length ${declared} exceeds the ${maxBytes}-byte card limit`,
        {
          httpStatus: 200,
        },
      );
    }
    const raw = res.body;
    if (res.truncated) {
      return fail(
        CardReason.CardTooLarge,
        `the card is larger than the ${maxBytes}-byte limit (reading stopped there)`,
        {
          httpStatus: 200,
        },
      );
    }
    const bodyDigest = createHash('sha256').update(raw).digest('base64');
    if (opts.heldBodyDigest === bodyDigest) return { kind: 'notModified', ...(etag ? { etag } : {}) };
    const parsed = parseCardBody(raw, maxBytes);
    if ('problem' in parsed) return fail(parsed.reason, parsed.problem, { httpStatus: 200 });
    return {
      kind: 'ok',
      body: parsed.body,
      raw,
      bodyDigest,
      ...(etag ? { etag } : {}),
      ...(contentType ? { contentType } : {}),
    };
  } catch (err) {
    const code = errorCode(err) ?? 'UNKNOWN';
    return fail(CardReason.CardFetchFailed, `request failed (${code})`, { errorCode: code });
  } finally {
    await owned?.destroy().catch(() => undefined);
  }
}
