// Credentials never leak from the operator (issue 12, item 3). Real SDK agents in pods, the real
// operator process, three tokens:
//   tab       a token with a tab in it (grpc-js would refuse it and quote it whole in its error)
//   nonascii  a token with a non-ASCII byte (same for grpc-js; undici refuses it too)
//   echo      a valid token, sent to an agent that quotes the request's Authorization header
//             (and all other headers) in every error it answers, over JSON-RPC, REST and gRPC
// Verdicts: the first two are SecretInvalid (Stalled) and never leave the operator (their agents
// see no Authorization header); the echo agent gets its token and its answers are classified.
// Then, after several probe periods (every retry has had its chance to log), a distinctive part of
// every token is searched for in every operator log line, every object of the namespace but the
// Secrets (status, Events, ConfigMaps, Pods) and the metrics: 0 occurrences.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { agentManifest, apply, healthyAgentConfig, healthySpec } from '../harness/manifests.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { condition, getAgent, waitAgent, waitFor } from '../harness/wait.js';
import { log, sleep } from './support.js';

const TAG = 'credential-leak';
const PROBE = { periodSeconds: 3, timeoutSeconds: 2, failureThreshold: 2 };

/** Each token holds a distinctive ASCII part: any quote of the token, whole or cut, contains it. */
const TOKENS = {
  tab: { marker: 'TABCANARY7f3a9c', value: 'TABCANARY7f3a9c\tsecond-half-of-the-token' },
  nonascii: { marker: 'NONASCIICANARY5e1d', value: 'NONASCIICANARY5e1d-\u00e9t\u00e9-rest-of-the-token' },
  echo: { marker: 'ECHOCANARY0b8e42', value: 'ECHOCANARY0b8e42-valid-visible-ascii-token' },
} as const;
type Name = keyof typeof TOKENS;
const NAMES = Object.keys(TOKENS) as Name[];

let cluster: Cluster;
let ns: string;
let operator: OperatorProcess;
const pods = new Map<Name, AgentPod>();

function secret(name: Name): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${name}-token`, namespace: ns, labels: { 'a2a.dev/credential': 'true' } },
    // data (base64 of the UTF-8 bytes), so the tab and the non-ASCII byte reach the Secret as they are.
    data: { token: Buffer.from(TOKENS[name].value, 'utf8').toString('base64') },
  };
}

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('credleak');
  for (const name of NAMES) {
    const config = healthyAgentConfig(`${name}.${ns}.svc`, name === 'echo' ? { echoHeaders: true } : {});
    pods.set(
      name,
      await startAgentPod(cluster, { namespace: ns, name: `${name}-0`, labels: { app: name }, config }),
    );
  }
  await apply(
    cluster,
    ...NAMES.map(secret),
    ...NAMES.map((name) =>
      agentManifest(ns, name, {
        ...healthySpec(name, PROBE),
        auth: { bearerToken: { secretKeyRef: { name: `${name}-token`, key: 'token' } } },
      }),
    ),
  );
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
});

after(async () => {
  await operator?.stop();
  await Promise.all([...pods.values()].map((p) => p.destroy()));
});

describe('credentials never leak from the operator', () => {
  for (const name of ['tab', 'nonascii'] as const) {
    test(`${name}: SecretInvalid, Stalled, the message names the position and not the value`, async () => {
      const a = await waitAgent(
        cluster,
        ns,
        name,
        'SecretInvalid',
        (x) => condition(x, 'Stalled')?.status === 'True',
      );
      const stalled = condition(a, 'Stalled')!;
      assert.equal(stalled.reason, 'SecretInvalid');
      assert.equal(condition(a, 'Ready')?.reason, 'SecretInvalid');
      assert.match(
        stalled.message,
        /Secret .*\/[a-z]+-token key "token" \(spec\.auth\.bearerToken\): the bearer token contains/,
      );
      assert.match(
        stalled.message,
        name === 'tab' ? /white space at position 16/ : /a non-ASCII character at position 20/,
      );
      assert.equal(stalled.message.includes(TOKENS[name].marker), false);
    });
  }

  test('echo: the token is sent, the echoed answers are classified without it', async () => {
    const a = await waitAgent(
      cluster,
      ns,
      'echo',
      'every interface has a verdict',
      (x) =>
        (x.status?.interfaces ?? []).length === 3 &&
        x.status!.interfaces!.every((i) => i.state !== 'Pending'),
    );
    for (const i of a.status!.interfaces!) {
      assert.equal(i.state, 'Inconclusive', `${i.protocolBinding}: ${i.message}`);
      assert.match(
        i.message,
        /\[redacted\]/,
        `${i.protocolBinding} quotes the echo, token cut out: ${i.message}`,
      );
    }
    const seen = (await pods.get('echo')!.state()).authorizations;
    assert.ok(seen.length >= 3, `the echo agent received the token (${seen.length} times)`);
    assert.ok(seen.every((v) => v === `Bearer ${TOKENS.echo.value}`));
  });

  test('no Authorization header reaches the agents whose token was refused', async () => {
    for (const name of ['tab', 'nonascii'] as const) {
      // Stalled is written before that reconcile's probes return on a busy machine: wait for one.
      const st = await waitFor(
        `${name}: its agent was probed (without credentials)`,
        async () => {
          const s = await pods.get(name)!.state();
          return s.seen.length > 0 ? s : undefined;
        },
        30_000,
      );
      assert.deepEqual(st.authorizations, [], `${name}: no Authorization header`);
    }
  });

  test('no token byte in any log line, status, Event, object or metric', async () => {
    // Several probe periods: every retry of every agent has had its chance to log.
    await sleep(4 * PROBE.periodSeconds * 1000);
    const dump = await cluster.kubectl([
      'get',
      'a2aagents,configmaps,pods,services,endpointslices,events.events.k8s.io,events',
      '-n',
      ns,
      '-o',
      'json',
    ]);
    assert.equal(dump.code, 0, dump.stderr);
    const operatorLog = readFileSync(operator.logFile, 'utf8');
    const sources: [string, string][] = [
      ['operator log', operatorLog],
      ['namespace objects (Secrets excepted)', dump.stdout],
      ['metrics', await operator.metrics()],
    ];
    const logLines = operatorLog.split('\n').filter((l) => l.trim());
    log(TAG, `${logLines.length} operator log lines, ${dump.stdout.length} bytes of objects searched`);
    assert.ok(logLines.length > 10, 'the operator logged (debug level)');
    for (const a of NAMES) {
      const status = JSON.stringify((await getAgent(cluster, ns, a)).status);
      assert.ok(status.length > 100, `${a} has a status`);
    }
    for (const [where, text] of sources) {
      for (const name of NAMES) {
        const { marker, value } = TOKENS[name];
        const count = text.split(marker).length - 1;
        assert.equal(count, 0, `${name} token marker found ${count} times in the ${where}`);
        assert.equal(text.includes(value), false);
      }
    }
  });
});
