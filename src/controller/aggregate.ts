/**
 * Per-interface aggregation over pods: one status entry per declared interface, with the pods
 * it is verified on and, when it is not, the most common failure with its evidence. Messages
 * name at most a few pods so status stays a few KiB however many pods there are.
 */
import { InterfaceState } from '../api/conditions.js';
import type { CardInterface } from '../card/index.js';
import { clipText, displayText } from '../text/display-text.js';
import { displayUrl } from '../text/display-url.js';
import { redactUrlCredentials } from '../text/redact-credentials.js';
import { interfaceKey, type InterfaceVerdict, type PodObservation } from '../observation/observed.js';

const MAX_PODS_NAMED = 3;
const PENDING: InterfaceVerdict = {
  state: InterfaceState.Pending,
  reason: 'ProbePending',
  message: 'not probed yet',
  failures: 0,
  confirmed: false,
};
const MAX_MESSAGE = 512;

export interface AggregatedInterface {
  iface: CardInterface;
  key: string;
  state: InterfaceState;
  /** Pods verifying it / pods whose card declares it. */
  verified: number;
  declaredOn: number;
  message: string;
  /** Every pod's failure is confirmed (or static); nothing left to find out. */
  settled: boolean;
  pending: boolean;
}

export function namePods(names: readonly string[]): string {
  const shown = names.slice(0, MAX_PODS_NAMED).join(', ');
  return names.length > MAX_PODS_NAMED ? `${shown} and ${names.length - MAX_PODS_NAMED} more` : shown;
}

/**
 * A status, gate or Event message: control and bidi characters escaped, then cut to `max`. Its
 * parts quote cards and answers; escaping here as well as where they are quoted means no path
 * into status or an Event can carry a raw control character (escaping is idempotent).
 */
export function clip(message: string, max = MAX_MESSAGE): string {
  return displayText(message, max);
}

/**
 * A verdict message without the interface it is about. Probe and mapping messages start by
 * naming the interface (`GRPC v1.0 http://h:9090 (dialled 10.0.0.5:9090): …`, `GRPC http://h:9090: …`)
 * because they are also read alone (logs, `a2a-operator check`); status and conditions name
 * binding, URL and version once, so here only the evidence is kept. The dialled pod address
 * differs per pod and status names pods by name: only its port stays.
 */
export function interfaceEvidence(
  iface: Pick<CardInterface, 'url' | 'protocolBinding' | 'protocolVersion'>,
  message: string,
): string {
  const url = displayUrl(iface.url);
  const prefixes = [
    `${iface.protocolBinding} v${iface.protocolVersion} ${url}`,
    `${clipText(iface.protocolBinding, 64)} ${clipText(redactUrlCredentials(iface.url), 160)}`,
    `${iface.protocolBinding} ${url}`,
  ];
  for (const prefix of prefixes) {
    if (!message.startsWith(prefix)) continue;
    let rest = message.slice(prefix.length);
    let port = '';
    const dialled = /^ \(dialled [^)]*?:(\d+)\)/.exec(rest);
    if (dialled) {
      port = `pod port ${dialled[1]}: `;
      rest = rest.slice(dialled[0].length);
    }
    if (rest.startsWith(': ')) return `${port}${rest.slice(2)}`;
  }
  return message;
}

export function aggregateInterface(
  iface: CardInterface,
  key: string,
  pods: readonly PodObservation[],
): AggregatedInterface {
  // Pods whose card declares the interface; one not probed yet counts as Pending, never as absent.
  const on = pods.filter((p) => p.card?.ok && p.card.card.interfaces.some((i) => interfaceKey(i) === key));
  const verdicts = on.map((p) => ({ pod: p.pod.name, v: p.verdicts.get(key) ?? PENDING }));
  const verified = verdicts.filter((x) => x.v.state === InterfaceState.Verified);
  const failing = verdicts.filter((x) => x.v.state !== InterfaceState.Verified);
  const pending = verdicts.some((x) => x.v.state === InterfaceState.Pending);
  const settled = failing.every((x) => x.v.confirmed);
  if (on.length === 0) {
    return {
      iface,
      key,
      state: InterfaceState.Pending,
      verified: 0,
      declaredOn: 0,
      message: 'not probed yet',
      settled: false,
      pending: true,
    };
  }
  if (failing.length === 0) {
    const pendingFlap = verified.filter((x) => x.v.pendingFailure);
    const served = verified[0] ? interfaceEvidence(iface, verified[0].v.message) : 'TaskNotFound';
    let message = `answered as served (${served}) on ${verified.length}/${on.length} pods`;
    if (pendingFlap.length > 0) {
      const f = pendingFlap[0]!;
      message += `; confirming a failure on ${namePods(pendingFlap.map((x) => x.pod))} (${f.v.failures} so far: ${interfaceEvidence(iface, f.v.pendingFailure?.message ?? '')})`;
    }
    return {
      iface,
      key,
      state: InterfaceState.Verified,
      verified: verified.length,
      declaredOn: on.length,
      message: clip(message),
      settled: true,
      pending: false,
    };
  }
  // The most common failure state; ties go to the first pod in order.
  const counts = new Map<InterfaceState, number>();
  for (const f of failing) counts.set(f.v.state, (counts.get(f.v.state) ?? 0) + 1);
  let top = failing[0]!.v.state;
  for (const [state, n] of counts) if (n > (counts.get(top) ?? 0)) top = state;
  const same = failing.filter((f) => f.v.state === top);
  let message = `${interfaceEvidence(iface, same[0]!.v.message)} on ${same.length}/${on.length} pods (${namePods(same.map((f) => f.pod))})`;
  const others = failing.filter((f) => f.v.state !== top);
  if (others.length > 0) {
    message += `; ${others[0]!.v.state} on ${namePods(others.map((f) => f.pod))}`;
  }
  if (verified.length > 0) message += `; verified on ${namePods(verified.map((x) => x.pod))}`;
  return {
    iface,
    key,
    state: top,
    verified: verified.length,
    declaredOn: on.length,
    message: clip(message),
    settled,
    pending,
  };
}
