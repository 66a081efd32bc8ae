/**
 * The seed scenario (shared/seeds/000) on real pods: a Deployment of two agents from the agent
 * image serving a v0.3 card whose preferredTransport GRPC names the JSON-RPC url, with a gRPC
 * server on :9443 that never registers the A2A service, over TLS with a private CA. The operator
 * runs from its image, installed by the chart. What test/integration/reconcile-seed.test.ts
 * checks on simulated pods, here with the kubelet, the EndpointSlice consumers (kube-proxy) and
 * the chart's card Service. Once per SDK runtime of the agent (`seed`: @a2a-js/sdk, `seed-go`:
 * the official a2a-go), one expectation table: the verdicts must not depend on the runtime.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { request } from 'node:https';
import { createTestCa, type TestCa } from '../agents/test-certs.js';
import { seedAgentConfig, type seedCard } from '../harness/manifests.js';
import { condition, waitFor, type AgentView } from '../harness/wait.js';
import {
  a2aAgent,
  agentDeployment,
  agentImage,
  applyObjects,
  getJson,
  waitAgent,
  waitPodsRunning,
  type PodView,
} from './agents.js';
import { createPodNamespace, deleteNamespace, useRealCluster, type E2ECluster } from './fixture.js';
import { assertGitOpsHealth } from './health.js';
import { installOperator, type InstalledOperator } from './operator.js';

const log = (line: string) => process.stderr.write(`[e2e:seed] ${line}\n`);

let cluster: E2ECluster;
let ns: string;
let operator: InstalledOperator | undefined;
let ca: TestCa | undefined;
const RUNTIMES = [
  { runtime: 'js', name: 'seed' },
  { runtime: 'go', name: 'seed-go' },
] as const;
const pods: Record<string, PodView[]> = {};
const settled: Record<string, AgentView> = {};

interface Slice {
  metadata: { name: string; ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
  ports?: { name: string; port: number }[];
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean }; targetRef?: { name: string } }[];
}

before(async () => {
  const started = Date.now();
  cluster = await useRealCluster();
  ns = await createPodNamespace(cluster, 'e2e-seed');
  const image = await agentImage(cluster, log);
  operator = await installOperator(cluster, { watchNamespaces: [ns], replicas: 1, log });

  ca = createTestCa();
  const cert = ca.issue(['agent.internal']);
  await applyObjects(cluster, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'seed-ca', namespace: ns },
    data: { 'ca.crt': ca.caCert },
  });
  for (const { runtime, name } of RUNTIMES) {
    await applyObjects(
      cluster,
      agentDeployment({
        namespace: ns,
        name,
        image,
        runtime,
        replicas: 2,
        config: seedAgentConfig(cert),
        ports: [
          { name: 'https', containerPort: 8443 },
          { name: 'grpc', containerPort: 9443 },
        ],
      }),
      a2aAgent({
        namespace: ns,
        name,
        ports: [
          { name: 'https', port: 8443, targetPort: 'https' },
          { name: 'grpc', port: 9443, targetPort: 'grpc' },
        ],
        cardPort: 'https',
        scheme: 'HTTPS',
        probe: { periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 2 },
        extra: {
          hosts: ['agent.internal'],
          tls: { caBundle: { configMapKeyRef: { name: 'seed-ca', key: 'ca.crt' } } },
        },
      }),
    );
  }
  for (const { runtime, name } of RUNTIMES) {
    pods[name] = await waitPodsRunning(cluster, ns, name, 2);
    log(
      `[${runtime}] 2 agent pods running: ${pods[name].map((p) => `${p.metadata.name}=${p.status.podIP}`).join(' ')}`,
    );
    // the final verdicts themselves (a card fetch that times out on a loaded machine stalls the
    // agent for a period first, and that is not the state under test)
    settled[name] = await waitAgent(
      cluster,
      ns,
      name,
      'failures confirmed',
      (a) =>
        condition(a, 'Stalled')?.reason === 'FailureConfirmed' &&
        condition(a, 'CardValid')?.reason === 'PreferredTransportMismatch' &&
        (a.status?.interfaces ?? []).map((x) => `${x.state} ${x.verifiedPods}`).join() ===
          'WrongBinding 0/2,Verified 2/2,Unimplemented 0/2',
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await operator?.logs(60)}`);
    });
  }
  log(`settled ${((Date.now() - started) / 1000).toFixed(1)}s after the start of the file`);
});

after(async () => {
  if (ns) await deleteNamespace(cluster, ns);
  await operator?.uninstall();
  ca?.dispose();
});

function sliceIps(slice: Slice | undefined): string[] {
  return (slice?.endpoints ?? []).map((e) => e.addresses[0]!).sort();
}

for (const { runtime, name } of RUNTIMES)
  describe(`[${runtime}] seed scenario on real pods`, () => {
    test('status names each interface truthfully, for the Deployment’s own pods', () => {
      assert.equal(settled[name]!.status?.card?.shape, 'v0.3');
      assert.deepEqual(
        settled[name]!.status?.interfaces?.map(
          (i) => `${i.protocolBinding}@${i.url}=${i.state} ${i.verifiedPods} advertised=${i.advertised}`,
        ),
        [
          'GRPC@https://agent.internal:8443=WrongBinding 0/2 advertised=false',
          'JSONRPC@https://agent.internal:8443=Verified 2/2 advertised=true',
          'GRPC@https://agent.internal:9443=Unimplemented 0/2 advertised=false',
        ],
      );
      assert.match(settled[name]!.status!.interfaces![2]!.message, /UNIMPLEMENTED/);
      assert.equal(condition(settled[name]!, 'Ready')?.status, 'False');
      assert.equal(condition(settled[name]!, 'Ready')?.reason, 'PreferredTransportMismatch');
      assert.equal(condition(settled[name]!, 'CardValid')?.reason, 'PreferredTransportMismatch');
      assert.equal(condition(settled[name]!, 'InterfacesVerified')?.reason, 'WrongBinding');
      assert.equal(condition(settled[name]!, 'Stalled')?.reason, 'FailureConfirmed');
      assert.equal(condition(settled[name]!, 'Reconciling')?.status, 'False');
      assert.equal(settled[name]!.status?.verified, '1/3');
      assert.equal(settled[name]!.status?.card?.podsConsistent, '2/2');
      assert.equal(settled[name]!.status?.advertised?.preferred?.protocolBinding, 'JSONRPC');
      const listed = (settled[name]!.status as { pods?: { name: string; ready: boolean }[] }).pods ?? [];
      assert.deepEqual(
        listed.map((p) => `${p.name} ready=${p.ready}`).sort(),
        pods[name]!.map((p) => `${p.metadata.name} ready=true`).sort(),
      );
    });

    test('kubectl get a2aagents -o wide shows READY, REASON, VERIFIED, PREFERRED, PODS and the message', async () => {
      const r = await cluster.kubectl(['get', 'a2aagents', '-n', ns, '-o', 'wide']);
      assert.equal(r.code, 0, r.stderr);
      const [header, ...rows] = r.stdout.trimEnd().split('\n');
      log(`kubectl get a2aagents -o wide:\n${r.stdout.trimEnd()}`);
      assert.equal(rows.length, RUNTIMES.length);
      const row = rows.find((l) => l.startsWith(`${name} `));
      assert.deepEqual(header!.trim().split(/\s+/), [
        'NAME',
        'READY',
        'REASON',
        'VERIFIED',
        'PREFERRED',
        'PODS',
        'AGE',
        'MESSAGE',
      ]);
      assert.match(row!, /^\S+\s+False\s+PreferredTransportMismatch\s+1\/3\s+JSONRPC\s+2\/2\s+\S+\s+\S/);
      const message = condition(await getJson<AgentView>(cluster, ['a2a', name, '-n', ns]), 'Ready')!.message;
      assert.ok(row!.trimEnd().endsWith(message), `MESSAGE column is the Ready message: ${message}`);
    });

    test('Events were recorded on the A2AAgent for the transitions, by the operator', async () => {
      const ev = await getJson<{
        items: { reason: string; type: string; reportingComponent?: string; reportingInstance?: string }[];
      }>(cluster, [
        'events',
        '-n',
        ns,
        '--field-selector',
        `involvedObject.kind=A2AAgent,involvedObject.name=${name}`,
      ]);
      const reasons = new Set(ev.items.map((e) => e.reason));
      for (const r of [
        'PreferredTransportMismatch',
        'WrongBinding',
        'InterfaceUnimplemented',
        'InterfaceVerified',
      ])
        assert.ok(reasons.has(r), `missing event ${r}; have ${[...reasons].join(', ')}`);
      assert.equal(ev.items.find((e) => e.reason === 'InterfaceUnimplemented')?.type, 'Warning');
      assert.equal(ev.items.find((e) => e.reason === 'InterfaceVerified')?.type, 'Normal');
      // by the operator running in its pod (the Lease identity is the pod name)
      for (const e of ev.items) {
        assert.equal(e.reportingComponent, 'a2a.dev/operator');
        assert.ok(e.reportingInstance?.startsWith(`${operator!.deployment}-`), e.reportingInstance);
      }
      const describe = await cluster.kubectl(['describe', 'a2a', name, '-n', ns]);
      assert.match(describe.stdout, /Warning\s+InterfaceUnimplemented/);
    });

    test('kstatus, the Flux expressions and the Argo CD check fail the agent (Stalled: FailureConfirmed)', async () => {
      const obj = await getJson<AgentView>(cluster, ['a2a', name, '-n', ns]);
      await assertGitOpsHealth(obj, 'Degraded');
    });

    test('routing: the https slice holds both pods (ready), the grpc slice none; the card lists JSON-RPC only', async () => {
      const slices = await getJson<{ items: Slice[] }>(cluster, [
        'endpointslices',
        '-n',
        ns,
        '-l',
        `kubernetes.io/service-name=${name}`,
      ]);
      const byName = Object.fromEntries(slices.items.map((s) => [s.metadata.name, s]));
      assert.deepEqual(Object.keys(byName).sort(), [`${name}-grpc`, `${name}-https`]);
      const ips = pods[name]!.map((p) => p.status.podIP!).sort();
      assert.deepEqual(sliceIps(byName[`${name}-https`]), ips);
      assert.deepEqual(sliceIps(byName[`${name}-grpc`]), []);
      // named targetPorts resolved to the pods' containerPorts
      // (appProtocol comes from the card's declared bindings on the port, GRPC@8443 included: not pinned here)
      assert.deepEqual(
        byName[`${name}-https`]!.ports?.map((p) => `${p.name}:${p.port}`),
        ['https:8443'],
      );
      assert.deepEqual(
        byName[`${name}-grpc`]!.ports?.map((p) => `${p.name}:${p.port}`),
        ['grpc:9443'],
      );
      for (const e of byName[`${name}-https`]!.endpoints!) {
        assert.equal(e.conditions?.ready, true);
        assert.ok(pods[name]!.some((p) => p.metadata.name === e.targetRef?.name));
      }

      const cm = await getJson<{ data: Record<string, string> }>(cluster, [
        'configmap',
        `${name}-agent-card`,
        '-n',
        ns,
      ]);
      const card = JSON.parse(cm.data['agent-card.json']!) as typeof seedCard;
      assert.equal(card.url, 'https://agent.internal:8443');
      assert.equal(card.preferredTransport, 'JSONRPC');
      assert.deepEqual(card.additionalInterfaces, [
        { url: 'https://agent.internal:8443', transport: 'JSONRPC' },
      ]);

      // the chart's card Service, through its ClusterIP (kube-proxy on this node)
      const svc = await getJson<{ spec: { clusterIP: string; ports: { port: number }[] } }>(cluster, [
        'service',
        `${operator!.deployment}-cards`,
        '-n',
        operator!.namespace,
      ]);
      const served = await waitFor(
        'the card from the operator’s card Service',
        async () => {
          const r = await fetch(
            `http://${svc.spec.clusterIP}:${svc.spec.ports[0]!.port}/cards/${ns}/${name}`,
            {
              signal: AbortSignal.timeout(5000),
            },
          );
          return r.status === 200 ? r.json() : undefined;
        },
        60_000,
        1000,
      );
      assert.deepEqual(served, card);
    });

    test('through the managed Service’s ClusterIP: :8443 reaches an agent (TLS, SNI agent.internal), :9443 has no endpoint', async () => {
      const svc = await getJson<{ spec: { clusterIP: string } }>(cluster, ['service', name, '-n', ns]);
      const ip = svc.spec.clusterIP;
      const body = await waitFor(
        `the card over https://${ip}:8443`,
        () =>
          new Promise<string | undefined>((resolve) => {
            const req = request(
              {
                host: ip,
                port: 8443,
                path: '/.well-known/agent-card.json',
                servername: 'agent.internal',
                ca: ca!.caCert,
                timeout: 5000,
              },
              (res) => {
                let text = '';
                res.on('data', (c: Buffer) => (text += c.toString()));
                res.on('end', () => resolve(res.statusCode === 200 ? text : undefined));
              },
            );
            req.on('error', () => resolve(undefined));
            req.on('timeout', () => req.destroy());
            req.end();
          }),
        60_000,
        1000,
      );
      assert.equal((JSON.parse(body) as { name: string }).name, 'seed-agent');
      // kube-proxy rejects a port without endpoints: the unregistered gRPC server is never reached
      const outcome = await new Promise<string>((resolve) => {
        const s = connect({
          host: ip,
          port: 9443,
          servername: 'agent.internal',
          ca: ca!.caCert,
          timeout: 5000,
        });
        s.on('secureConnect', () => {
          s.destroy();
          resolve('connected');
        });
        s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? String(err)));
        s.on('timeout', () => {
          s.destroy();
          resolve('timeout');
        });
      });
      assert.notEqual(outcome, 'connected');
      log(`[${runtime}] ClusterIP ${ip}:9443 -> ${outcome}`);
    });
  });
