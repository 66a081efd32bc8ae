// Issue 18: status that never lies. status.pods names the pod that lies (bounded); Stalled means
// "a pipeline should fail" (spec problems, conflicts, failures on every ready pod; a partial
// failure only with failOn: AnyPod) and every reason is the real cause; endpoint readiness
// mirrors the pod's Ready; interface messages name binding, URL and version once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { A2AAgentStatus, MAX_STATUS_PODS, type Condition } from '../../src/api/a2aagent.js';
import { InterfaceState } from '../../src/api/conditions.js';
import { interfaceEvidence } from '../../src/controller/aggregate.js';
import { decide, type Decision } from '../../src/controller/decide.js';
import { mapInterfaces } from '../../src/observation/interface-map.js';
import type { PodObservation } from '../../src/observation/observed.js';
import { buildEndpointSlices } from '../../src/routing/objects.js';
import { shrinkRouting } from '../../src/routing/shrink.js';
import { allVerified, input, keys, okCard, parsed, pod, spec, V, v1Raw } from './reconcile-fixtures.js';

const S = InterfaceState;
const card = okCard(v1Raw());
const K = keys(parsed(v1Raw()));
const GRPC_URL = 'http://agent.internal:9090';

function cond(d: Decision, type: string): Condition {
  const c = d.status.conditions?.find((x) => x.type === type);
  assert.ok(c, type);
  return c;
}
function summary(d: Decision, ...types: string[]): string[] {
  return types.map((t) => `${t}=${cond(d, t).status}/${cond(d, t).reason}`);
}

/** Pods a, b, c on their own addresses; `c` answers gRPC UNIMPLEMENTED (confirmed) unless told. */
function threePods(cStates: Parameters<typeof pod>[2] = [V, V, S.Unimplemented]): PodObservation[] {
  return (['a', 'b', 'c'] as const).map((n, i) => {
    const p = pod(n, card, n === 'c' ? cStates : allVerified);
    return { ...p, pod: { ...p.pod, ip: `10.0.0.${i + 1}`, ips: [`10.0.0.${i + 1}`] } };
  });
}
const anyPod = () => spec({ probe: { ...spec().probe, failOn: 'AnyPod' } });

describe('Stalled means a pipeline should fail', () => {
  it('gRPC failure confirmed on 1 of 3 pods: Ready=False (the failure), PodsConsistent=False/PartialFailure, not Stalled', () => {
    const d = decide(input({ pods: threePods() }));
    assert.deepEqual(summary(d, 'Ready', 'InterfacesVerified', 'PodsConsistent', 'Reconciling', 'Stalled'), [
      'Ready=False/InterfaceUnimplemented',
      'InterfacesVerified=False/InterfaceUnimplemented',
      'PodsConsistent=False/PartialFailure',
      'Reconciling=False/Settled',
      'Stalled=False/PartialFailure',
    ]);
    assert.match(
      cond(d, 'PodsConsistent').message,
      /1\/3 fail: c \(GRPC http:\/\/agent\.internal:9090 \(v1\.0\) Unimplemented\); 2 verify every interface \(a, b\)/,
    );
    assert.match(cond(d, 'Stalled').message, /^InterfaceUnimplemented on 1\/3 ready pods only \(c\)/);
  });

  it('the same with spec.probe.failOn AnyPod: Stalled=True/FailureConfirmed naming the pod', () => {
    const d = decide(input({ pods: threePods(), spec: anyPod() }));
    assert.deepEqual(summary(d, 'Ready', 'PodsConsistent', 'Stalled'), [
      'Ready=False/InterfaceUnimplemented',
      'PodsConsistent=False/PartialFailure',
      'Stalled=True/FailureConfirmed',
    ]);
    assert.match(cond(d, 'Stalled').message, /on 1\/3 ready pods \(spec\.probe\.failOn: AnyPod\).*c \(GRPC/);
  });

  it('failure confirmed on every ready pod: Stalled=True/FailureConfirmed; PodsConsistent stays True', () => {
    const pods = threePods().map((p) => pod(p.pod.name, card, [V, V, S.Unimplemented]));
    const d = decide(input({ pods }));
    assert.deepEqual(summary(d, 'Ready', 'PodsConsistent', 'Stalled'), [
      'Ready=False/InterfaceUnimplemented',
      'PodsConsistent=True/Consistent',
      'Stalled=True/FailureConfirmed',
    ]);
    assert.match(
      cond(d, 'Stalled').message,
      /^InterfaceUnimplemented on every ready pod, confirmed by 2 consecutive probes/,
    );
  });

  it('different interfaces failing on different pods leave no pod clean: Stalled', () => {
    const pods = [
      pod('a', card, [S.Unimplemented, V, V]),
      pod('b', card, [V, S.WrongBinding, V]),
      pod('c', card, [V, V, S.Timeout]),
    ];
    assert.equal(cond(decide(input({ pods })), 'Stalled').status, 'True');
  });

  it('a Service conflict with every interface verified: ServiceConflict on Ready, Advertised and Stalled, never FailureConfirmed', () => {
    const pods = threePods(allVerified);
    const d = decide(
      input({ pods, serviceConflict: 'Service billing exists and was not created by this A2AAgent' }),
    );
    assert.deepEqual(summary(d, 'Ready', 'InterfacesVerified', 'Advertised', 'Stalled'), [
      'Ready=False/ServiceConflict',
      'InterfacesVerified=True/AllVerified',
      'Advertised=False/ServiceConflict',
      'Stalled=True/ServiceConflict',
    ]);
    assert.match(cond(d, 'Stalled').message, /not created by this A2AAgent/);
  });

  it('a conflict stalls whatever the probes say (pending, no ready pod); Reconciling False so kstatus and Argo CD agree', () => {
    const pending = decide(
      input({ pods: threePods([V, V, undefined]), serviceConflict: 'Service billing exists' }),
    );
    assert.deepEqual(summary(pending, 'Reconciling', 'Stalled'), [
      'Reconciling=False/ServiceConflict',
      'Stalled=True/ServiceConflict',
    ]);
    const noPods = decide(input({ pods: [], serviceConflict: 'Service billing exists' }));
    assert.deepEqual(summary(noPods, 'Ready', 'Reconciling', 'Stalled'), [
      'Ready=False/NoReadyPods',
      'Reconciling=False/ServiceConflict',
      'Stalled=True/ServiceConflict',
    ]);
  });

  it('an unconfirmed failure on one pod is progress, not a verdict', () => {
    const d = decide(
      input({ pods: threePods([V, V, { state: S.Unimplemented, failures: 1, confirmed: false }]) }),
    );
    assert.deepEqual(summary(d, 'Reconciling', 'Stalled'), [
      'Reconciling=True/Probing',
      'Stalled=False/Probing',
    ]);
  });
});

describe('status.pods: which pod lies', () => {
  it('per pod: name, IPs, card digest, ready, verified, the failing interface and the gate; failing pods first', () => {
    const pods = threePods();
    pods[2] = { ...pods[2]!, pod: { ...pods[2]!.pod, ready: false } };
    const d = decide(input({ pods }));
    assert.ok(A2AAgentStatus.safeParse(d.status).success);
    assert.deepEqual(d.status.pods?.[0], {
      name: 'c',
      ips: ['10.0.0.3'],
      ready: false,
      probed: true,
      cardDigest: card.ok ? card.digest : '',
      verified: '2/3',
      failing: ['GRPC http://agent.internal:9090 (v1.0) Unimplemented'],
      gate: 'False/InterfaceUnimplemented',
    });
    assert.deepEqual(
      d.status.pods?.map((p) => `${p.name} ${p.verified} ${p.gate} ${p.failing ? 'failing' : 'ok'}`),
      [
        'c 2/3 False/InterfaceUnimplemented failing',
        'a 3/3 True/CardVerified ok',
        'b 3/3 True/CardVerified ok',
      ],
    );
    assert.equal(d.status.podsNotListed, undefined);
  });

  it('a pod not probed (containers not ready) is listed with probed false and its gate as the pod has it', () => {
    const p = pod('z', card, [], { candidate: false, gate: { status: 'False', reason: 'PodNotServing' } });
    const d = decide(input({ pods: [...threePods(allVerified), p] }));
    const z = d.status.pods?.find((x) => x.name === 'z');
    assert.deepEqual(z && { ready: z.ready, probed: z.probed, gate: z.gate, failing: z.failing }, {
      ready: false,
      probed: false,
      gate: 'False/PodNotServing',
      failing: undefined,
    });
  });

  it(`bounded: ${MAX_STATUS_PODS} entries at most, the rest counted; the liars are listed even among 200 pods`, () => {
    const pods = Array.from({ length: 200 }, (_, i) =>
      pod(
        `p${String(i).padStart(3, '0')}`,
        card,
        i === 150 || i === 199 ? [V, V, S.Unimplemented] : allVerified,
      ),
    );
    const d = decide(input({ pods }));
    assert.equal(d.status.pods?.length, MAX_STATUS_PODS);
    assert.equal(d.status.podsNotListed, 200 - MAX_STATUS_PODS);
    assert.deepEqual(
      d.status.pods?.slice(0, 2).map((p) => p.name),
      ['p150', 'p199'],
    );
    assert.ok(JSON.stringify(d.status.pods).length < 4096, `${JSON.stringify(d.status.pods).length} bytes`);
  });

  it('a pod failing many interfaces lists at most 4 entries', () => {
    const raw = v1Raw({
      supportedInterfaces: Array.from({ length: 8 }, (_, i) => ({
        url: `http://agent.internal:8080/a${i}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: '1.0',
      })),
    });
    const c = okCard(raw);
    const d = decide(input({ pods: [pod('a', c, Array(8).fill(S.Unimplemented))] }));
    const failing = d.status.pods?.[0]?.failing ?? [];
    assert.equal(failing.length, 4);
    assert.equal(failing[3], 'and 5 more');
  });

  it('steady: deciding again on the same observations gives the same pods (no write per period)', () => {
    const first = decide(input({ pods: threePods() }));
    const again = decide(input({ pods: threePods(), previous: first.status }));
    assert.deepEqual(again.status.pods, first.status.pods);
  });
});

describe('messages say binding, URL and version once', () => {
  const grpc = { url: GRPC_URL, protocolBinding: 'GRPC', protocolVersion: '1.0' };
  const probeMessage = `GRPC v1.0 ${GRPC_URL} (dialled 10.0.0.3:9090): lf.a2a.v1.A2AService/GetTask answered UNIMPLEMENTED; the gRPC server runs but the A2A service is not registered`;

  it('interfaceEvidence strips the probe prefix and keeps only the pod port', () => {
    assert.equal(
      interfaceEvidence(grpc, probeMessage),
      'pod port 9090: lf.a2a.v1.A2AService/GetTask answered UNIMPLEMENTED; the gRPC server runs but the A2A service is not registered',
    );
    assert.equal(
      interfaceEvidence(grpc, `GRPC ${GRPC_URL}: port 7000 is not one of spec.ports`),
      'port 7000 is not one of spec.ports',
    );
    assert.equal(interfaceEvidence(grpc, 'not probed yet'), 'not probed yet');
  });

  it('InterfacesVerified, status.interfaces[] and the gate: the interface once, then evidence and pods', () => {
    const pods = threePods([V, V, { state: S.Unimplemented, message: probeMessage }]);
    const d = decide(input({ pods }));
    const iv = cond(d, 'InterfacesVerified').message;
    assert.equal(
      iv,
      `GRPC ${GRPC_URL} (v1.0): pod port 9090: lf.a2a.v1.A2AService/GetTask answered UNIMPLEMENTED; the gRPC server runs but the A2A service is not registered on 1/3 pods (c); verified on a, b`,
    );
    for (const text of [iv, d.status.interfaces![2]!.message, d.gates.find((g) => g.pod === 'c')!.message]) {
      assert.equal(text.split(GRPC_URL).length - 1, text === iv || text.startsWith('GRPC') ? 1 : 0, text);
      assert.doesNotMatch(text, /GRPC v1\.0/, text);
      assert.doesNotMatch(text, /10\.0\.0\.3/, text);
    }
    assert.match(
      d.status.interfaces![2]!.message,
      /^pod port 9090: lf\.a2a\.v1\.A2AService\/GetTask answered UNIMPLEMENTED/,
    );
  });

  it('a verified interface: "answered as served (evidence) on n/m pods"', () => {
    const ok = {
      state: V,
      message: `GRPC v1.0 ${GRPC_URL} (dialled 10.0.0.1:9090): lf.a2a.v1.A2AService/GetTask answered NOT_FOUND with ErrorInfo TASK_NOT_FOUND for a random id, the handler is served`,
    };
    const d = decide(input({ pods: [pod('a', card, [V, V, ok])] }));
    assert.equal(
      d.status.interfaces![2]!.message,
      'answered as served (pod port 9090: lf.a2a.v1.A2AService/GetTask answered NOT_FOUND with ErrorInfo TASK_NOT_FOUND for a random id, the handler is served) on 1/1 pods',
    );
  });
});

describe('endpoint readiness follows the pod', () => {
  const ctx = { spec: spec(), namespace: 'payments', serviceName: 'billing' };
  const owner = { name: 'billing', namespace: 'payments', uid: 'uid-agent' };

  function slices(pods: PodObservation[]): V1EndpointSlice[] {
    const d = decide(input({ pods }));
    assert.ok(d.routing);
    return buildEndpointSlices(
      owner,
      'billing',
      ctx.spec,
      d.routing.plan,
      d.routing.pods,
      mapInterfaces(parsed(v1Raw()), ctx),
    );
  }
  const readiness = (s: V1EndpointSlice[]) =>
    Object.fromEntries(
      s.map((x) => [
        x.metadata!.name!,
        (x.endpoints ?? []).map(
          (e) => `${e.targetRef!.name}:${e.conditions!.ready}/${e.conditions!.serving}`,
        ),
      ]),
    );

  it('a pod held NotReady by its own gate is listed ready:false, serving:false, also where it is verified', () => {
    const pods = threePods();
    pods[2] = { ...pods[2]!, pod: { ...pods[2]!.pod, ready: false } };
    assert.deepEqual(readiness(slices(pods)), {
      'billing-http': ['a:true/true', 'b:true/true', 'c:false/false'],
      'billing-grpc': ['a:true/true', 'b:true/true'],
    });
  });

  it('without the pod ready flag (not known) a routed pod is ready, as before', () => {
    const pods = threePods();
    assert.deepEqual(readiness(slices(pods))['billing-http'], ['a:true/true', 'b:true/true', 'c:true/true']);
  });

  it('a shrink marks the endpoint of a pod that turned NotReady not ready, and never back', () => {
    const pods = threePods(allVerified);
    const current = slices(pods);
    const byUid = (ready: boolean) =>
      new Map(
        pods.map((p) => [
          p.pod.uid,
          {
            candidate: true,
            ready: p.pod.name === 'b' ? ready : true,
            ips: p.pod.ips!,
            refuses: () => false,
          },
        ]),
      );
    const published = K.map((key, i) => ({ key, portName: i < 2 ? 'http' : 'grpc' }));
    const down = shrinkRouting(current, published, byUid(false));
    assert.deepEqual(readiness(down.slices)['billing-http'], ['a:true/true', 'b:false/false', 'c:true/true']);
    assert.deepEqual(down.advertised, K, 'listed, not removed: the card does not flap');
    const up = shrinkRouting(down.slices, published, byUid(true));
    assert.deepEqual(readiness(up.slices)['billing-http'], ['a:true/true', 'b:false/false', 'c:true/true']);
  });
});
