// The Secrets opt-in policy (src/controller/secret-policy.ts): a pure function of the Secret's
// metadata, the use and the agent name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Reason } from '../../src/api/conditions.js';
import {
  CREDENTIAL_LABEL,
  SIGN_FOR_ANNOTATION,
  secretUseProblem,
  signForNames,
  type SecretMeta,
  type SecretUse,
} from '../../src/controller/secret-policy.js';

const base = { namespace: 'payments', name: 'billing-probe' };
const optedIn = { [CREDENTIAL_LABEL]: 'true' };

const cases: { name: string; secret: SecretMeta; use: SecretUse; agent: string; ok: boolean }[] = [
  { name: 'no labels at all', secret: base, use: 'credential', agent: 'billing', ok: false },
  {
    name: 'label absent',
    secret: { ...base, labels: { app: 'x' } },
    use: 'credential',
    agent: 'billing',
    ok: false,
  },
  {
    name: 'label "false"',
    secret: { ...base, labels: { [CREDENTIAL_LABEL]: 'false' } },
    use: 'credential',
    agent: 'billing',
    ok: false,
  },
  {
    name: 'label "True" (case matters)',
    secret: { ...base, labels: { [CREDENTIAL_LABEL]: 'True' } },
    use: 'credential',
    agent: 'billing',
    ok: false,
  },
  {
    name: 'label on annotations instead',
    secret: { ...base, annotations: optedIn },
    use: 'credential',
    agent: 'billing',
    ok: false,
  },
  {
    name: 'label "true": credential ok',
    secret: { ...base, labels: optedIn },
    use: 'credential',
    agent: 'billing',
    ok: true,
  },
  {
    name: 'label inherited from the prototype does not count',
    secret: { ...base, labels: Object.create(optedIn) as Record<string, string> },
    use: 'credential',
    agent: 'billing',
    ok: false,
  },
  {
    name: 'signing: label only',
    secret: { ...base, labels: optedIn },
    use: 'signing',
    agent: 'billing',
    ok: false,
  },
  {
    name: 'signing: annotation without the label',
    secret: { ...base, annotations: { [SIGN_FOR_ANNOTATION]: 'billing' } },
    use: 'signing',
    agent: 'billing',
    ok: false,
  },
  {
    name: 'signing: agent listed',
    secret: { ...base, labels: optedIn, annotations: { [SIGN_FOR_ANNOTATION]: 'billing,weather' } },
    use: 'signing',
    agent: 'weather',
    ok: true,
  },
  {
    name: 'signing: list with spaces',
    secret: { ...base, labels: optedIn, annotations: { [SIGN_FOR_ANNOTATION]: ' billing , weather ' } },
    use: 'signing',
    agent: 'billing',
    ok: true,
  },
  {
    name: 'signing: other agent',
    secret: { ...base, labels: optedIn, annotations: { [SIGN_FOR_ANNOTATION]: 'billing,weather' } },
    use: 'signing',
    agent: 'evil',
    ok: false,
  },
  {
    name: 'signing: prefix of a listed name',
    secret: { ...base, labels: optedIn, annotations: { [SIGN_FOR_ANNOTATION]: 'billing' } },
    use: 'signing',
    agent: 'bill',
    ok: false,
  },
  {
    name: 'signing: wildcard is not special',
    secret: { ...base, labels: optedIn, annotations: { [SIGN_FOR_ANNOTATION]: '*' } },
    use: 'signing',
    agent: 'billing',
    ok: false,
  },
  {
    name: 'signing: empty annotation',
    secret: { ...base, labels: optedIn, annotations: { [SIGN_FOR_ANNOTATION]: '' } },
    use: 'signing',
    agent: 'billing',
    ok: false,
  },
];

for (const c of cases) {
  test(`secretUseProblem: ${c.name}`, () => {
    const p = secretUseProblem(c.secret, c.use, c.agent, 'spec.auth.bearerToken');
    if (c.ok) {
      assert.equal(p, undefined);
      return;
    }
    assert.ok(p);
    assert.equal(p.reason, Reason.SecretNotPermitted);
    assert.match(p.message, /Secret payments\/billing-probe/);
    assert.match(
      p.message,
      c.secret.labels?.[CREDENTIAL_LABEL] === 'true' && Object.hasOwn(c.secret.labels, CREDENTIAL_LABEL)
        ? /a2a\.dev\/sign-for/
        : /a2a\.dev\/credential="true"/,
    );
  });
}

test('signForNames splits on commas and drops empty items', () => {
  assert.deepEqual(signForNames(undefined), []);
  assert.deepEqual(signForNames(' a, ,b,, c '), ['a', 'b', 'c']);
});
