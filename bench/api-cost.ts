/**
 * `npm run bench:api`: what each kind of request an agent's first visit sends costs the control
 * plane (kube-apiserver + etcd CPU per request, from /proc), on the same real control plane the
 * benchmark runs, one kind at a time, 8 requests in flight. The kinds are those the benchmark
 * counts per cold reconcile (`API requests per reconcile, cold start`): the name-claim reads, the
 * server-side applies of the routing objects, the status apply, the Event. The A2AAgent is the
 * shipped CRD with the spec and status of a converged benchmark agent
 * (`bench/fixtures/a2aagent-bench.json`), and the same object under a CRD without a schema, to
 * show what validating against the schema costs, the same status as a JSON merge patch, to show
 * what server-side apply adds over a plain update, and a headless Service beside the ClusterIP
 * one, to show what allocating the cluster IP costs. Prints a line per kind, then their sum with an
 * agent's cold-start mix (no watcher, nothing else running: a floor under what the benchmark's
 * cold start costs the control plane); asserts nothing.
 *
 *   npm run bench:api [-- --requests N --rounds N]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { ContentType, KubeClient, type ApiRequest } from '../src/kube/client.js';
import { microTime } from '../src/kube/clock.js';
import { FIELD_MANAGER } from '../src/kube/apply.js';
import { isNotFound } from '../src/kube/errors.js';
import {
  AGENT_LABEL,
  CARD_KEY,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  SERVICE_NAME_LABEL,
  SLICE_MANAGED_BY,
} from '../src/routing/objects.js';
import { REPO_ROOT } from '../test/harness/binaries.js';
import { useCluster, type Cluster } from '../test/harness/cluster.js';
import { readCpu } from './lib/machine-cpu.js';
import { limited, median } from './lib/stats.js';

const CRD_FILE = join(REPO_ROOT, 'crds/a2a.dev_a2aagents.yaml');
const FIXTURE = join(REPO_ROOT, 'bench/fixtures/a2aagent-bench.json');
const IN_FLIGHT = 8;
const LOOSE_GROUP = 'noschema.bench.a2a.dev';
const LABELS = { [MANAGED_BY_LABEL]: MANAGED_BY, [AGENT_LABEL]: 'agent' };

interface Kind {
  name: string;
  /**
   * How many of these one agent's cold start sends: the benchmark's counts per verb and resource
   * (`API requests per reconcile, cold start`, 10 per agent at every size); 0 for comparisons.
   */
  perAgent: number;
  /** Which kind the summary lines name. */
  id?: 'status' | 'schemaless' | 'merge';
  /** A 404 is the answer (a name claim of a name nothing holds). */
  absent?: true;
  /** Objects this kind needs before it is measured (created once, not measured). */
  setup?: (i: number) => ApiRequest;
  request: (i: number, round: number) => ApiRequest;
}

function kinds(ns: string, fixture: { spec: unknown; status: Record<string, unknown> }): Kind[] {
  const agents = (group: string) => `/apis/${group}/v1alpha1/namespaces/${ns}/a2aagents`;
  const agentBody = (group: string, i: number, prefix = group === LOOSE_GROUP ? 'l' : 'a') => ({
    apiVersion: `${group}/v1alpha1`,
    kind: 'A2AAgent',
    metadata: { name: `${prefix}-${i}` },
    spec: fixture.spec,
  });
  // Each round writes a different lastTransitionProbeTime, so every write changes the object.
  const roundStatus = (round: number) => ({
    ...fixture.status,
    lastTransitionProbeTime: new Date(Date.UTC(2026, 0, 1, 0, 0, round)).toISOString(),
  });
  const statusApply =
    (group: string) =>
    (i: number, round: number): ApiRequest => {
      const name = agentBody(group, i).metadata.name;
      return {
        method: 'PATCH',
        path: `${agents(group)}/${name}/status`,
        query: { fieldManager: FIELD_MANAGER, force: true },
        contentType: ContentType.apply,
        body: {
          apiVersion: `${group}/v1alpha1`,
          kind: 'A2AAgent',
          metadata: { name, namespace: ns },
          status: roundStatus(round),
        },
      };
    };
  // The same status as a JSON merge patch (an update, not an apply) on objects of its own
  // (MERGE_PREFIX): what server-side apply's YAML decoding and field-set merge add over it. The
  // apiserver still validates it against the schema and records the manager's fields, as for any
  // write.
  const MERGE_PREFIX = 'm';
  const statusMerge = (i: number, round: number): ApiRequest => ({
    method: 'PATCH',
    path: `${agents('a2a.dev')}/${agentBody('a2a.dev', i, MERGE_PREFIX).metadata.name}/status`,
    query: { fieldManager: FIELD_MANAGER },
    contentType: ContentType.merge,
    body: { status: roundStatus(round) },
  });
  const apply = (path: string, body: Record<string, unknown>): ApiRequest => ({
    method: 'PATCH',
    path,
    query: { fieldManager: FIELD_MANAGER, force: true },
    contentType: ContentType.apply,
    body,
  });
  const service = (name: string, extra: Record<string, unknown>): ApiRequest =>
    apply(`/api/v1/namespaces/${ns}/services/${name}`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: ns, labels: LABELS },
      spec: {
        type: 'ClusterIP',
        ...extra,
        ports: [
          { name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' },
          { name: 'grpc', port: 9090, protocol: 'TCP', appProtocol: 'kubernetes.io/h2c' },
        ],
      },
    });
  const card = JSON.stringify(
    {
      name: 'agent',
      description: 'x'.repeat(200),
      version: '1.0.0',
      supportedInterfaces: [1, 2, 3].map((n) => ({
        url: `http://agent.${ns}.svc:8080/a2a/${n}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      })),
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 's', description: 's', tags: ['t'] }],
    },
    null,
    2,
  );
  return [
    {
      name: 'GET services/<name> (Service name claim, absent)',
      absent: true,
      perAgent: 1,
      request: (i, r) => ({ method: 'GET', path: `/api/v1/namespaces/${ns}/services/absent-${r}-${i}` }),
    },
    {
      name: 'GET configmaps/<name> (ConfigMap name claim, absent)',
      absent: true,
      perAgent: 1,
      request: (i, r) => ({ method: 'GET', path: `/api/v1/namespaces/${ns}/configmaps/absent-${r}-${i}` }),
    },
    {
      name: 'GET endpointslices?fieldSelector=metadata.name (slice name claim, absent)',
      absent: true,
      perAgent: 2,
      request: (i, r) => ({
        method: 'GET',
        path: `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
        query: { fieldSelector: `metadata.name=absent-${r}-${i}` },
      }),
    },
    {
      name: 'PATCH services (apply, created)',
      perAgent: 1,
      request: (i, r) => service(`svc-${r}-${i}`, {}),
    },
    {
      name: 'PATCH services (apply, created, headless: no ClusterIP; comparison only)',
      perAgent: 0,
      request: (i, r) => service(`headless-${r}-${i}`, { clusterIP: 'None' }),
    },
    {
      name: 'PATCH endpointslices (apply, created, 3 endpoints)',
      perAgent: 2,
      request: (i, r) =>
        apply(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices/slice-${r}-${i}`, {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: {
            name: `slice-${r}-${i}`,
            namespace: ns,
            labels: {
              ...LABELS,
              [SERVICE_NAME_LABEL]: `svc-${r}-${i}`,
              'endpointslice.kubernetes.io/managed-by': SLICE_MANAGED_BY,
            },
          },
          addressType: 'IPv4',
          ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }],
          endpoints: [1, 2, 3].map((n) => ({
            addresses: [`10.0.${n}.${(i % 250) + 1}`],
            conditions: { ready: true },
            targetRef: { kind: 'Pod', namespace: ns, name: `pod-${i}-${n}` },
          })),
        }),
    },
    {
      name: 'PATCH configmaps (apply, created, advertised card)',
      perAgent: 1,
      request: (i, r) =>
        apply(`/api/v1/namespaces/${ns}/configmaps/card-${r}-${i}`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `card-${r}-${i}`, namespace: ns, labels: LABELS },
          data: { [CARD_KEY]: `${card}\n` },
        }),
    },
    {
      name: 'PATCH a2aagents/status (apply, changed)',
      id: 'status',
      perAgent: 1,
      setup: (i) => ({ method: 'POST', path: agents('a2a.dev'), body: agentBody('a2a.dev', i) }),
      request: statusApply('a2a.dev'),
    },
    {
      name: 'POST events (a transition)',
      perAgent: 1,
      request: (i, r) => ({
        method: 'POST',
        path: `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
        body: {
          apiVersion: 'events.k8s.io/v1',
          kind: 'Event',
          metadata: { name: `agent.${r}-${i}`, namespace: ns },
          eventTime: microTime(Date.now()),
          reportingController: 'a2a.dev/operator',
          reportingInstance: 'bench',
          action: 'Verified',
          reason: 'Verified',
          type: 'Normal',
          note: '3/3 interfaces verified on 3 pods, 3 advertised',
          regarding: { apiVersion: 'a2a.dev/v1alpha1', kind: 'A2AAgent', namespace: ns, name: `a-${i}` },
        },
      }),
    },
    {
      name: 'GET a2aagents/<name> (not sent by a cold start: the read side of the same object)',
      perAgent: 0,
      request: (i) => ({ method: 'GET', path: `${agents('a2a.dev')}/a-${i}` }),
    },
    {
      name: 'PATCH a2aagents/status (JSON merge patch, changed; comparison only)',
      id: 'merge',
      perAgent: 0,
      setup: (i) => ({
        method: 'POST',
        path: agents('a2a.dev'),
        body: agentBody('a2a.dev', i, MERGE_PREFIX),
      }),
      request: statusMerge,
    },
    {
      name: 'PATCH a2aagents/status under a CRD without a schema (comparison only)',
      id: 'schemaless',
      perAgent: 0,
      setup: (i) => ({ method: 'POST', path: agents(LOOSE_GROUP), body: agentBody(LOOSE_GROUP, i) }),
      request: statusApply(LOOSE_GROUP),
    },
  ];
}

/**
 * The shipped CRD under another group, its schema replaced by one that keeps any field. JSON, not
 * YAML: the API server reads YAML 1.1, where an unquoted `Off` (a default of ours) is a boolean.
 */
function schemalessCrd(): string {
  const crd = parseYaml(readFileSync(CRD_FILE, 'utf8')) as {
    metadata: { name: string };
    spec: { group: string; versions: { schema: unknown; additionalPrinterColumns?: unknown }[] };
  };
  crd.metadata.name = `a2aagents.${LOOSE_GROUP}`;
  crd.spec.group = LOOSE_GROUP;
  for (const v of crd.spec.versions) {
    const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    v.schema = { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } };
    delete v.additionalPrinterColumns;
  }
  return JSON.stringify(crd);
}

/** The harness installed the shipped CRD; this adds the schemaless one beside it. */
async function installSchemalessCrd(cluster: Cluster): Promise<void> {
  const applied = await cluster.kubectl(['apply', '--server-side', '-f', '-'], { input: schemalessCrd() });
  if (applied.code !== 0) throw new Error(`kubectl apply: ${applied.stderr}`);
  const name = `crd/a2aagents.${LOOSE_GROUP}`;
  const wait = await cluster.kubectl(['wait', '--for=condition=Established', '--timeout=60s', name]);
  if (wait.code !== 0) throw new Error(`kubectl wait: ${wait.stderr}`);
}

/** Sends `count` requests, `IN_FLIGHT` at a time; every one must succeed. */
function send(
  client: KubeClient,
  count: number,
  make: (i: number) => ApiRequest,
  absentOk = false,
): Promise<void> {
  const indices = Array.from({ length: count }, (_, i) => i);
  return limited(indices, IN_FLIGHT, async (i) => {
    await client.request(make(i)).catch((err: unknown) => {
      if (absentOk && isNotFound(err)) return;
      throw err;
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { requests: { type: 'string', default: '400' }, rounds: { type: 'string', default: '3' } },
  });
  const count = Number(values.requests);
  const rounds = Number(values.rounds);
  if (!(count > 0 && rounds > 0)) throw new Error('--requests and --rounds must be positive');
  const cluster = await useCluster();
  const pids = cluster.controlPlane?.pids;
  if (!pids?.apiserver || !pids.etcd)
    throw new Error(
      'bench:api measures a control plane it starts: unset A2A_TEST_CLUSTER and USE_EXISTING_CLUSTER',
    );
  await installSchemalessCrd(cluster);
  const ns = await cluster.createNamespace('bench-api');
  const client = new KubeClient(cluster.kc);
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as {
    spec: unknown;
    status: Record<string, unknown>;
  };
  const all = kinds(ns, fixture);
  for (const k of all) if (k.setup) await send(client, count, k.setup);
  const cpu = (): number => {
    const r = readCpu({ 'kube-apiserver': [pids.apiserver], etcd: [pids.etcd] });
    return r.byRole['kube-apiserver'] + r.byRole.etcd;
  };
  const perKind = new Map<string, number[]>(all.map((k) => [k.name, []]));
  // Rounds go over every kind in turn, so a slow spell of the machine touches each kind alike.
  for (let round = 0; round < rounds; round++) {
    for (const k of all) {
      const before = cpu();
      await send(client, count, (i) => k.request(i, round), k.absent);
      perKind.get(k.name)!.push(((cpu() - before) * 1e6) / count);
    }
  }
  const rows = all.map((k) => ({ ...k, us: median(perKind.get(k.name)!) }));
  const width = Math.max(...rows.map((r) => r.name.length));
  console.log(
    `control-plane CPU per request (kube-apiserver + etcd), median of ${rounds} rounds of ${count}, ${IN_FLIGHT} in flight`,
  );
  for (const r of rows)
    console.log(
      `${r.name.padEnd(width)}  ${(r.us / 1000).toFixed(2).padStart(6)} ms  x ${r.perAgent} per cold agent`,
    );
  const perAgent = rows.reduce((sum, r) => sum + r.us * r.perAgent, 0);
  const requests = rows.reduce((sum, r) => sum + r.perAgent, 0);
  console.log(
    `an agent's cold start, ${requests} requests: ${(perAgent / 1000).toFixed(2).padStart(6)} ms of control-plane CPU (no watcher, nothing else running)`,
  );
  const status = rows.find((r) => r.id === 'status')!;
  const loose = rows.find((r) => r.id === 'schemaless')!;
  console.log(
    `status apply: ${((100 * status.us) / perAgent).toFixed(0)} % of it; without the CRD's schema ${(loose.us / 1000).toFixed(2)} ms (${((100 * (status.us - loose.us)) / status.us).toFixed(0)} % of the status apply is validating against the schema)`,
  );
  const merge = rows.find((r) => r.id === 'merge')!;
  console.log(
    `status as a JSON merge patch instead of an apply: ${(merge.us / 1000).toFixed(2)} ms (${merge.us > 0 ? `the apply costs ${(status.us / merge.us).toFixed(2)}x as much` : 'no CPU measured for it'})`,
  );
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
