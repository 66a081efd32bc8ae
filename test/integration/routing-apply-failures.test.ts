// Signing never wedges nor churns, and an apply failure ends in status (issue 11, items 2 and 7):
// - an ES256-signed agent (randomised signatures) causes zero writes per steady period: the
//   published signature is reused while the unsigned card is unchanged;
// - a signing key that cannot sign becomes Advertised=False/SigningKeyInvalid (no key material
//   in status), routing stays as it was, and a later confirmed break is still withdrawn;
// - an operator denied writes on endpointslices (RBAC) says so in status (Forbidden, Stalled),
//   retries at the probe period (class "waiting", not a backoff storm), and recovers once the
//   verb is granted, without any change to the A2AAgent;
// - a slice the API refuses (422, here from an admission policy) is Invalid in status with the
//   API's message, retried only at the probe period, and recovers when the policy is lifted;
// - a card ConfigMap the API refuses does not stop the probes: a break found while stalled is
//   withdrawn from the slices (the refused card does not hold the withdrawal back).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, startHealthyPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { condition, getAgent, waitAgent, waitFor } from '../harness/wait.js';

const PERIOD = 5;
let cluster: Cluster;
let ns: string;
let rbacNs: string;
let operator: OperatorProcess;
let limited: OperatorProcess | undefined;
const pods: AgentPod[] = [];
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'operator-key', alg: 'ES256' };

/** API writes the operator made so far, from its own request metrics. */
async function apiWrites(op: OperatorProcess, filter = /./): Promise<number> {
  const text = await op.metrics();
  return [...text.matchAll(/^a2a_operator_api_requests_total\{([^}]*)\} (\d+)/gm)]
    .filter((m) => /method="(PATCH|POST|PUT|DELETE)"/.test(m[1]!) && filter.test(m[1]!))
    .reduce((n, m) => n + Number(m[2]), 0);
}

async function rv(namespace: string, kind: string, name: string): Promise<string> {
  return (
    await cluster.kubectl(['get', kind, name, '-n', namespace, '-o', 'jsonpath={.metadata.resourceVersion}'])
  ).stdout;
}

async function sliceIps(namespace: string, name: string): Promise<string[]> {
  const res = await cluster.kubectl(['get', 'endpointslice', name, '-n', namespace, '-o', 'json']);
  if (res.code !== 0) return [];
  const s = JSON.parse(res.stdout) as { endpoints?: { addresses: string[] }[] };
  return (s.endpoints ?? []).map((e) => e.addresses[0]!).sort();
}

function keySecret(namespace: string, name: string, signFor: string, value: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      labels: { 'a2a.dev/credential': 'true' },
      annotations: { 'a2a.dev/sign-for': signFor },
    },
    stringData: { 'key.jwk': value },
  };
}

const signed = (secret: string) => ({
  ...healthySpec('x', { periodSeconds: PERIOD, timeoutSeconds: 2 }),
  routing: { signingKey: { secretKeyRef: { name: secret, key: 'key.jwk' } } },
});

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('apply-fail');
  rbacNs = await cluster.createNamespace('apply-denied');
  // es256: gRPC not registered, so the card is rewritten and re-signed on every full routing.
  const es = healthyAgentConfig(`es256.${ns}.svc`);
  es.grpc = { port: 9090, register: false };
  pods.push(
    await startAgentPod(cluster, { namespace: ns, name: 'es256-0', labels: { app: 'es256' }, config: es }),
  );
  // badkey: its card also declares an interface no pod serves, so the card is rewritten (and
  // needs signing) on every full routing.
  const badkeyConfig = healthyAgentConfig(`badkey.${ns}.svc`);
  badkeyConfig.interfaces?.push({
    url: `http://badkey.${ns}.svc:8080/a2a/nowhere`,
    protocolBinding: 'HTTP+JSON',
    protocolVersion: '1.0',
  });
  for (const i of [0, 1]) {
    pods.push(
      await startAgentPod(cluster, {
        namespace: ns,
        name: `badkey-${i}`,
        labels: { app: 'badkey' },
        config: badkeyConfig,
      }),
    );
  }
  for (const app of ['taken', 'cardless']) pods.push(await startHealthyPod(cluster, ns, app));
  pods.push(
    await startAgentPod(cluster, {
      namespace: rbacNs,
      name: 'denied-0',
      labels: { app: 'denied' },
      config: healthyAgentConfig(`denied.${rbacNs}.svc`),
    }),
  );
  await apply(
    cluster,
    keySecret(ns, 'es-key', 'es256', JSON.stringify(privateJwk)),
    keySecret(ns, 'bad-key', 'badkey', JSON.stringify(privateJwk)),
    agentManifest(ns, 'es256', { ...signed('es-key'), selector: { matchLabels: { app: 'es256' } } }),
    agentManifest(ns, 'badkey', { ...signed('bad-key'), selector: { matchLabels: { app: 'badkey' } } }),
  );
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
});

after(async () => {
  await limited?.stop();
  await operator?.stop();
  if (ns) for (const r of [SLICE_REFUSAL, CARD_REFUSAL]) await removePolicy(ns, r);
  await Promise.all(pods.map((p) => p.destroy()));
  await cluster?.kubectl([
    'delete',
    'clusterrolebinding,clusterrole',
    `apply-denied-${rbacNs}`,
    '--ignore-not-found',
  ]);
});

describe('signing never wedges and never churns', () => {
  test('an ES256-signed agent causes zero API writes over several steady periods', async () => {
    await waitAgent(
      cluster,
      ns,
      'es256',
      're-signed and settled',
      (x) =>
        x.status?.advertised?.signatures === 'Resigned' && condition(x, 'Reconciling')?.status === 'False',
    );
    await waitAgent(
      cluster,
      ns,
      'badkey',
      're-signed and settled',
      (x) =>
        x.status?.advertised?.signatures === 'Resigned' && condition(x, 'Reconciling')?.status === 'False',
    );
    const objects: [string, string][] = [
      ['a2a', 'es256'],
      ['configmap', 'es256-agent-card'],
      ['endpointslice', 'es256-http'],
      ['service', 'es256'],
    ];
    const before = await Promise.all(objects.map(([k, n]) => rv(ns, k, n)));
    const writesBefore = await apiWrites(operator);
    await new Promise((r) => setTimeout(r, 3 * PERIOD * 1000 + 1000));
    assert.equal(
      await apiWrites(operator),
      writesBefore,
      `no API write while nothing changed\n${operator.proc.tail(20)}`,
    );
    assert.deepEqual(
      await Promise.all(objects.map(([k, n]) => rv(ns, k, n))),
      before,
      'no object was rewritten',
    );
  });

  test('a key that cannot sign is SigningKeyInvalid; routing stays; a later break is still withdrawn', async () => {
    const routed = await sliceIps(ns, 'badkey-grpc');
    assert.equal(routed.length, 2);
    // The private d rides along in a JWK of an unsupported kty: status must not quote it.
    const bad = JSON.stringify({ ...privateJwk, kty: 'oct', alg: undefined });
    await apply(cluster, keySecret(ns, 'bad-key', 'badkey', bad));
    const a = await waitAgent(
      cluster,
      ns,
      'badkey',
      'Advertised=False SigningKeyInvalid',
      (x) => condition(x, 'Advertised')?.reason === 'SigningKeyInvalid',
      60_000,
    );
    assert.equal(condition(a, 'Advertised')?.status, 'False');
    assert.equal(condition(a, 'Stalled')?.status, 'True');
    assert.equal(condition(a, 'Stalled')?.reason, 'SigningKeyInvalid');
    assert.ok(!JSON.stringify(a.status).includes(String(privateJwk.d)), 'key material in status');
    assert.ok(
      !JSON.stringify(a.status).includes(String(privateJwk.d).slice(0, 10)),
      'key material in status',
    );
    assert.deepEqual(await sliceIps(ns, 'badkey-grpc'), routed, 'routing stays as it was');

    await pods.find((p) => p.name === 'badkey-0')!.control('/grpc', { running: false });
    const ip0 = pods.find((p) => p.name === 'badkey-0')!.ip;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await sliceIps(ns, 'badkey-grpc')).includes(ip0))
      await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(
      await sliceIps(ns, 'badkey-grpc'),
      routed.filter((ip) => ip !== ip0),
      `the confirmed break is withdrawn while the key is bad\n${operator.proc.tail(30)}`,
    );
    assert.equal((await sliceIps(ns, 'badkey-http')).length, 2, 'the http port keeps both pods');
  });
});

describe('status always says why an apply failed', () => {
  const role = () => `apply-denied-${rbacNs}`;
  const rules = (sliceVerbs: string[]) => [
    {
      apiGroups: ['', 'a2a.dev', 'coordination.k8s.io', 'events.k8s.io', 'authorization.k8s.io'],
      resources: ['*'],
      verbs: ['*'],
    },
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: sliceVerbs },
  ];

  test('a denied write is Forbidden in status, retried at the period, and recovers when granted', async () => {
    await apply(
      cluster,
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'limited', namespace: rbacNs } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: role() },
        rules: rules(['get', 'list', 'watch']),
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: role() },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role() },
        subjects: [{ kind: 'ServiceAccount', name: 'limited', namespace: rbacNs }],
      },
      agentManifest(rbacNs, 'denied', {
        ...healthySpec('denied', { periodSeconds: PERIOD, timeoutSeconds: 2 }),
      }),
    );
    const kubeconfig = cluster.kubeconfigForToken(await cluster.mintToken(rbacNs, 'limited'));
    limited = await startOperator({ kubeconfig, namespaces: [rbacNs] });
    await limited.waitReady();
    const a = await waitAgent(
      cluster,
      rbacNs,
      'denied',
      'Advertised=False Forbidden',
      (x) => condition(x, 'Advertised')?.reason === 'Forbidden',
      60_000,
    );
    assert.equal(condition(a, 'Advertised')?.status, 'False');
    assert.match(condition(a, 'Advertised')?.message ?? '', /endpointslices/i);
    assert.equal(condition(a, 'Stalled')?.status, 'True');
    assert.equal(condition(a, 'Stalled')?.reason, 'Forbidden');
    assert.equal(condition(a, 'Reconciling')?.status, 'False', 'not a permanent Reconciling=True');
    assert.equal(condition(a, 'Ready')?.reason, 'Forbidden');
    assert.ok(!a.status?.interfaces?.some((i) => i.advertised), 'status claims no advertisement that failed');

    // Waiting class: retried at the probe period, not with a millisecond backoff. The first
    // attempts come in a burst (the operator's own writes, the Service and the status, wake it
    // again at once), which a loaded machine can stretch past the moment status first says
    // Forbidden: the count starts after the first periodic retry (two denied writes, one per slice).
    const denied = /resource="endpointslices",code="403"/;
    const burst = await apiWrites(limited, denied);
    const retryDeadline = Date.now() + 3 * PERIOD * 1000;
    while ((await apiWrites(limited, denied)) === burst && Date.now() < retryDeadline)
      await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 1000)); // that retry's second write
    const before = await apiWrites(limited, denied);
    assert.ok(before > burst, `no retry within 3 periods\n${limited.proc.tail(20)}`);
    // 2.5 periods after a retry: two more, at 1 and 2 periods.
    await new Promise((r) => setTimeout(r, 2.5 * PERIOD * 1000));
    const writes = (await apiWrites(limited, denied)) - before;
    assert.ok(
      writes >= 2 && writes <= 6,
      `denied writes in 2.5 periods: ${writes}\n${limited.proc.tail(20)}`,
    );

    // Granting the verb is not a change to the A2AAgent: the periodic retry picks it up.
    await apply(cluster, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role() },
      rules: rules(['*']),
    });
    const ok = await waitAgent(
      cluster,
      rbacNs,
      'denied',
      'Advertised=True',
      (x) => condition(x, 'Advertised')?.status === 'True',
      60_000,
    );
    assert.equal(condition(ok, 'Stalled')?.status, 'False');
    assert.equal((await sliceIps(rbacNs, 'denied-http')).length, 1);
  });
});

describe('an object the API refuses stalls the agent; its probes go on', () => {
  test('a slice the API refuses (422) is Invalid in status with its message, retried only at the period, and recovers when the policy is lifted', async () => {
    // An admission policy refuses the operator's slice with 422 Invalid (a foreign same-named
    // slice no longer provokes one: the operator does not take it over, SliceConflict).
    await apply(cluster, ...refusePolicy(ns, SLICE_REFUSAL));
    await waitFor('the admission policy in effect', async () =>
      (await refusedNow(SLICE_REFUSAL)) ? true : undefined,
    );
    const spec = { ...healthySpec('taken', { periodSeconds: PERIOD, timeoutSeconds: 2 }) };
    await apply(cluster, agentManifest(ns, 'taken', spec));
    const a = await waitAgent(
      cluster,
      ns,
      'taken',
      'Advertised=False Invalid',
      (x) => condition(x, 'Advertised')?.reason === 'Invalid',
      60_000,
    );
    assert.equal(condition(a, 'Advertised')?.status, 'False');
    assert.match(condition(a, 'Advertised')?.message ?? '', /refused by policy/);
    assert.equal(condition(a, 'Stalled')?.status, 'True');
    assert.equal(condition(a, 'Reconciling')?.status, 'False', 'not a permanent Reconciling=True');

    // Stalling class: no backoff storm; the agent is visited again at the probe period (its
    // probes must go on), and each visit tries the refused write once.
    await new Promise((r) => setTimeout(r, PERIOD * 1000));
    const invalid = /resource="endpointslices",code="422"/;
    const before = await apiWrites(operator, invalid);
    assert.ok(before > 0, 'the refused write is counted under its code');
    await new Promise((r) => setTimeout(r, 3 * PERIOD * 1000));
    const retries = (await apiWrites(operator, invalid)) - before;
    assert.ok(
      retries >= 1 && retries <= 6,
      `refused writes in 3 periods: ${retries}\n${operator.proc.tail(20)}`,
    );

    // The person's fix: lift the policy. Not a change to the A2AAgent: the next periodic
    // visit writes the slice.
    await removePolicy(ns, SLICE_REFUSAL);
    const ok = await waitAgent(
      cluster,
      ns,
      'taken',
      'Advertised=True',
      (x) => condition(x, 'Advertised')?.status === 'True',
      60_000,
    );
    assert.equal(condition(ok, 'Stalled')?.status, 'False');
    assert.equal((await sliceIps(ns, 'taken-http')).length, 1);
  });

  test('a card the API refuses: a break found while stalled is still withdrawn from the slices', async () => {
    await apply(cluster, ...refusePolicy(ns, CARD_REFUSAL));
    await waitFor('the admission policy in effect', async () =>
      (await refusedNow(CARD_REFUSAL)) ? true : undefined,
    );
    await apply(
      cluster,
      agentManifest(ns, 'cardless', {
        ...healthySpec('cardless', { periodSeconds: PERIOD, timeoutSeconds: 2 }),
      }),
    );
    const a = await waitAgent(
      cluster,
      ns,
      'cardless',
      'Advertised=False Invalid',
      (x) => condition(x, 'Advertised')?.reason === 'Invalid',
      60_000,
    );
    assert.match(condition(a, 'Advertised')?.message ?? '', /refused by policy/);
    assert.equal(condition(a, 'Stalled')?.status, 'True');
    // The slices go before the card: both ports route the pod.
    const pod = pods.find((p) => p.name === 'cardless-0')!;
    assert.deepEqual(await sliceIps(ns, 'cardless-grpc'), [pod.ip]);

    // gRPC breaks on the only pod. Nothing about the pod object changes: only the probes at
    // the period can find it, and the card that drops gRPC is refused as well.
    await pod.control('/grpc', { running: false });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await sliceIps(ns, 'cardless-grpc')).length > 0)
      await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(
      await sliceIps(ns, 'cardless-grpc'),
      [],
      `the confirmed break is withdrawn while the card is refused\n${operator.proc.tail(30)}`,
    );
    assert.deepEqual(await sliceIps(ns, 'cardless-http'), [pod.ip], 'http keeps the pod');
    assert.equal(
      condition(await getAgent(cluster, ns, 'cardless'), 'Advertised')?.reason,
      'Invalid',
      'still stalled on the card',
    );

    // Lifted: the card without gRPC is published at the next period.
    await removePolicy(ns, CARD_REFUSAL);
    await waitAgent(
      cluster,
      ns,
      'cardless',
      'Advertised=True',
      (x) => condition(x, 'Advertised')?.status === 'True',
      60_000,
    );
    const cm = JSON.parse(
      (await cluster.kubectl(['get', 'configmap', 'cardless-agent-card', '-n', ns, '-o', 'json'])).stdout,
    ) as { data?: Record<string, string> };
    const published = JSON.parse(Object.values(cm.data ?? {})[0] ?? '{}') as {
      supportedInterfaces?: { protocolBinding: string }[];
    };
    assert.ok(published.supportedInterfaces?.length, 'the card names its interfaces');
    assert.ok(
      !published.supportedInterfaces?.some((i) => i.protocolBinding === 'GRPC'),
      'the published card no longer offers gRPC',
    );
  });
});

interface Refusal {
  /** Short name for the policy. */
  id: string;
  apiGroup: string;
  resource: string;
  kind: string;
  apiVersion: string;
  /** The one object name refused. */
  name: string;
}

const SLICE_REFUSAL: Refusal = {
  id: 'slices',
  apiGroup: 'discovery.k8s.io',
  resource: 'endpointslices',
  kind: 'EndpointSlice',
  apiVersion: 'discovery.k8s.io/v1',
  name: 'taken-http',
};
const CARD_REFUSAL: Refusal = {
  id: 'cards',
  apiGroup: '',
  resource: 'configmaps',
  kind: 'ConfigMap',
  apiVersion: 'v1',
  name: 'cardless-agent-card',
};

/** A ValidatingAdmissionPolicy (and binding) refusing one object name in one namespace. */
function refusePolicy(namespace: string, r: Refusal): Record<string, unknown>[] {
  const name = `refuse-${r.id}-${namespace}`;
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [r.apiGroup],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: [r.resource],
            },
          ],
        },
        validations: [
          {
            expression: `object.metadata.name != '${r.name}'`,
            message: `${r.resource} named ${r.name} are refused by policy`,
          },
        ],
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name },
      spec: {
        policyName: name,
        validationActions: ['Deny'],
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
        },
      },
    },
  ];
}

/**
 * Whether the policy refuses the object now, by a server-side dry run. The API server's
 * admission plugin sees policies through its own informer, so one just applied (or deleted)
 * takes effect a moment later.
 */
async function refusedNow(r: Refusal): Promise<boolean> {
  const res = await cluster.kubectl(['create', '--dry-run=server', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: r.apiVersion,
      kind: r.kind,
      metadata: { name: r.name, namespace: ns },
      ...(r.kind === 'EndpointSlice' ? { addressType: 'IPv4', endpoints: [] } : { data: {} }),
    }),
  });
  return res.code !== 0 && /refused by policy/.test(res.stderr);
}

async function removePolicy(namespace: string, r: Refusal): Promise<void> {
  await cluster.kubectl([
    'delete',
    'validatingadmissionpolicybinding,validatingadmissionpolicy',
    `refuse-${r.id}-${namespace}`,
    '--ignore-not-found',
  ]);
}
