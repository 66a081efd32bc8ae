/**
 * The signing key's verdict (routing/card-signing.ts), made once per key and kept in the
 * agent's memory: the check signs and verifies a test message, a few milliseconds with EC or
 * RSA-2048, 20 ms with RSA-4096 and about a second with RSA-16384, and a visit reads the key
 * every period. The memory holds the key's digest, not the key; a rotated key (new text) is
 * checked again, as is any key after a new generation or a restart (fresh memory).
 */
import { createHash } from 'node:crypto';
import { signingKeyProblem } from '../routing/card-signing.js';
import type { AgentMemory } from './agent-memory.js';

export async function signingKeyVerdict(
  memory: AgentMemory,
  key: string,
  check: (key: string) => Promise<string | undefined> = signingKeyProblem,
): Promise<string | undefined> {
  const digest = createHash('sha256').update(key).digest('base64url');
  if (memory.signingKey?.digest === digest) return memory.signingKey.problem;
  const problem = await check(key);
  memory.signingKey = { digest, problem };
  return problem;
}
