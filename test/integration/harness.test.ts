// The test harness itself: a shared control plane, netns pod hosts, minted ServiceAccount tokens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import * as k8s from '@kubernetes/client-node';
import { useCluster, type Cluster } from '../harness/cluster.js';
import { PodHost } from '../harness/podhost.js';

let cluster: Cluster;
before(async () => {
  cluster = await useCluster();
});

function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function runNode(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('harness', () => {
  test('two test files share one control plane', async () => {
    // Each child test file records the cluster identity (kube-system UID) and writes a marker.
    const probe = join(import.meta.dirname, '..', 'harness', 'fixtures', 'shared-marker.ts');
    // NODE_TEST_CONTEXT would make the children think they run under this runner.
    const { NODE_TEST_CONTEXT: _ctx, ...parentEnv } = process.env;
    const env = { ...parentEnv, A2A_TEST_CLUSTER: process.env.A2A_TEST_CLUSTER ?? '' };
    if (!env.A2A_TEST_CLUSTER) {
      // Run on its own: describe this process's cluster to the children the way the runner does.
      env.A2A_TEST_CLUSTER = JSON.stringify({
        kubeconfigPath: cluster.kubeconfigPath,
        server: cluster.server,
        caFile: cluster.caFile,
        version: cluster.version,
        existing: cluster.existing,
      });
    }
    const suffix = Math.random().toString(36).slice(2, 7);
    const a = await runNode(['--import', 'tsx', '--test', '--test-reporter=tap', probe], {
      ...env,
      MARKER: `a-${suffix}`,
    });
    const b = await runNode(['--import', 'tsx', '--test', '--test-reporter=tap', probe], {
      ...env,
      MARKER: `b-${suffix}`,
    });
    assert.equal(a.code, 0, a.stdout + a.stderr);
    assert.equal(b.code, 0, b.stdout + b.stderr);
    const uidA = /CLUSTER-UID (\S+)/.exec(a.stdout)?.[1];
    const uidB = /CLUSTER-UID (\S+)/.exec(b.stdout)?.[1];
    assert.ok(uidA && uidA !== 'undefined', a.stdout + a.stderr);
    assert.equal(uidA, uidB);
    const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
    for (const m of [`a-${suffix}`, `b-${suffix}`]) {
      const cm = await core.readNamespacedConfigMap({ name: `marker-${m}`, namespace: 'default' });
      assert.equal(cm.metadata?.name, `marker-${m}`);
    }
  });

  describe('pod hosts', () => {
    let host: PodHost;
    after(async () => host?.destroy());
    test('a netns pod host answers HTTP at its own address', async () => {
      host = PodHost.create();
      assert.match(host.ip, /^10\.244\.\d+\.\d+$/);
      const script = `require('http').createServer((q, s) => s.end('hello from ' + ${JSON.stringify(host.ip)})).listen(8080, ${JSON.stringify(host.ip)}, () => console.log('listening'))`;
      const proc = host.exec(
        process.execPath,
        ['-e', script],
        join(mkdtempSync(join(tmpdir(), 'a2a-pod-')), 'log'),
      );
      let res: { status: number; body: string } | undefined;
      for (let i = 0; i < 50 && !res; i++) {
        res = await httpGet(`http://${host.ip}:8080/`).catch(() => undefined);
        if (!res) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(res?.status, 200, proc.tail());
      assert.equal(res?.body, `hello from ${host.ip}`);
      // The server is bound to the pod address only: it is not reachable on the host's loopback.
      await assert.rejects(httpGet('http://127.0.0.1:8080/'));
    });
  });

  test('a minted ServiceAccount token is refused what its RBAC does not grant', async () => {
    const ns = await cluster.createNamespace('rbac');
    const core = cluster.kc.makeApiClient(k8s.CoreV1Api);
    const rbac = cluster.kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'reader' } } });
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'pod-reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
      },
    });
    const token = await cluster.mintToken(ns, 'reader');
    const kubeconfig = cluster.kubeconfigForToken(token);
    const who = await cluster.kubectl(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], {
      kubeconfig,
    });
    assert.equal(who.stdout, `system:serviceaccount:${ns}:reader`);
    const allowed = await cluster.kubectl(['get', 'pods', '-n', ns], { kubeconfig });
    assert.equal(allowed.code, 0, allowed.stderr);
    const denied = await cluster.kubectl(['get', 'secrets', '-n', ns], { kubeconfig });
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Forbidden.*cannot list resource "secrets"/);
    const deniedOtherNs = await cluster.kubectl(['get', 'pods', '-n', 'default'], { kubeconfig });
    assert.match(deniedOtherNs.stderr, /Forbidden/);
  });
});
