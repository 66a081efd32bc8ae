/**
 * The chart installed for real (issue 14 item 3): `helm install` of charts/a2a-operator with the
 * image just built from the Dockerfile, with the chart's default RBAC mode (a ClusterRole bound
 * to the chart's ServiceAccount, watching one namespace). Two replicas run non-root on a
 * read-only root filesystem and become Ready through their own /healthz and /readyz probes;
 * exactly one holds the Lease; the operator judges real agent pods with nothing but its
 * ServiceAccount's RBAC; the chart's card Service answers a pod through its ClusterIP with the
 * advertised card; `helm uninstall` removes every object the chart renders.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import * as k8s from '@kubernetes/client-node';
import { condition, waitFor, type AgentView } from '../harness/wait.js';
import { helm, renderChart, type Manifest } from '../harness/helm.js';
import {
  a2aAgent,
  agentDeployment,
  agentImage,
  applyObjects,
  getAgent,
  healthyPodConfig,
  waitPodsRunning,
} from './agents.js';
import { createPodNamespace, deleteNamespace, useRealCluster, type E2ECluster } from './fixture.js';
import { installOperator, type InstalledOperator } from './operator.js';

const log = (line: string) => process.stderr.write(`[e2e:chart] ${line}\n`);
const TIMEOUT = 180_000;
const AGENT = 'chart-agent';

let cluster: E2ECluster;
let core: k8s.CoreV1Api;
let ns: string;
let op: InstalledOperator | undefined;
let agentImageRef: string;

async function kubectlOk(args: string[], input?: string): Promise<string> {
  const r = await cluster.kubectl(args, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Runs `node -e script` in a pod of the agent image in `ns` and returns its stdout (kubectl logs). */
async function runNodePod(name: string, script: string): Promise<string> {
  await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532 },
        containers: [
          {
            name: 'client',
            image: agentImageRef,
            imagePullPolicy: 'IfNotPresent',
            command: ['node', '-e', script],
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ['ALL'] },
            },
          },
        ],
      },
    },
  });
  const phase = await waitFor(
    `pod ${name} to finish`,
    async () => {
      const p = (await core.readNamespacedPod({ name, namespace: ns })).status?.phase;
      return p === 'Succeeded' || p === 'Failed' ? p : undefined;
    },
    TIMEOUT,
    500,
  );
  const out = await kubectlOk(['-n', ns, 'logs', name]);
  assert.equal(phase, 'Succeeded', out);
  return out;
}

/** The objects of `manifests` that still exist (kubectl get -f, every kind at once). */
async function existing(manifests: Manifest[], namespace: string): Promise<string[]> {
  const r = await cluster.kubectl(
    ['get', '-n', namespace, '--ignore-not-found', '-o', 'name', '-f', '-'],
    manifests.map((m) => stringify(m)).join('---\n'),
  );
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

before(async () => {
  cluster = await useRealCluster();
  core = cluster.kc.makeApiClient(k8s.CoreV1Api);
  ns = await createPodNamespace(cluster, 'e2e-chart');
  agentImageRef = await agentImage(cluster, log);
  // The chart's default RBAC mode (cluster-scoped ClusterRole/Binding), so uninstall is checked
  // on cluster-scoped objects too; the other e2e files use the namespaced mode.
  op = await installOperator(cluster, {
    watchNamespaces: [ns],
    replicas: 2,
    set: ['rbac.namespaced=false'],
    log,
  });
});

after(async () => {
  await op?.uninstall();
  if (ns) await deleteNamespace(cluster, ns);
});

describe('the chart installed for real', () => {
  test('two replicas of the image just built run as uid 65532 on a read-only root filesystem, Ready through /healthz and /readyz', async () => {
    const pods = (await op!.pods()).filter((p) => !p.metadata?.deletionTimestamp);
    assert.equal(pods.length, 2);
    for (const pod of pods) {
      const name = pod.metadata!.name!;
      const c = pod.spec!.containers[0]!;
      assert.equal(pod.status?.phase, 'Running', name);
      assert.equal(pod.spec?.nodeName, cluster.nodeName);
      assert.equal(c.image, op!.imageRef, 'the image the test just built, by its content-hash tag');
      assert.equal(c.imagePullPolicy, 'IfNotPresent');
      assert.equal(pod.status?.containerStatuses?.[0]?.image?.endsWith(op!.imageRef.split('/').pop()!), true);
      assert.equal(pod.spec?.securityContext?.runAsNonRoot, true);
      assert.equal(pod.spec?.securityContext?.runAsUser, 65532);
      assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
      assert.equal(c.securityContext?.allowPrivilegeEscalation, false);
      assert.deepEqual(c.securityContext?.capabilities?.drop, ['ALL']);
      assert.equal(c.livenessProbe?.httpGet?.path, '/healthz');
      assert.equal(c.readinessProbe?.httpGet?.path, '/readyz');
      // Ready comes from the readiness probe alone (no readiness gates on the operator pods).
      assert.equal(pod.spec?.readinessGates, undefined);
      assert.equal(pod.status?.conditions?.find((x) => x.type === 'Ready')?.status, 'True', name);
      assert.equal(
        pod.status?.containerStatuses?.[0]?.restartCount,
        0,
        `${name} restarted:\n${await op!.logs()}`,
      );

      // What the kubelet asks, asked from the node: both endpoints answer 200.
      for (const path of ['/healthz', '/readyz']) {
        const res = await fetch(`http://${pod.status!.podIP}:8080${path}`, {
          signal: AbortSignal.timeout(10_000),
        });
        assert.equal(res.status, 200, `${name} ${path}: ${await res.text()}`);
      }

      // Inside the running container: the process is uid 65532 and / is read-only.
      const probe = await kubectlOk([
        '-n',
        op!.namespace,
        'exec',
        name,
        '-c',
        'operator',
        '--',
        'node',
        '-e',
        "let w='written';try{require('fs').writeFileSync('/app/x','')}catch(e){w=e.code}console.log(process.getuid(),process.getgid(),w)",
      ]);
      assert.equal(probe.trim(), '65532 65532 EROFS', name);
    }
    // The kubelet's own probe failures, if any (the start-up before the port listens): they show
    // it asks /readyz and held the pods not-Ready until it answered.
    const events = await kubectlOk([
      '-n',
      op!.namespace,
      'get',
      'events',
      '--field-selector',
      'reason=Unhealthy',
      '-o',
      'jsonpath={range .items[*]}{.count}x {.message}{"\\n"}{end}',
    ]);
    log(
      `kubelet probe failures before Ready: ${events.trim().split('\n').filter(Boolean).join('; ') || 'none'}`,
    );
    log(`operator pods ${pods.map((p) => p.metadata!.name).join(', ')} Ready, image ${op!.imageRef}`);
  });

  test('exactly one replica leads: the Lease names a live operator pod, and only that pod says it leads', async () => {
    const lease = await op!.lease();
    assert.ok(lease, 'the Lease exists');
    const holder = lease.spec?.holderIdentity;
    const pods = (await op!.pods())
      .filter((p) => !p.metadata?.deletionTimestamp)
      .map((p) => p.metadata!.name!);
    assert.ok(holder && pods.includes(holder), `holder ${holder} is one of ${pods.join(', ')}`);
    log(
      `Lease ${op!.namespace}/${op!.leaseName}: holder ${holder}, leaseDurationSeconds ${lease.spec?.leaseDurationSeconds}`,
    );
    const leading: string[] = [];
    for (const pod of pods) {
      const logs = await kubectlOk(['-n', op!.namespace, 'logs', pod]);
      if (logs.includes('became leader')) leading.push(pod);
    }
    assert.deepEqual(leading, [holder]);
  });

  test('the operator judges real agent pods with only its ServiceAccount’s RBAC', async () => {
    const sa = `system:serviceaccount:${op!.namespace}:${op!.deployment}`;
    for (const pod of await op!.pods()) assert.equal(pod.spec?.serviceAccountName, op!.deployment);
    // What the ServiceAccount may and may not do (the API server's RBAC authorizer answers).
    const can = async (verb: string, resource: string, subresource?: string) =>
      (
        await cluster.kubectl([
          'auth',
          'can-i',
          verb,
          resource,
          ...(subresource ? ['--subresource', subresource] : []),
          '-n',
          ns,
          '--as',
          sa,
        ])
      ).stdout.trim();
    assert.equal(await can('watch', 'a2aagents.a2a.dev'), 'yes');
    assert.equal(await can('patch', 'a2aagents.a2a.dev', 'status'), 'yes');
    assert.equal(await can('patch', 'pods', 'status'), 'yes');
    assert.equal(await can('patch', 'a2aagents.a2a.dev'), 'no', 'no write to the spec');
    assert.equal(await can('create', 'pods'), 'no');
    assert.equal(await can('list', 'secrets'), 'no', 'Secrets: get only, never list');
    assert.equal(await can('create', 'deployments.apps'), 'no');

    await applyObjects(
      cluster,
      agentDeployment({
        namespace: ns,
        name: AGENT,
        image: agentImageRef,
        config: healthyPodConfig(AGENT, ns),
      }),
      a2aAgent({ namespace: ns, name: AGENT }),
    );
    await waitPodsRunning(cluster, ns, AGENT, 1);
    let seen: AgentView | undefined;
    const agent = await waitFor(
      `${ns}/${AGENT} Ready=True for its generation`,
      async () => {
        const a = (seen = await getAgent(cluster, ns, AGENT));
        return a.status?.observedGeneration === a.metadata.generation &&
          condition(a, 'Ready')?.status === 'True'
          ? a
          : undefined;
      },
      TIMEOUT,
      500,
    ).catch(async (err: unknown) =>
      assert.fail(`${String(err)}\nlast status: ${JSON.stringify(seen?.status)}\n${await op!.logs()}`),
    );
    const verified = (agent.status?.interfaces ?? []).filter((i) => i.state === 'Verified');
    assert.equal(verified.length, 3, JSON.stringify(agent.status?.interfaces));
    // and it wrote with its own identity: no Forbidden in its logs
    assert.doesNotMatch(await op!.logs(), /forbidden/i);
  });

  test('the card Service answers a pod through its ClusterIP with the advertised card', async () => {
    const svc = await core.readNamespacedService({
      name: `${op!.deployment}-cards`,
      namespace: op!.namespace,
    });
    const ip = svc.spec?.clusterIP;
    assert.ok(ip && ip !== 'None');
    assert.equal(svc.spec?.ports?.[0]?.port, 80);
    const url = `http://${ip}:80/cards/${ns}/${AGENT}`;
    const script = `fetch(${JSON.stringify(url)}).then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() }))).catch((e) => { console.error(String(e), e.cause); process.exit(1); })`;
    const out = JSON.parse((await runNodePod('card-client', script)).trim()) as {
      status: number;
      body: string;
    };
    assert.equal(out.status, 200, out.body);
    const served = JSON.parse(out.body) as unknown;

    const cm = await core.readNamespacedConfigMap({ name: `${AGENT}-agent-card`, namespace: ns });
    assert.deepEqual(served, JSON.parse(cm.data!['agent-card.json']!), 'the card the operator published');
    const advertised = ((await getAgent(cluster, ns, AGENT)).status?.interfaces ?? [])
      .filter((i) => i.advertised)
      .map((i) => i.url)
      .sort();
    assert.equal(advertised.length, 3);
    for (const u of advertised) assert.ok(out.body.includes(JSON.stringify(u)), `the served card names ${u}`);
    log(`GET ${url} from a pod: 200, ${advertised.length} interfaces`);
  });

  test('helm uninstall removes every object the chart renders (CRDs stay: helm never deletes crds/)', async () => {
    const rendered = await renderChart(op!.values, { release: op!.release, namespace: op!.namespace });
    const kinds = [...new Set(rendered.map((m) => m.kind))].sort();
    log(`the chart renders ${rendered.length} objects: ${kinds.join(', ')}`);
    // Both scopes are covered: the release namespace, the watched one (none here in the default
    // RBAC mode) and cluster-scoped RBAC.
    assert.ok(
      kinds.includes('ClusterRole') && kinds.includes('ClusterRoleBinding') && kinds.includes('Deployment'),
    );
    // The check sees them while installed (so it can fail).
    assert.equal((await existing(rendered, op!.namespace)).length, rendered.length);

    const r = await helm(
      ['uninstall', op!.release, '--namespace', op!.namespace, '--wait', '--timeout', '2m'],
      {
        kubeconfig: cluster.kubeconfigPath,
        timeoutMs: 180_000,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    await waitFor(
      'every rendered object to be gone',
      async () => (await existing(rendered, op!.namespace)).length === 0,
      TIMEOUT,
      1000,
    ).catch(async (err: unknown) =>
      assert.fail(`${String(err)}: ${(await existing(rendered, op!.namespace)).join(', ')}`),
    );
    // What the Deployment made (ReplicaSets, pods) goes with it (the garbage collector).
    await waitFor(
      'the operator pods and ReplicaSets to be gone',
      async () =>
        (
          await kubectlOk(['-n', op!.namespace, 'get', 'pods,replicasets', '-l', op!.selector, '-o', 'name'])
        ).trim() === '',
      TIMEOUT,
      1000,
    );
    // helm's own record of the release (Secrets sh.helm.release.v1.<release>.vN).
    assert.equal(
      (
        await kubectlOk([
          '-n',
          op!.namespace,
          'get',
          'secrets',
          '-l',
          `owner=helm,name=${op!.release}`,
          '-o',
          'name',
        ])
      ).trim(),
      '',
    );
    // By design, not the release's: the CRD (helm installs crds/ once and never deletes them),
    // and the Lease the operator created at runtime, which goes with the release namespace.
    await kubectlOk(['get', 'crd', 'a2aagents.a2a.dev']);
  });
});
