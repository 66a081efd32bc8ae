// The seed scenario from a real client's side: the official SDK client, pointed at the agent's
// own card, honours preferredTransport GRPC at the JSON-RPC url and fails; pointed at the
// operator's card endpoint it picks the verified JSON-RPC interface and completes a real
// sendMessage against the agent pod.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentConfig } from '../agents/agent-config.js';
import { createTestCa, type TestCa } from '../agents/test-certs.js';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { startAgentPod, type AgentPod } from '../harness/agent-pod.js';
import { startOperator, type OperatorProcess } from '../harness/operator.js';
import { agentManifest, apply, seedAgentConfig } from '../harness/manifests.js';
import { condition, waitAgent } from '../harness/wait.js';
import { REPO_ROOT } from '../harness/binaries.js';

const HOSTS = '/etc/hosts';
// A name and a marker of this process's own: another test run on the same machine (a second
// checkout's suite) adds and removes its own /etc/hosts line without touching this one.
const HOST = `agent-${process.pid}.internal`;
const MARK = `# a2a-operator test (routing-sdk-client ${process.pid})`;
let cluster: Cluster;
let ns: string;
let operator: OperatorProcess;
let ca: TestCa;
let caFile: string;
let pod: AgentPod;

function removeHostsEntry(): void {
  const lines = readFileSync(HOSTS, 'utf8').split('\n');
  writeFileSync(HOSTS, lines.filter((l) => !l.includes(MARK)).join('\n'));
}

function sdkClient(cardUrl: string): Promise<{ ok: boolean; error?: string; result?: string }> {
  return new Promise((resolve, reject) => {
    const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
    execFile(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'test/harness/fixtures/sdk-client.ts'), cardUrl],
      { env: { ...env, NODE_EXTRA_CA_CERTS: caFile, A2A_CA_FILE: caFile }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const line = stdout.trim().split('\n').at(-1) ?? '';
        try {
          resolve(JSON.parse(line) as { ok: boolean; error?: string });
        } catch {
          reject(new Error(`sdk client printed no result: ${String(err)}\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

before(async () => {
  cluster = await useCluster();
  ns = await cluster.createNamespace('sdkclient');
  ca = createTestCa();
  caFile = join(mkdtempSync(join(tmpdir(), 'a2a-sdkclient-')), 'ca.crt');
  writeFileSync(caFile, ca.caCert);
  const cert = ca.issue([HOST]);
  pod = await startAgentPod(cluster, {
    namespace: ns,
    name: 'seed-0',
    labels: { app: 'seed' },
    // The seed card, with its URLs naming this run's host.
    config: JSON.parse(
      JSON.stringify(seedAgentConfig(cert)).replaceAll('agent.internal', HOST),
    ) as AgentConfig,
  });
  // The client resolves the card's host like any client would: here, to the pod.
  removeHostsEntry();
  writeFileSync(HOSTS, `${readFileSync(HOSTS, 'utf8').replace(/\n?$/, '\n')}${pod.ip} ${HOST} ${MARK}\n`);
  await apply(
    cluster,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'seed-ca', namespace: ns },
      data: { 'ca.crt': ca.caCert },
    },
    agentManifest(ns, 'seed', {
      selector: { matchLabels: { app: 'seed' } },
      ports: [
        { name: 'https', port: 8443 },
        { name: 'grpc', port: 9443 },
      ],
      card: { port: 'https', scheme: 'HTTPS' },
      hosts: [HOST],
      tls: { caBundle: { configMapKeyRef: { name: 'seed-ca', key: 'ca.crt' } } },
      probe: { periodSeconds: 10, timeoutSeconds: 2 },
    }),
  );
  operator = await startOperator({ kubeconfig: cluster.kubeconfigPath, namespaces: [ns] });
  await operator.waitReady();
  await waitAgent(
    cluster,
    ns,
    'seed',
    'settled with JSON-RPC advertised',
    (a) =>
      condition(a, 'Stalled')?.reason === 'FailureConfirmed' &&
      a.status?.advertised?.preferred?.protocolBinding === 'JSONRPC',
    90_000,
  );
});

after(async () => {
  removeHostsEntry();
  await operator?.stop();
  await pod?.destroy();
  ca?.dispose();
});

describe('the official SDK client', () => {
  test("pointed at the agent's own card, it honours preferredTransport GRPC and fails", async () => {
    const r = await sdkClient(`https://${HOST}:8443/.well-known/agent-card.json`);
    assert.equal(r.ok, false, JSON.stringify(r));
    process.stderr.write(`[sdk-client] own card: ${r.error}\n`);
  });

  test("pointed at the operator's card endpoint, it completes a real sendMessage", async () => {
    const r = await sdkClient(`${operator.cardsUrl}/cards/${ns}/seed`);
    assert.equal(r.ok, true, JSON.stringify(r));
    const state = await pod.state();
    assert.ok(JSON.stringify(state).length > 0);
  });
});
