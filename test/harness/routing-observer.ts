/**
 * An outside watcher of the operator's routing (docs/routing.md), shared by the routing invariant test
 * and the fault suite: it reads the operator's EndpointSlices and advertised-card ConfigMaps of
 * a namespace with kubectl, as a client of the cluster would, and checks every observation
 * against what the test recorded about its pods (present and ready; serving gRPC).
 */
import * as k8s from '@kubernetes/client-node';
import type { Cluster } from './cluster.js';
import { repeat } from './repeat.js';

/** Per pod address, [time, up] transitions, recorded on the safe side by whoever changes them. */
export class Transitions {
  private readonly h = new Map<string, [number, boolean][]>();

  set(ip: string, up: boolean, at = Date.now()): void {
    const list = this.h.get(ip) ?? [];
    list.push([at, up]);
    this.h.set(ip, list);
  }

  isUp(ip: string): boolean {
    return this.h.get(ip)?.at(-1)?.[1] ?? false;
  }

  /** Whether the address was up at any instant of [from, to]. */
  upDuring(ip: string, from: number, to: number): boolean {
    let state = false;
    for (const [t, up] of this.h.get(ip) ?? []) {
      if (t > to) break;
      if (t <= from) state = up;
      else if (up) return true;
    }
    return state;
  }

  /** Whether the address was down at any instant of [from, to]. */
  downDuring(ip: string, from: number, to: number): boolean {
    let state = false;
    for (const [t, up] of this.h.get(ip) ?? []) {
      if (t > to) break;
      if (t <= from) state = up;
      else if (!up) return true;
    }
    return !state;
  }

  /** The address's transitions since `from`, relative to `to` (for a violation's message). */
  describe(ip: string, from: number, to: number): string {
    const list = this.h.get(ip) ?? [];
    const shown = list.filter(([t]) => t >= from && t <= to);
    const before = list.filter(([t]) => t < from).at(-1);
    const fmt = ([t, up]: [number, boolean]) => `${up ? 'up' : 'down'}@${t - to}ms`;
    return [...(before ? [fmt(before)] : []), ...shown.map(fmt)].join(' ');
  }
}

/**
 * Whether the card and the slices disagree for too long. The card (a ConfigMap) and the slices
 * are separate objects written one after the other (make before break), and read by separate
 * list calls: an observation can fall between the two writes, and at dozens of observations a
 * second several in a row can. A disagreement is a violation once it has lasted `boundMs` (the
 * time a reconcile's writes may take), whatever the observation rate; reported once per episode.
 */
export class Disagreement {
  private since: number | undefined;
  private reported = false;

  constructor(private readonly boundMs: number) {}

  /** Records one observation at `at`; true the first time a disagreement has lasted boundMs. */
  persists(at: number, disagrees: boolean): boolean {
    if (!disagrees) {
      this.since = undefined;
      this.reported = false;
      return false;
    }
    this.since ??= at;
    if (this.reported || at - this.since < this.boundMs) return false;
    this.reported = true;
    return true;
  }

  /** Since when the current disagreement lasts (ms before `at`), for the message. */
  age(at: number): number {
    return this.since === undefined ? 0 : at - this.since;
  }
}

/** Pause between two observations: frequent enough to catch a short window, light on the API server. */
export const OBSERVE_EVERY_MS = 25;

export interface OwnedSlice {
  service: string;
  port: string;
  ips: string[];
}

export interface RoutingView {
  at: number;
  /** Addresses the `service`'s grpc / http ports route to, sorted. */
  grpc: string[];
  http: string[];
  /** The bindings the `card` ConfigMap's card lists, in card order (none without a card). */
  cardBindings: string[];
  /** Whether they include GRPC. */
  cardHasGrpc: boolean;
  /** Every slice of the operator in the namespace, whichever agent or Service. */
  slices: OwnedSlice[];
  /** Card ConfigMaps present, by name. */
  cards: string[];
}

/** An EndpointSlice or ConfigMap of the operator, as the list returns it (the fields read here). */
export interface OwnedItem {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  ports?: { name: string }[];
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[];
  data?: Record<string, string>;
}

const MANAGED = 'app.kubernetes.io/managed-by=a2a-operator';

/**
 * The operator's EndpointSlices and ConfigMaps in `ns`: two list calls, as `kubectl get
 * endpointslices,configmaps -l …` makes, but in process. A kubectl process costs ~50 ms of CPU
 * (/usr/bin/time): at ~20 observations a second it took about one of the machine's two cores
 * from the operator under test.
 */
export async function listOwned(cluster: Pick<Cluster, 'kc'>, ns: string): Promise<OwnedItem[]> {
  const [slices, maps] = await Promise.all([
    cluster.kc
      .makeApiClient(k8s.DiscoveryV1Api)
      .listNamespacedEndpointSlice({ namespace: ns, labelSelector: MANAGED }),
    cluster.kc
      .makeApiClient(k8s.CoreV1Api)
      .listNamespacedConfigMap({ namespace: ns, labelSelector: MANAGED }),
  ]);
  return [
    ...slices.items.map((i) => ({ ...i, kind: 'EndpointSlice' }) as OwnedItem),
    ...maps.items.map((i) => ({ ...i, kind: 'ConfigMap' }) as OwnedItem),
  ];
}

/** The operator's objects in `ns`; `service` picks the Service whose ports fill grpc/http, `agent` the card. */
export async function observeOwnedRouting(
  cluster: Cluster,
  ns: string,
  service: string,
  agent = service,
): Promise<RoutingView> {
  const at = Date.now();
  const items = await listOwned(cluster, ns);
  const slices = items
    .filter((i) => i.kind === 'EndpointSlice')
    .map((i) => ({
      service: i.metadata.labels?.['kubernetes.io/service-name'] ?? '',
      port: i.ports?.[0]?.name ?? '',
      ips: (i.endpoints ?? []).map((e) => e.addresses[0]!),
    }));
  const ips = (port: string) =>
    slices
      .filter((x) => x.service === service && x.port === port)
      .flatMap((x) => x.ips)
      .sort();
  const cm = items.find((i) => i.kind === 'ConfigMap' && i.metadata.name === `${agent}-agent-card`);
  const card = cm?.data?.['agent-card.json']
    ? (JSON.parse(cm.data['agent-card.json']) as { supportedInterfaces: { protocolBinding: string }[] })
    : undefined;
  const cardBindings = card?.supportedInterfaces.map((i) => i.protocolBinding) ?? [];
  return {
    at,
    grpc: ips('grpc'),
    http: ips('http'),
    cardBindings,
    cardHasGrpc: cardBindings.includes('GRPC'),
    slices,
    cards: items.filter((i) => i.kind === 'ConfigMap').map((i) => i.metadata.name),
  };
}

export interface LifecycleWatchOptions {
  cluster: Cluster;
  ns: string;
  /** Per address: present and ready. */
  presence: Transitions;
  /** Per address: serving gRPC. */
  grpc: Transitions;
  /** Detection bound: how long an address may stay routed after it stopped qualifying. */
  boundMs: number;
  /**
   * While it returns a Service name and a count, that Service's ports must keep routing to that
   * many pods, and the gRPC check is off (a restart under a one-probe blip withdraws nothing:
   * its bound is failureThreshold's, not `boundMs`).
   */
  mustKeep?: () => { service: string; pods: number } | undefined;
}

export interface LifecycleWatch {
  /** Stops watching; resolves to what it saw. */
  stop(): Promise<{ violations: string[]; observations: number }>;
}

/**
 * Watches until stopped: at every observation, every address in any slice of the operator
 * belongs to a pod that was present and ready, and every gRPC-routed address served gRPC, at
 * some instant of the last `boundMs`.
 */
export function watchLifecycle(opts: LifecycleWatchOptions): LifecycleWatch {
  const violations: string[] = [];
  let observations = 0;
  const loop = repeat(async () => {
    const keep = opts.mustKeep?.();
    await new Promise((r) => setTimeout(r, OBSERVE_EVERY_MS));
    const o = await observeOwnedRouting(opts.cluster, opts.ns, keep?.service ?? '').catch(() => undefined);
    if (!o) return;
    observations++;
    const from = o.at - opts.boundMs;
    for (const x of o.slices) {
      for (const ip of x.ips) {
        if (!opts.presence.upDuring(ip, from, o.at))
          violations.push(
            `${o.at}: ${ip} in ${x.service}/${x.port} but gone or NotReady for ${opts.boundMs}ms`,
          );
        if (x.port === 'grpc' && !keep && !opts.grpc.upDuring(ip, from, o.at))
          violations.push(`${o.at}: ${ip} routed for gRPC in ${x.service} but down for ${opts.boundMs}ms`);
      }
    }
    if (keep && (o.grpc.length !== keep.pods || o.http.length !== keep.pods))
      violations.push(`${o.at}: restart blip withdrew: grpc ${o.grpc.join(',')} http ${o.http.join(',')}`);
  });
  return {
    async stop() {
      await loop.stop();
      return { violations, observations };
    },
  };
}
