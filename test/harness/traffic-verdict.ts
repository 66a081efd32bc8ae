/**
 * The verdict on each call of the traffic client (test/agents/traffic-client.ts) against what the
 * test recorded about its pods, for test/e2e/traffic.test.ts. Pure: the calls and the pods'
 * transitions in, verdicts and counts out.
 *
 * A broken interface (its server stopped) refuses connections, so a call that reaches a broken
 * pod fails and cannot say which pod it reached (kube-proxy's DNAT hides the backend). A failed
 * call on a churned binding is therefore judged against every pod that could have caused it:
 * the pods whose interface was down at some instant of the call [t0, t1].
 *   - excused: one of them was up at some instant of [tc - D, t1] (tc: when the client fetched
 *     the card it followed), i.e. broken for less than the detection bound D: the operator may
 *     still route and advertise it;
 *   - violation: every one of them was down throughout [tc - D, t1]: whichever pod the call
 *     reached had been broken for longer than D and was still routed (or advertised);
 *   - unexplained: none was down: a failure no break explains (so is any failure of a binding
 *     that is never broken).
 * An answered call names its pod (the agents answer with their pod's name).
 */
import type { Transitions } from './routing-observer.js';

/** One `{"kind":"call"}` line of the traffic client. */
export interface ClientCall {
  binding: string;
  /** When the card the call followed was fetched. */
  tc: number;
  t0: number;
  t1: number;
  /** The pod that answered; absent when the call failed. */
  pod?: string;
  cause?: string;
  error?: string;
}

export type CallVerdict =
  | { kind: 'answered'; pod: string }
  | { kind: 'excused'; pods: string[] }
  | { kind: 'violation'; pods: string[] }
  | { kind: 'unexplained' };

export interface JudgeOptions {
  /** Per pod address: serving the churned binding (recorded on the safe side by the test). */
  history: Transitions;
  /** The pods' addresses. */
  addresses: string[];
  /** Bindings the test breaks; a failure of any other is unexplained. */
  churned: string[];
  /** Detection bound D in milliseconds. */
  boundMs: number;
}

export function judgeCall(call: ClientCall, opts: JudgeOptions): CallVerdict {
  if (call.pod !== undefined) return { kind: 'answered', pod: call.pod };
  if (!opts.churned.includes(call.binding)) return { kind: 'unexplained' };
  const suspects = opts.addresses.filter((ip) => opts.history.downDuring(ip, call.t0, call.t1));
  if (suspects.length === 0) return { kind: 'unexplained' };
  const from = Math.min(call.tc, call.t0) - opts.boundMs;
  const fresh = suspects.filter((ip) => opts.history.upDuring(ip, from, call.t1));
  return fresh.length > 0 ? { kind: 'excused', pods: fresh } : { kind: 'violation', pods: suspects };
}

export interface BindingTally {
  calls: number;
  /** Answers per pod name. */
  answeredBy: Record<string, number>;
  /** Failures per cause (the client's classification: refused, reset, timeout, ...). */
  failures: Record<string, number>;
  excused: number;
  violations: number;
  unexplained: number;
}

/** Per binding, what the calls came to. */
export function tallyCalls(calls: ClientCall[], opts: JudgeOptions): Record<string, BindingTally> {
  const out: Record<string, BindingTally> = {};
  for (const call of calls) {
    const t = (out[call.binding] ??= {
      calls: 0,
      answeredBy: {},
      failures: {},
      excused: 0,
      violations: 0,
      unexplained: 0,
    });
    t.calls++;
    const v = judgeCall(call, opts);
    if (v.kind === 'answered') t.answeredBy[v.pod] = (t.answeredBy[v.pod] ?? 0) + 1;
    else {
      const cause = call.cause ?? 'other';
      t.failures[cause] = (t.failures[cause] ?? 0) + 1;
      if (v.kind === 'excused') t.excused++;
      else if (v.kind === 'violation') t.violations++;
      else t.unexplained++;
    }
  }
  return out;
}
