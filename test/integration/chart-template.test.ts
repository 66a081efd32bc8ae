/**
 * The Helm chart rendered by the real helm (built from test/helm): `helm lint` and
 * `helm template` across value combinations, parsed and checked structurally, and the pod
 * template admitted by the API server's PodSecurity admission at the `restricted` level.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../harness/binaries.js';
import { useCluster } from '../harness/cluster.js';
import { CHART_DIR, find, helm, one, renderChart, type Manifest, type PolicyRule } from '../harness/helm.js';

/** What the operator calls, per resource (src/operator, src/controller, src/kube). */
const AGENT_RULES: PolicyRule[] = [
  { apiGroups: ['a2a.dev'], resources: ['a2aagents'], verbs: ['list', 'watch'] },
  { apiGroups: ['a2a.dev'], resources: ['a2aagents/status'], verbs: ['patch'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
  { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
  {
    apiGroups: ['discovery.k8s.io'],
    resources: ['endpointslices'],
    verbs: ['list', 'watch', 'create', 'patch', 'delete'],
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
  },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

const LEASE_RULES: PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  {
    apiGroups: ['coordination.k8s.io'],
    resources: ['leases'],
    resourceNames: ['a2a-operator'],
    verbs: ['get', 'update'],
  },
];

interface Container {
  name: string;
  image: string;
  args: string[];
  env: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string }[];
}

interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: {
    serviceAccountName: string;
    securityContext: Record<string, unknown>;
    containers: Container[];
    topologySpreadConstraints?: {
      topologyKey: string;
      labelSelector: { matchLabels: Record<string, string> };
    }[];
    volumes: { name: string; emptyDir?: unknown }[];
  };
}

function deployment(ms: Manifest[]): {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: PodTemplate;
} {
  return one(ms, 'Deployment').spec as never;
}

function container(ms: Manifest[]): Container {
  return deployment(ms).template.spec.containers[0]!;
}

function rules(m: Manifest): PolicyRule[] {
  return m.rules as PolicyRule[];
}

describe('helm lint', () => {
  for (const set of [
    [],
    ['rbac.namespaced=true', 'watchNamespaces={team-a,team-b}'],
    ['serviceMonitor.enabled=true', 'networkPolicy.enabled=true'],
  ]) {
    test(`passes with ${set.join(' ') || 'the default values'}`, async () => {
      const r = await helm(['lint', '--strict', CHART_DIR, ...set.flatMap((s) => ['--set', s])]);
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    });
  }

  test('values.schema.json rejects unknown keys and bad values', async () => {
    for (const [set, message] of [
      ['replicas=3', /additional properties 'replicas' not allowed/],
      ['logLevel=verbose', /logLevel/],
      ['watchNamespaces={Not_A_Namespace}', /watchNamespaces/],
      ['metrics.port=0', /metrics/],
      ['image.digest=latest', /digest/],
    ] as const) {
      const r = await helm(['template', 'a2a', CHART_DIR, '--set', set]);
      assert.notEqual(r.code, 0, `${set} was accepted`);
      assert.match(r.stderr, message, set);
    }
  });
});

describe('helm template: defaults', () => {
  test('Deployment: 2 replicas, leader election, downward-API identity, probes, requests, restricted securityContext, spread', async () => {
    const ms = await renderChart();
    const d = deployment(ms);
    assert.equal(d.replicas, 2);
    const c = container(ms);
    assert.equal(c.image, 'ghcr.io/a2a-operator/a2a-operator:0.1.0');
    assert.deepEqual(c.args, [
      'run',
      '--metrics-address=:8080',
      '--cards-address=:8081',
      '--cards-index=namespace',
      '--leader-elect=true',
      '--lease-name=a2a-operator',
      '--workers=8',
      '--probe-concurrency=32',
      '--log-level=info',
    ]);
    assert.deepEqual(
      c.env.map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath]),
      [
        ['POD_NAME', 'metadata.name'],
        ['POD_NAMESPACE', 'metadata.namespace'],
      ],
    );
    assert.deepEqual(
      c.ports.map((p) => [p.name, p.containerPort]),
      [
        ['metrics', 8080],
        ['cards', 8081],
      ],
    );
    assert.deepEqual(c.livenessProbe.httpGet, { path: '/healthz', port: 'metrics' });
    assert.deepEqual(c.readinessProbe.httpGet, { path: '/readyz', port: 'metrics' });
    assert.ok(c.resources.requests?.cpu && c.resources.requests.memory, 'resource requests set');
    assert.deepEqual(c.securityContext, {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const pod = d.template.spec;
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.deepEqual(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    assert.deepEqual(c.volumeMounts, [{ name: 'tmp', mountPath: '/tmp' }]);
    assert.ok(pod.volumes.find((v) => v.name === 'tmp')?.emptyDir);
    assert.equal(pod.serviceAccountName, one(ms, 'ServiceAccount').metadata.name);
    assert.deepEqual(
      pod.topologySpreadConstraints?.map((t) => t.topologyKey),
      ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'],
    );
    for (const t of pod.topologySpreadConstraints ?? [])
      assert.deepEqual(t.labelSelector.matchLabels, d.selector.matchLabels);
    for (const [k, v] of Object.entries(d.selector.matchLabels))
      assert.equal(d.template.metadata.labels[k], v);
  });

  test('RBAC: one ClusterRole with exactly the calls the operator makes, a Lease Role limited to its Lease', async () => {
    const ms = await renderChart();
    const sa = one(ms, 'ServiceAccount');
    assert.equal(sa.metadata.namespace, 'a2a-system');
    assert.deepEqual(rules(one(ms, 'ClusterRole')), AGENT_RULES);
    const crb = one(ms, 'ClusterRoleBinding') as Manifest & {
      roleRef: { kind: string; name: string };
      subjects: { kind: string; name: string; namespace: string }[];
    };
    assert.deepEqual(crb.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: one(ms, 'ClusterRole').metadata.name,
    });
    assert.deepEqual(crb.subjects, [
      { kind: 'ServiceAccount', name: sa.metadata.name, namespace: 'a2a-system' },
    ]);
    const roles = find(ms, 'Role');
    assert.equal(roles.length, 1, 'only the leader-election Role');
    assert.equal(roles[0]!.metadata.namespace, 'a2a-system');
    assert.deepEqual(rules(roles[0]!), LEASE_RULES);
    // Nothing anywhere grants a wildcard, secrets list/watch, or pods writes beyond status.
    for (const r of [...find(ms, 'ClusterRole'), ...roles].flatMap(rules)) {
      assert.ok(!r.verbs.includes('*') && !r.resources.includes('*') && !r.apiGroups.includes('*'));
      if (r.resources.includes('secrets')) assert.deepEqual(r.verbs, ['get']);
    }
  });

  test('Services for the card endpoint and the metrics, PDB, NetworkPolicy; no ServiceMonitor', async () => {
    const ms = await renderChart();
    const svc = (name: string) =>
      one(ms, 'Service', name).spec as {
        selector: Record<string, string>;
        ports: { name: string; port: number; targetPort: string }[];
      };
    const sel = deployment(ms).selector.matchLabels;
    assert.deepEqual(svc('a2a-a2a-operator-cards').selector, sel);
    assert.deepEqual(
      svc('a2a-a2a-operator-cards').ports.map((p) => [p.port, p.targetPort]),
      [[80, 'cards']],
    );
    assert.deepEqual(
      svc('a2a-a2a-operator-metrics').ports.map((p) => [p.port, p.targetPort]),
      [[8080, 'metrics']],
    );
    const pdb = one(ms, 'PodDisruptionBudget').spec as {
      minAvailable: number;
      selector: { matchLabels: unknown };
    };
    assert.equal(pdb.minAvailable, 1);
    assert.deepEqual(pdb.selector.matchLabels, sel);
    assert.equal(find(ms, 'ServiceMonitor').length, 0);
    assert.equal(find(ms, 'NetworkPolicy').length, 1);
    assert.ok(container(ms).args.includes('--cards-index=namespace'));
  });

  test('--include-crds renders the generated CRD', async () => {
    const ms = await renderChart([], { includeCrds: true });
    const crd = one(ms, 'CustomResourceDefinition');
    assert.deepEqual(crd, parse(readFileSync(join(REPO_ROOT, 'crds', 'a2a.dev_a2aagents.yaml'), 'utf8')));
  });
});

describe('helm template: value combinations', () => {
  test('rbac.namespaced + watchNamespaces: a Role and RoleBinding per namespace, nothing cluster-scoped, --namespaces', async () => {
    const ms = await renderChart(['rbac.namespaced=true', 'watchNamespaces={team-a,team-b}']);
    assert.equal(find(ms, 'ClusterRole').length, 0);
    assert.equal(find(ms, 'ClusterRoleBinding').length, 0);
    const agentRoles = find(ms, 'Role').filter((r) => !r.metadata.name.endsWith('-leader-election'));
    assert.deepEqual(
      agentRoles.map((r) => r.metadata.namespace),
      ['team-a', 'team-b'],
    );
    for (const r of agentRoles) assert.deepEqual(rules(r), AGENT_RULES);
    const bindings = find(ms, 'RoleBinding') as (Manifest & { subjects: { namespace: string }[] })[];
    assert.deepEqual(
      bindings.map((b) => b.metadata.namespace),
      ['team-a', 'team-b', 'a2a-system'],
    );
    for (const b of bindings) assert.equal(b.subjects[0]!.namespace, 'a2a-system');
    assert.ok(container(ms).args.includes('--namespaces=team-a,team-b'));
  });

  test('rbac.namespaced without watchNamespaces watches the release namespace only', async () => {
    const ms = await renderChart(['rbac.namespaced=true'], { namespace: 'agents' });
    assert.deepEqual(
      find(ms, 'Role').map((r) => [r.metadata.name, r.metadata.namespace]),
      [
        ['a2a-a2a-operator', 'agents'],
        ['a2a-a2a-operator-leader-election', 'agents'],
      ],
    );
    assert.ok(container(ms).args.includes('--namespaces=agents'));
  });

  test('cluster RBAC with watchNamespaces passes --namespaces and keeps the ClusterRole', async () => {
    const ms = await renderChart(['watchNamespaces={team-a}']);
    assert.deepEqual(rules(one(ms, 'ClusterRole')), AGENT_RULES);
    assert.ok(container(ms).args.includes('--namespaces=team-a'));
  });

  test('serviceMonitor.enabled: a ServiceMonitor scraping the metrics Service port', async () => {
    const ms = await renderChart(['serviceMonitor.enabled=true', 'serviceMonitor.labels.release=prom']);
    const sm = one(ms, 'ServiceMonitor') as Manifest & {
      spec: {
        selector: { matchLabels: Record<string, string> };
        endpoints: { port: string; path: string }[];
      };
    };
    assert.equal(sm.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(sm.metadata.labels?.release, 'prom');
    assert.deepEqual(
      sm.spec.endpoints.map((e) => [e.port, e.path]),
      [['metrics', '/metrics']],
    );
    const metrics = find(ms, 'Service').filter((s) =>
      Object.entries(sm.spec.selector.matchLabels).every(([k, v]) => s.metadata.labels?.[k] === v),
    );
    assert.deepEqual(
      metrics.map((s) => s.metadata.name),
      ['a2a-a2a-operator-metrics'],
    );
  });

  type NetworkPolicySpec = {
    policyTypes: string[];
    podSelector: { matchLabels: unknown };
    ingress?: { ports: { port: string }[]; from?: unknown[] }[];
  };
  const monitoring = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };

  test('NetworkPolicy by default: cards from every in-cluster pod, metrics only from monitoring', async () => {
    const ms = await renderChart();
    const np = one(ms, 'NetworkPolicy').spec as NetworkPolicySpec;
    assert.deepEqual(np.policyTypes, ['Ingress']);
    assert.deepEqual(np.podSelector.matchLabels, deployment(ms).selector.matchLabels);
    // Every rule names its peers: a rule without `from` would admit any source, in-cluster or not.
    assert.deepEqual(
      np.ingress?.map((i) => [i.ports.map((p) => p.port), i.from]),
      [
        [['metrics'], [monitoring]],
        [['cards'], [{ namespaceSelector: {} }]],
      ],
    );
  });

  test('networkPolicy peers: extra metrics peers, narrowed cards peers, none at all', async () => {
    const narrowed = await renderChart([
      'networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus',
      'networkPolicy.cardsFrom[0].namespaceSelector.matchLabels.team=pay',
    ]);
    assert.deepEqual(
      (one(narrowed, 'NetworkPolicy').spec as NetworkPolicySpec).ingress?.map((i) => i.from),
      [
        [monitoring, { podSelector: { matchLabels: { app: 'prometheus' } } }],
        [{ namespaceSelector: { matchLabels: { team: 'pay' } } }],
      ],
    );
    // No peers for a port: no rule for it, so nothing reaches it (rather than everything).
    const closed = await renderChart(['networkPolicy.monitoringNamespace=', 'networkPolicy.cardsFrom=null']);
    const spec = one(closed, 'NetworkPolicy').spec as NetworkPolicySpec;
    assert.deepEqual(spec.policyTypes, ['Ingress']);
    assert.deepEqual(spec.ingress ?? [], []);
    assert.equal(find(await renderChart(['networkPolicy.enabled=false']), 'NetworkPolicy').length, 0);
  });

  test('cards.index sets --cards-index; the schema refuses other values', async () => {
    assert.ok(container(await renderChart(['cards.index=cluster'])).args.includes('--cards-index=cluster'));
    const r = await helm(['template', 'a2a', CHART_DIR, '--set', 'cards.index=everyone']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /index/);
  });

  test('leaderElection.enabled=false: no Lease Role, --leader-elect=false', async () => {
    const ms = await renderChart([
      'leaderElection.enabled=false',
      'replicaCount=1',
      'podDisruptionBudget.enabled=false',
    ]);
    assert.equal(find(ms, 'Role').length, 0);
    assert.equal(find(ms, 'PodDisruptionBudget').length, 0);
    assert.ok(container(ms).args.includes('--leader-elect=false'));
  });

  test('image.digest pins the image', async () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const ms = await renderChart([`image.digest=${digest}`]);
    assert.equal(container(ms).image, `ghcr.io/a2a-operator/a2a-operator@${digest}`);
  });
});

describe('Pod Security admission', () => {
  test('the pod template is admitted in a namespace enforcing the restricted level', async () => {
    const cluster = await useCluster();
    const ns = await cluster.createNamespace('psa');
    const label = await cluster.kubectl(['label', 'ns', ns, 'pod-security.kubernetes.io/enforce=restricted']);
    assert.equal(label.code, 0, label.stderr);
    const t = deployment(await renderChart([], { namespace: ns })).template;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'operator', namespace: ns, labels: t.metadata.labels },
      spec: t.spec,
    };
    const ok = await cluster.kubectl(['create', '--dry-run=server', '-f', '-'], {
      input: JSON.stringify(pod),
    });
    assert.equal(ok.code, 0, ok.stderr);
    // The check has teeth: the same pod without the seccomp profile is refused.
    const { seccompProfile: _s, ...loose } = t.spec.containers[0]!.securityContext;
    const { seccompProfile: _p, ...loosePod } = t.spec.securityContext;
    const bad = {
      ...pod,
      spec: {
        ...t.spec,
        securityContext: loosePod,
        containers: [{ ...t.spec.containers[0]!, securityContext: loose }],
      },
    };
    const refused = await cluster.kubectl(['create', '--dry-run=server', '-f', '-'], {
      input: JSON.stringify(bad),
    });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /violates PodSecurity "restricted/);
  });
});
