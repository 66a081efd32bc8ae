/**
 * Pod event -> withdrawn: a pod is deleted or marked NotReady (alternately), and the latency is
 * the time until the benchmark's own EndpointSlice watch sees its address in no slice of its
 * agent's Service (docs/routing.md: removals always flow, target 1 s). The pod is then restored (Ready
 * again, or recreated at the same address) and routed again before the next event.
 */
import type { V1EndpointSlice } from '@kubernetes/client-node';
import type { Cluster } from '../../test/harness/cluster.js';
import { createPod, deletePod, setPodStatus } from '../../test/harness/pods.js';
import type { FleetPod } from './agent-fleet.js';
import type { WatchMap } from './watch-map.js';

export interface Withdrawal {
  deletedMs: number[];
  notReadyMs: number[];
  timeouts: number;
}

/** Whether `pod`'s address is in any slice of its agent's Service. */
function inAnySlice(slices: WatchMap<V1EndpointSlice>, pod: FleetPod): boolean {
  // The WatchMap groups slices by their Service, which is the agent's name here.
  for (const s of slices.group(pod.agent).values()) {
    if ((s.endpoints ?? []).some((e) => e.addresses.includes(pod.ip))) return true;
  }
  return false;
}

export async function podWithdrawal(
  cluster: Cluster,
  namespace: string,
  pods: readonly FleetPod[],
  slices: WatchMap<V1EndpointSlice>,
  opts: { events: number; random: () => number; limitMs: number; log: (line: string) => void },
): Promise<Withdrawal> {
  const out: Withdrawal = { deletedMs: [], notReadyMs: [], timeouts: 0 };
  for (let n = 0; n < opts.events; n++) {
    const pod = pods[Math.floor(opts.random() * pods.length)]!;
    const kind = n % 2 === 0 ? 'deleted' : 'NotReady';
    try {
      await slices.until(`${pod.name} routed`, () => inAnySlice(slices, pod), opts.limitMs);
      const at = performance.now();
      if (kind === 'deleted') await deletePod(cluster, namespace, pod.name);
      else await setPodStatus(cluster, namespace, pod.name, { ip: pod.ip, ready: false });
      const gone = await slices.until(`${pod.name} withdrawn`, () => !inAnySlice(slices, pod), opts.limitMs);
      (kind === 'deleted' ? out.deletedMs : out.notReadyMs).push(gone - at);
      opts.log(
        `pod event ${n + 1}/${opts.events}: ${pod.name} ${kind}, withdrawn in ${(gone - at).toFixed(0)} ms`,
      );
    } catch (err) {
      out.timeouts++;
      opts.log(`pod event ${n + 1}: ${String(err)}`);
    } finally {
      // Restore, so the next event starts from a fully routed fleet.
      if (kind === 'deleted') {
        await waitGone(cluster, namespace, pod.name);
        await createPod(cluster, { namespace, name: pod.name, labels: { app: pod.agent }, ip: pod.ip }).catch(
          (err: unknown) => opts.log(`recreate ${pod.name}: ${String(err)}`),
        );
      } else {
        await setPodStatus(cluster, namespace, pod.name, { ip: pod.ip, ready: true }).catch(() => undefined);
      }
    }
  }
  return out;
}

/** A deleted Pod name can be reused once the object is gone (gracePeriodSeconds 0: at once). */
async function waitGone(cluster: Cluster, namespace: string, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const res = await cluster.kubectl([
      'get',
      'pod',
      name,
      '-n',
      namespace,
      '--ignore-not-found',
      '-o',
      'name',
    ]);
    if (res.stdout.trim() === '') return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
