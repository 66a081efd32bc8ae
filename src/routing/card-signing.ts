/**
 * Re-signs a rewritten card (DESIGN 4): JWS over the JCS-canonical card, exactly as the A2A
 * spec (8.4) describes. We use the official SDK's own generator so the canonical form is byte
 * for byte what the SDK's verifier (and so most A2A clients) will check.
 */
import { createHash } from 'node:crypto';

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
  const kid =
    jwk.kid ??
    createHash('sha256')
      .update(JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, n: jwk.n, e: jwk.e }))
      .digest('base64url')
      .slice(0, 16);
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
