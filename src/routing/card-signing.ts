/**
 * Re-signs a rewritten card (docs/security.md): JWS over the JCS-canonical card, exactly as the A2A
 * spec (8.4) describes. We use the official SDK's own generator so the canonical form is byte
 * for byte what the SDK's verifier (and so most A2A clients) will check.
 */
import { createHash, createPrivateKey, createPublicKey, sign, verify, type JsonWebKey } from 'node:crypto';
import { promisify } from 'node:util';

interface Jwk {
  kty?: string;
  crv?: string;
  alg?: string;
  kid?: string;
  d?: string;
  [k: string]: unknown;
}

/** Raised for a signing key that cannot sign; the reason ends up in status and an Event. */
export class SigningKeyError extends Error {
  override readonly name = 'SigningKeyError';
  readonly reason = 'SigningKeyInvalid';
}

function defaultAlg(jwk: Jwk): string {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === 'EC') return jwk.crv === 'P-384' ? 'ES384' : jwk.crv === 'P-521' ? 'ES512' : 'ES256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  if (jwk.kty === 'RSA') return 'RS256';
  throw new SigningKeyError(`unsupported JWK kty ${JSON.stringify(jwk.kty)}`);
}

/** Algorithms each key type can sign with (what `alg` in the JWK may say). */
const ALGS: Record<string, readonly string[]> = {
  EC: ['ES256', 'ES384', 'ES512'],
  OKP: ['EdDSA'],
  RSA: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
};

/**
 * The longest kid a signing key may carry, in bytes as JSON. Every signature carries the kid in
 * its protected header (base64url, a third more), and the card's publishing room
 * (WRITTEN_CARD_HEADROOM) must hold the largest signature: RSA-16384 (the largest modulus
 * OpenSSL verifies) with this kid adds 4,190 bytes to a card. A kid names a key; 1 KiB is
 * far more than a UUID, a thumbprint or a URL needs.
 */
export const MAX_KID_BYTES = 1024;

/**
 * Why a signing key cannot sign, or undefined when it can: not JSON, not a JWK, a public key,
 * an unsupported `kty` or `alg`, a kid that is empty or not a short string, or key material Node's
 * crypto refuses. The message never quotes the key (it is a secret): only its kty and alg,
 * which are public by nature. The trial signature runs on libuv's thread pool: with RSA-16384
 * it takes about a second, which must not stall the event loop.
 */
export async function signingKeyProblem(text: string): Promise<string | undefined> {
  try {
    const jwk = parseSigningKey(text);
    if (jwk.alg !== undefined && typeof jwk.alg !== 'string')
      return `the JWK's alg is ${typeName(jwk.alg)}, not a string`;
    // Own keys only: a kty of "toString" must not find Object.prototype's.
    const algs = typeof jwk.kty === 'string' && Object.hasOwn(ALGS, jwk.kty) ? ALGS[jwk.kty] : undefined;
    if (!algs) {
      const kty = typeof jwk.kty === 'string' ? JSON.stringify(jwk.kty.slice(0, 16)) : typeName(jwk.kty);
      return `unsupported JWK kty ${kty} (EC, OKP or RSA)`;
    }
    const alg = defaultAlg(jwk);
    if (!algs.includes(alg))
      return `JWK alg ${JSON.stringify(alg.slice(0, 16))} does not fit kty ${jwk.kty} (${algs.join(', ')})`;
    if (jwk.kid !== undefined && typeof jwk.kid !== 'string')
      return `the JWK's kid is ${typeName(jwk.kid)}, not a string (RFC 7517 4.5)`;
    if (jwk.kid === '')
      return "the JWK's kid is empty (readers look the key up by it; leave kid out instead)";
    const kidBytes = jwk.kid === undefined ? 0 : Buffer.byteLength(JSON.stringify(jwk.kid));
    if (kidBytes > MAX_KID_BYTES)
      return `the JWK's kid takes ${kidBytes} bytes as JSON, over the ${MAX_KID_BYTES}-byte limit (every signature in the published card carries it)`;
    if (!(await keyPairMatches(jwk)))
      return `the ${jwk.kty} JWK is not a usable private key (a field is missing or malformed, or the private part does not match the public one)`;
    return undefined;
  } catch (err) {
    if (err instanceof SigningKeyError) return err.message;
    throw err;
  }
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}

const signAsync = promisify(
  (
    digest: string | null,
    data: Buffer,
    key: ReturnType<typeof createPrivateKey>,
    done: (err: Error | null, sig: Buffer) => void,
  ) => sign(digest, data, key, done),
);
const verifyAsync = promisify(
  (
    digest: string | null,
    data: Buffer,
    key: ReturnType<typeof createPublicKey>,
    sig: Buffer,
    done: (err: Error | null, ok: boolean) => void,
  ) => verify(digest, data, key, sig, done),
);

/**
 * Whether Node loads the private key and a signature made with it verifies under the JWK's
 * public part: a truncated or foreign `d` loads but signs for no one (readers would see a
 * signature that never verifies).
 */
async function keyPairMatches(jwk: Jwk): Promise<boolean> {
  const publicFields: Record<string, string[]> = {
    EC: ['crv', 'x', 'y'],
    OKP: ['crv', 'x'],
    RSA: ['n', 'e'],
  };
  const pub: Record<string, unknown> = { kty: jwk.kty };
  for (const f of publicFields[jwk.kty ?? ''] ?? []) pub[f] = jwk[f];
  try {
    const priv = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
    const digest = jwk.kty === 'OKP' ? null : 'sha256';
    const data = Buffer.from('a2a-operator signing key check');
    const sig = await signAsync(digest, data, priv);
    return await verifyAsync(digest, data, createPublicKey({ key: pub as JsonWebKey, format: 'jwk' }), sig);
  } catch {
    return false;
  }
}

/** Annotation on the card ConfigMap: what the signed card was signed from (see signingTag). */
export const SIGNED_FROM_ANNOTATION = 'a2a.dev/signed-from';

/** sha256 of a card without its signatures (the payload a signature covers). */
export function unsignedDigest(card: Record<string, unknown>): string {
  const unsigned = { ...card };
  delete unsigned.signatures;
  return createHash('sha256').update(JSON.stringify(unsigned)).digest('base64url').slice(0, 32);
}

/**
 * `<payload digest>.<key digest>`: equal tags mean the same unsigned card signed with the same
 * key. ES256/EdDSA-with-randomness signatures differ on every signing, so the reconciler
 * compares tags, not signed bytes, and reuses the published signature while the tag holds
 * (otherwise the ConfigMap would be rewritten every period). The key digest covers the public
 * part, the alg and the kid, so a key rotated under the same kid, or given another alg, signs
 * again; no secret material.
 */
export function signingTag(card: Record<string, unknown>, jwkText: string): string {
  const jwk = parseSigningKey(jwkText);
  const key = createHash('sha256')
    .update(JSON.stringify([publicPart(jwk), defaultAlg(jwk), jwk.kid ?? null]))
    .digest('base64url')
    .slice(0, 22);
  return `${unsignedDigest(card)}.${key}`;
}

function publicPart(jwk: Jwk): Record<string, unknown> {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, n: jwk.n, e: jwk.e };
}

function keyId(jwk: Jwk): string {
  return (
    jwk.kid ??
    createHash('sha256')
      .update(JSON.stringify(publicPart(jwk)))
      .digest('base64url')
      .slice(0, 16)
  );
}

export function parseSigningKey(text: string): Jwk {
  let jwk: Jwk;
  try {
    jwk = JSON.parse(text) as Jwk;
  } catch {
    throw new SigningKeyError('the signing key is not a JSON Web Key (JSON)');
  }
  if (typeof jwk !== 'object' || jwk === null || !jwk.kty)
    throw new SigningKeyError('the signing key is not a JWK (no kty)');
  if (!jwk.d)
    throw new SigningKeyError('the signing key is a public JWK; a private key (with "d") is needed to sign');
  return jwk;
}

export async function signCard(
  card: Record<string, unknown>,
  jwkText: string,
): Promise<Record<string, unknown>> {
  const jwk = parseSigningKey(jwkText);
  const alg = defaultAlg(jwk);
  // A stable key id when the JWK has none: a digest of its public part.
  const kid = keyId(jwk);
  const { generateAgentCardSignature } = await import('@a2a-js/sdk');
  const unsigned = { ...card };
  delete unsigned.signatures;
  let signed: unknown;
  try {
    // The SDK types the card as its generated AgentCard; ours is the same JSON object.
    const signer = generateAgentCardSignature(jwk as Parameters<typeof generateAgentCardSignature>[0], {
      alg,
      kid,
      typ: 'JOSE',
    });
    signed = await signer(unsigned as unknown as Parameters<typeof signer>[0]);
  } catch (err) {
    throw new SigningKeyError(`signing failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return signed as Record<string, unknown>;
}
