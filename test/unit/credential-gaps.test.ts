// A credential the spec names but the operator cannot read (a deleted Secret, one not opted in,
// an invalid token, a missing CA bundle): the probes still run without it, but a refusal its
// absence explains is the operator's gap, not the pod's failure. No verdict, no failure counted,
// what was known stays; a refusal it does not explain (the CA is there, the token was sent) is
// judged as always.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InterfaceState } from '../../src/api/conditions.js';
import { MemoryStore } from '../../src/controller/agent-memory.js';
import type { CredentialGaps } from '../../src/controller/credentials.js';
import { observePods } from '../../src/controller/observe-pods.js';
import type { CardFetch, ProbeBackend } from '../../src/controller/probe-backend.js';
import {
  agentSpec,
  observeInput,
  ONE_INTERFACE_CARD,
  ONE_KEY,
  oneInterfaceBackend,
} from './observe-fixtures.js';

const key = ONE_KEY;
const spec = agentSpec(8080, { probe: { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 2 } });

/** A backend whose card and probe answers a test switches between visits. */
function agent(): { backend: ProbeBackend; fetch: CardFetch; probe: InterfaceState } {
  const a: { backend?: ProbeBackend; fetch: CardFetch; probe: InterfaceState } = {
    fetch: ONE_INTERFACE_CARD,
    probe: InterfaceState.Verified,
  };
  const backend = oneInterfaceBackend(
    () => a.probe,
    () => a.fetch,
  );
  return Object.assign(a, { backend });
}

/** Visits ns/a every 11 s (each one after the last is due) with the given gaps. */
function visits(a: ReturnType<typeof agent>) {
  const memory = new MemoryStore().for('ns/a', 1, 'uid');
  let now = 1_000_000;
  return async (gaps?: CredentialGaps) => {
    now += 11_000;
    const res = await observePods(
      observeInput(spec, a.backend, { memory, now: () => now, ...(gaps ? { gaps } : {}) }),
    );
    return res.observations[0]!;
  };
}

describe('refusals a missing credential explains are not judged', () => {
  it('AuthRequired without the token: a verified interface stays Verified, no failure counted, however often', async () => {
    const a = agent();
    const visit = visits(a);
    assert.equal((await visit()).verdicts.get(key)?.state, 'Verified');
    a.probe = InterfaceState.AuthRequired;
    for (let i = 0; i < 4; i++) {
      const v = (await visit({ bearerToken: true })).verdicts.get(key)!;
      assert.equal(v.state, 'Verified');
      assert.equal(v.failures, 0);
      assert.equal(v.confirmed, false);
    }
    // The token back (no gap): the same answer is judged, and confirmed at the threshold.
    await visit();
    const judged = (await visit()).verdicts.get(key)!;
    assert.equal(judged.state, 'AuthRequired');
    assert.equal(judged.confirmed, true);
  });

  it('never verified: Pending, saying which credential is missing, not AuthRequired', async () => {
    const a = agent();
    a.probe = InterfaceState.AuthRequired;
    const v = (await visits(a)({ bearerToken: true })).verdicts.get(key)!;
    assert.equal(v.state, 'Pending');
    assert.match(
      v.message,
      /AuthRequired without spec\.auth\.bearerToken, which the operator could not read/,
    );
  });

  it('TLSError without the CA bundle is not judged; with the CA there (only the token missing) it is', async () => {
    const a = agent();
    const visit = visits(a);
    await visit();
    a.probe = InterfaceState.TLSError;
    assert.equal((await visit({ caBundle: true })).verdicts.get(key)?.failures, 0);
    assert.equal(
      (await visit({ bearerToken: true })).verdicts.get(key)?.failures,
      1,
      'the token explains no TLS failure',
    );
  });

  it('other failures are judged whatever is missing', async () => {
    const a = agent();
    const visit = visits(a);
    await visit();
    a.probe = InterfaceState.Unreachable;
    await visit({ bearerToken: true, caBundle: true });
    const v = (await visit({ bearerToken: true, caBundle: true })).verdicts.get(key)!;
    assert.equal(v.state, 'Unreachable');
    assert.equal(v.confirmed, true);
  });

  it('a card refused (401/403, or TLS) for want of the credential: the card held stays, no failure counted', async () => {
    const a = agent();
    const visit = visits(a);
    assert.equal((await visit()).card?.ok, true);
    a.fetch = { kind: 'error', reason: 'CardFetchFailed', message: 'HTTP 401', refused: 'auth' };
    for (let i = 0; i < 3; i++) assert.equal((await visit({ bearerToken: true })).card?.ok, true);
    a.fetch = {
      kind: 'error',
      reason: 'CardFetchFailed',
      message: 'request failed (CERT_HAS_EXPIRED)',
      refused: 'tls',
    };
    for (let i = 0; i < 3; i++) assert.equal((await visit({ caBundle: true })).card?.ok, true);
    // Not explained by what is missing: counted, and confirmed at the threshold.
    await visit({ bearerToken: true });
    const failed = (await visit({ bearerToken: true })).card;
    assert.equal(failed?.ok, false);
    assert.equal(failed?.ok === false && failed.confirmed, true);
  });
});
