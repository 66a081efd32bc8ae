// Re-signing the advertised card (docs/security.md): with spec.routing.signingKey set, a rewritten card
// is signed again (JWS over the JCS-canonical card) and verifies with the official SDK's
// verifyAgentCardSignature; a tampered copy does not. Without a key the stale signatures are removed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyAgentCardSignature } from '@a2a-js/sdk';
import { startAgentPod } from '../harness/agent-pod.js';
import { scenario } from '../harness/scenario.js';
import {
  agentManifest,
  apply,
  es256Jwks,
  healthySpec,
  rewrittenAgentConfig,
  signingKeyRef,
  signingKeySecret,
} from '../harness/manifests.js';
import { waitAgent } from '../harness/wait.js';

const { privateJwk, publicJwk } = es256Jwks('operator-key');

type Card = Record<string, unknown> & {
  signatures?: unknown[];
  supportedInterfaces: { protocolBinding: string; url: string }[];
};

async function advertised(name: string): Promise<Card> {
  const cm = JSON.parse(
    (await s.cluster.kubectl(['get', 'configmap', `${name}-agent-card`, '-n', s.ns, '-o', 'json'])).stdout,
  ) as { data: Record<string, string> };
  return JSON.parse(cm.data['agent-card.json']!) as Card;
}

const verify = verifyAgentCardSignature(async (kid) => {
  assert.equal(kid, 'operator-key');
  return publicJwk;
});

const s = scenario('signing', {
  async setup({ cluster, ns, pods }) {
    const config = rewrittenAgentConfig(`signed.${ns}.svc`);
    pods.push(
      await startAgentPod(cluster, { namespace: ns, name: 'signed-0', labels: { app: 'signed' }, config }),
    );
    await apply(
      cluster,
      signingKeySecret(ns, 'card-key', 'signed', privateJwk),
      agentManifest(ns, 'signed', {
        ...healthySpec('signed'),
        routing: signingKeyRef('card-key'),
      }),
      agentManifest(ns, 'unsigned', { ...healthySpec('signed'), routing: { serviceName: 'unsigned' } }),
    );
  },
});

describe('advertised card signatures', () => {
  test('the rewritten card is re-signed and verifies with the SDK verifier', async () => {
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'signed',
      'advertised and re-signed',
      (x) => x.status?.advertised?.signatures === 'Resigned',
    );
    assert.equal(a.status?.advertised?.interfaces, 2);
    const card = await advertised('signed');
    assert.deepEqual(
      card.supportedInterfaces.map((i) => i.protocolBinding),
      ['JSONRPC', 'HTTP+JSON'],
    );
    assert.equal(card.signatures?.length, 1);
    await verify(card as never);
  });

  test('a tampered copy does not verify', async () => {
    const card = await advertised('signed');
    const tampered = structuredClone(card);
    tampered.supportedInterfaces[0]!.url = 'http://attacker.example:8080/a2a/jsonrpc';
    await assert.rejects(verify(tampered as never));
    const reordered = structuredClone(card);
    reordered.supportedInterfaces.reverse();
    await assert.rejects(verify(reordered as never), 'interface order is covered by the signature');
  });

  test('without a signing key the card is published unsigned', async () => {
    const a = await waitAgent(
      s.cluster,
      s.ns,
      'unsigned',
      'advertised',
      (x) => (x.status?.advertised?.interfaces ?? 0) > 0,
    );
    assert.equal(a.status?.advertised?.signatures, 'None');
    const card = await advertised('unsigned');
    assert.equal((card.signatures ?? []).length, 0, 'no signature on the published card');
  });
});
