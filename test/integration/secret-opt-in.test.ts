// Secrets opt in (issue 12, item 4), on the real control plane with the real operator process
// and SDK agents in pods:
//   guarded   an agent that requires a bearer token; its A2AAgent names a Secret without the label
//             a2a.dev/credential: Stalled SecretNotPermitted, and its pod never receives an
//             Authorization header. Labelled, the same Secret makes it Ready (the token arrives).
//   allowed / forged   two A2AAgents over the same pods naming one signing-key Secret (labelled)
//             whose a2a.dev/sign-for lists only "allowed": allowed's card is re-signed; forged is
//             Stalled SecretNotPermitted and nothing is published for it (no card signed with the key).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import {
  agentManifest,
  apply,
  es256Jwks,
  healthyAgentConfig,
  healthySpec,
  rewrittenAgentConfig,
  signingKeyRef,
  signingKeySecret,
} from '../harness/manifests.js';
import { observeOwnedRouting } from '../harness/routing-observer.js';
import { condition, waitAgent, waitFor } from '../harness/wait.js';

const TOKEN = 'optin-probe-token-2b7c9d';
const PROBE = { periodSeconds: 3, timeoutSeconds: 2 };

let guarded: AgentPod;
const { privateJwk } = es256Jwks('k1');

const s = scenario('optin', {
  async setup({ cluster, ns, pods }) {
    guarded = await startAgentPod(cluster, {
      namespace: ns,
      name: 'guarded-0',
      labels: { app: 'guarded' },
      config: healthyAgentConfig(`guarded.${ns}.svc`, { authToken: TOKEN }),
    });
    pods.push(guarded);
    const signerConfig = rewrittenAgentConfig(`allowed.${ns}.svc`);
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: 'signer-0',
        labels: { app: 'signer' },
        config: signerConfig,
      }),
    );
    await apply(
      cluster,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'guarded-token', namespace: ns }, // no opt-in label (yet)
        stringData: { token: TOKEN },
      },
      signingKeySecret(ns, 'card-key', 'allowed', privateJwk),
      agentManifest(ns, 'guarded', {
        ...healthySpec('guarded', PROBE),
        auth: { bearerToken: { secretKeyRef: { name: 'guarded-token', key: 'token' } } },
        // AuthRequired withdraws: a probe sent without the token would withdraw the pod.
        routing: { authRequired: 'Withdraw' },
      }),
      ...['allowed', 'forged'].map((name) =>
        agentManifest(ns, name, {
          ...healthySpec('signer', PROBE),
          hosts: [`allowed.${ns}.svc`],
          routing: { serviceName: name, ...signingKeyRef('card-key') },
        }),
      ),
    );
  },
});

describe('referenced Secrets must opt in', () => {
  test('a token Secret without the label: Stalled SecretNotPermitted, no Authorization header at the pod', async () => {
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'guarded',
      'Stalled',
      (x) => condition(x, 'Stalled')?.status === 'True',
    );
    const stalled = condition(a, 'Stalled')!;
    assert.equal(stalled.reason, 'SecretNotPermitted');
    assert.equal(condition(a, 'Ready')?.reason, 'SecretNotPermitted');
    assert.match(stalled.message, new RegExp(`Secret ${s.ns}/guarded-token \\(spec\\.auth\\.bearerToken\\)`));
    assert.match(stalled.message, /a2a\.dev\/credential="true"/);
    assert.equal(stalled.message.includes(TOKEN), false);
    // Several probe periods: the pod is probed (without credentials), never with the token.
    await new Promise((r) => setTimeout(r, 3 * PROBE.periodSeconds * 1000));
    const st = await guarded.state();
    assert.ok(st.served.http + st.served.grpc > 0, 'the pod was probed');
    assert.deepEqual(st.authorizations, [], 'no Authorization header reached the pod');
  });

  test('labelled, the same Secret makes the agent Ready and the token arrives', async () => {
    const r = await s.cluster.kubectl([
      'label',
      'secret',
      'guarded-token',
      '-n',
      s.ns,
      'a2a.dev/credential=true',
    ]);
    assert.equal(r.code, 0, r.stderr);
    await waitAgent(
      s.cluster,
      s.ns,
      'guarded',
      'Ready',
      (x) => condition(x, 'Ready')?.status === 'True',
      60_000,
    );
    const st = await guarded.state();
    assert.ok(st.authorizations.length > 0);
    assert.ok(st.authorizations.every((v) => v === `Bearer ${TOKEN}`));
  });

  test('the token Secret deleted (rotation by delete and create): refusals without it are not judged, routing kept; back, probed with it', async () => {
    const routed = async () => {
      const v = await observeOwnedRouting(s.cluster, s.ns, 'guarded');
      return { http: v.http, grpc: v.grpc };
    };
    const whole = { http: [guarded.ip], grpc: [guarded.ip] };
    assert.deepEqual(await routed(), whole);
    const r = await s.cluster.kubectl(['delete', 'secret', 'guarded-token', '-n', s.ns]);
    assert.equal(r.code, 0, r.stderr);
    await waitAgent(
      s.cluster,
      s.ns,
      'guarded',
      'Stalled SecretNotFound',
      (x) => condition(x, 'Stalled')?.reason === 'SecretNotFound',
    );
    const before = await guarded.state();
    // Long enough for failureThreshold (2) probes sent without the token to confirm AuthRequired,
    // which withdraws under authRequired: Withdraw, had the answers been judged.
    await new Promise((res) => setTimeout(res, 4 * PROBE.periodSeconds * 1000));
    const during = await guarded.state();
    assert.ok(
      during.served.http + during.served.grpc > before.served.http + before.served.grpc,
      'the pod is still probed (without the token)',
    );
    assert.deepEqual(await routed(), whole, 'both slices keep the pod');
    const a = await waitAgent(s.cluster, s.ns, 'guarded', 'status', () => true);
    assert.equal(condition(a, 'Stalled')?.reason, 'SecretNotFound');
    assert.ok(
      a.status?.interfaces?.every((i) => i.advertised && i.state === 'Verified'),
      `the refusals the missing token explains are not judged: ${JSON.stringify(a.status?.interfaces)}`,
    );
    await apply(s.cluster, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'guarded-token', namespace: s.ns, labels: { 'a2a.dev/credential': 'true' } },
      stringData: { token: TOKEN },
    });
    await waitAgent(
      s.cluster,
      s.ns,
      'guarded',
      'Ready again',
      (x) => condition(x, 'Ready')?.status === 'True',
      60_000,
    );
    await waitFor(
      'probed with the token again',
      async () => (await guarded.state()).authorizations.length > before.authorizations.length,
      30_000,
    );
    assert.deepEqual(await routed(), whole);
  });

  test('a signing key signs only for the agents its Secret names', async () => {
    const allowed = await waitAgent(
      s.cluster,
      s.ns,
      'allowed',
      're-signed',
      (x) => x.status?.advertised?.signatures === 'Resigned',
    );
    // (Stalled may be FailureConfirmed: its gRPC interface is withdrawn for good; never a Secret problem.)
    assert.notEqual(condition(allowed, 'Stalled')?.reason, 'SecretNotPermitted');
    const forged = await waitAgent(
      s.cluster,
      s.ns,
      'forged',
      'Stalled',
      (x) => condition(x, 'Stalled')?.status === 'True',
    );
    const stalled = condition(forged, 'Stalled')!;
    assert.equal(stalled.reason, 'SecretNotPermitted');
    assert.match(stalled.message, new RegExp(`Secret ${s.ns}/card-key \\(spec\\.routing\\.signingKey\\)`));
    assert.match(stalled.message, /does not list agent "forged" in its annotation a2a\.dev\/sign-for/);
    // Nothing is published for it: no card (signed or not) in a ConfigMap, nothing at the card endpoint.
    const cm = await s.cluster.kubectl(['get', 'configmap', 'forged-agent-card', '-n', s.ns]);
    assert.notEqual(cm.code, 0, 'no advertised card ConfigMap for forged');
    assert.match(cm.stderr, /NotFound/);
    const served = await fetch(`${s.operator.cardsUrl}/cards/${s.ns}/forged`);
    const body = await served.text();
    assert.notEqual(served.status, 200, body);
    assert.equal(body.includes('"signatures"'), false);
    assert.equal(forged.status?.advertised?.signatures === 'Resigned', false);
  });
});
