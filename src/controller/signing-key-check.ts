/**
 * Signing keys' verdicts (routing/card-signing.ts), made once per key text and process: the
 * check signs and verifies a test message (a few milliseconds with EC or RSA-2048, 20 ms with
 * RSA-4096, about half a second with RSA-16384 on the thread pool), and each visit of each agent
 * reads its key every period. The verdict depends on the key text alone, so agents sharing a
 * key share it, and checks of one key started together (a new leader's first visits) are one
 * check. Kept by the key's sha256, never the key; a rotated key is a new text, checked again. A
 * problem is kept like a verdict: the fix is a new key text (a new Secret value) or a restart.
 */
import { createHash } from 'node:crypto';
import { signingKeyProblem } from '../routing/card-signing.js';

export interface SigningKeyVerdict {
  /** sha256 of the key text (base64url): what a visit's inputs hold instead of the key. */
  digest: string;
  /** Why the key cannot sign, or undefined when it can. */
  problem: string | undefined;
}

export class SigningKeyVerdicts {
  private readonly byDigest = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly check: (key: string) => Promise<string | undefined> = signingKeyProblem,
    /**
     * Keys remembered at once, far above a fleet's (an entry is about 250 bytes): past it the
     * key read least recently is forgotten, and checked again if it comes back.
     */
    private readonly max = 10_000,
  ) {}

  async verdict(key: string): Promise<SigningKeyVerdict> {
    const digest = createHash('sha256').update(key).digest('base64url');
    let pending = this.byDigest.get(digest);
    if (pending) {
      // Most recently read last: the Map's order is the eviction order.
      this.byDigest.delete(digest);
      this.byDigest.set(digest, pending);
    } else {
      if (this.byDigest.size >= this.max) this.byDigest.delete(this.byDigest.keys().next().value!);
      const check = this.check(key);
      pending = check;
      this.byDigest.set(digest, check);
      // A check that threw (not a verdict) is not remembered: the next visit tries again.
      check.catch(() => {
        if (this.byDigest.get(digest) === check) this.byDigest.delete(digest);
      });
    }
    return { digest, problem: await pending };
  }

  get size(): number {
    return this.byDigest.size;
  }
}
