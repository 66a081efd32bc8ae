/**
 * Task continuity (`check --task-continuity`, `spec.probe.taskContinuity: Once`): do the
 * interfaces of one card share one task store (seeds/003: a task created over JSON-RPC must be
 * found over gRPC)? Sends one message over the first
 * verified interface (this creates a task on the agent: opt-in only), asks every other verified
 * interface for that task with GetTask (the probes' own request, with the real id), then
 * cancels the task where the agent allows it.
 */
import { Pool, fetch as undiciFetch } from 'undici';
import type { CardInterface, InterfaceEndpoint } from '../card/index.js';
import type { DialTarget } from '../probe/dial-target.js';
import type { ProbeResult } from '../probe/probe-result.js';
import type { Prober } from '../probe/prober.js';
import { checkIdentityFor, isIpLiteral, type TlsSettings } from '../probe/tls-settings.js';
import { ProtocolBinding } from '../card/index.js';
import { createInterfaceClient, type InterfaceClient } from './interface-client.js';
import type { Candidate } from './candidates.js';
import { displayText } from '../text/display-text.js';
import { textMessageRequest } from './text-message.js';

export const ContinuityResult = {
  /** GetTask over this interface found the task created over the origin. */
  TaskShared: 'TaskShared',
  /** GetTask over this interface answered TaskNotFound: another task store. */
  TaskNotShared: 'TaskNotShared',
  /** Neither: the answer (auth, error, timeout) proves nothing about the store. */
  TaskContinuityUnknown: 'TaskContinuityUnknown',
} as const;
export type ContinuityResult = (typeof ContinuityResult)[keyof typeof ContinuityResult];

export const CREATES_TASK_NOTE =
  'this check sent one message to the agent over the first verified interface, which may have created a task (cancelled where the agent allows it)';

export interface ContinuityInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  result: ContinuityResult;
  message: string;
}

export interface ContinuityReport {
  createsTask: true;
  note: string;
  origin?: { url: string; protocolBinding: string; protocolVersion: string };
  taskId?: string;
  /** Set when no task could be created: then no interface is judged. */
  problem?: string;
  interfaces: ContinuityInterface[];
  cancel: { result: 'Cancelled' | 'NotCancelable' | 'Failed' | 'NotAttempted'; message: string };
}

/** One interface's GetTask(task id) verdict → shared or not (pure). */
export function continuityOf(r: Pick<ProbeResult, 'state' | 'message' | 'evidence'>): {
  result: ContinuityResult;
  message: string;
} {
  const e = r.evidence;
  const notFound =
    e.jsonRpcCode === -32001 ||
    e.errorInfoReason === 'TASK_NOT_FOUND' ||
    e.grpcCode === 5 ||
    e.httpStatus === 404;
  if (r.state === 'Verified' && notFound) {
    return {
      result: ContinuityResult.TaskNotShared,
      message: `TaskNotFound for the task created over the origin: this interface uses another task store (${r.message})`,
    };
  }
  if (r.state === 'Verified') {
    return { result: ContinuityResult.TaskShared, message: 'GetTask found the task created over the origin' };
  }
  return { result: ContinuityResult.TaskContinuityUnknown, message: r.message };
}

export interface VerifiedInterface {
  iface: CardInterface;
  endpoint: InterfaceEndpoint;
  /** Where the check dials it (the pinned address, after --connect-to). */
  target: DialTarget;
}

export interface ContinuityInput {
  raw: Record<string, unknown>;
  /** Verified interfaces in card order; the first is the origin. */
  verified: VerifiedInterface[];
  prober: Prober;
  timeoutMs: number;
  /** Aborts the check (the operator's reconcile lost its lease): no message is sent after it. */
  signal?: AbortSignal;
  message: string;
  bearerToken?: string;
  tls?: TlsSettings;
}

/** `fetch` that connects to the pinned address whatever the URL names (Host and SNI keep the name). */
function pinnedFetch(
  v: VerifiedInterface,
  tls: TlsSettings | undefined,
): { fetch: typeof fetch; close: () => Promise<void> } {
  const host = v.target.address.includes(':') ? `[${v.target.address}]` : v.target.address;
  const insecure = tls?.insecureSkipVerify === true;
  const pool = new Pool(`${v.endpoint.tls ? 'https' : 'http'}://${host}:${v.target.port}`, {
    connect: v.endpoint.tls
      ? {
          servername: isIpLiteral(v.endpoint.host) ? undefined : v.endpoint.host,
          ca: tls?.ca,
          rejectUnauthorized: !insecure,
          checkServerIdentity: insecure ? () => undefined : checkIdentityFor(v.endpoint.host),
        }
      : {},
  });
  const f = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as string, { ...(init as object), dispatcher: pool })) as unknown as typeof fetch;
  return { fetch: f, close: () => pool.close() };
}

function originCandidate(v: VerifiedInterface): Candidate {
  const grpc = v.iface.protocolBinding === ProtocolBinding.GRPC;
  return {
    index: v.iface.index,
    url: v.iface.url,
    protocolBinding: v.iface.protocolBinding,
    protocolVersion: v.iface.protocolVersion,
    ...(v.iface.tenant ? { tenant: v.iface.tenant } : {}),
    declaredAt: v.iface.declaredAt,
    // gRPC dials its target from the endpoint: point it at the pinned address.
    endpoint: grpc ? { ...v.endpoint, host: v.target.address, port: v.target.port } : v.endpoint,
  };
}

function shown(err: unknown): string {
  return displayText(err instanceof Error ? err.message : String(err), 300);
}

function resultTaskId(result: unknown): string | undefined {
  const r = result as { id?: unknown; status?: unknown; taskId?: unknown } | undefined;
  if (typeof r?.id === 'string' && r.status !== undefined && r.id !== '') return r.id;
  return typeof r?.taskId === 'string' && r.taskId !== '' ? r.taskId : undefined;
}

export async function runTaskContinuity(input: ContinuityInput): Promise<ContinuityReport> {
  const base = { createsTask: true as const, note: CREATES_TASK_NOTE };
  const notAttempted = { result: 'NotAttempted' as const, message: 'no task to cancel' };
  const origin = input.verified[0];
  if (!origin) {
    return {
      ...base,
      problem: 'no verified interface to send the message over',
      interfaces: [],
      cancel: notAttempted,
    };
  }
  const originRef = {
    url: origin.iface.url,
    protocolBinding: origin.iface.protocolBinding,
    protocolVersion: origin.iface.protocolVersion,
  };
  const pinned = pinnedFetch(origin, input.tls);
  let opened: InterfaceClient | undefined;
  try {
    opened = await createInterfaceClient(input.raw, originCandidate(origin), {
      fetch: pinned.fetch,
      grpcCa: input.tls?.ca,
      diagnosisTimeoutMs: input.timeoutMs,
      bearerSent: input.bearerToken !== undefined,
    });
    const client = opened.client;
    const options = {
      signal: input.signal
        ? AbortSignal.any([input.signal, AbortSignal.timeout(input.timeoutMs)])
        : AbortSignal.timeout(input.timeoutMs),
      ...(input.bearerToken ? { serviceParameters: { authorization: `Bearer ${input.bearerToken}` } } : {}),
    };
    let taskId: string | undefined;
    try {
      options.signal.throwIfAborted();
      const result = await client.sendMessage(
        // Answered at once with the task: an agent whose task runs long does not hold the
        // check until it ends, and a task still working can be cancelled.
        textMessageRequest(input.message, {
          messageId: `a2a-operator-continuity-${Date.now()}`,
          returnImmediately: true,
        }),
        options,
      );
      taskId = resultTaskId(result);
    } catch (err) {
      return {
        ...base,
        origin: originRef,
        problem: `SendMessage failed: ${shown(err)}`,
        interfaces: [],
        cancel: notAttempted,
      };
    }
    if (!taskId) {
      return {
        ...base,
        origin: originRef,
        problem: 'the agent answered the message without a task id, so no task can be looked up elsewhere',
        interfaces: [],
        cancel: notAttempted,
      };
    }
    const interfaces = await Promise.all(
      input.verified.slice(1).map(async (v): Promise<ContinuityInterface> => {
        const r = await input.prober.probe(v.target, v.iface, {
          timeoutMs: input.timeoutMs,
          bearerToken: input.bearerToken,
          tls: input.tls,
          taskId,
        });
        return {
          url: v.iface.url,
          protocolBinding: v.iface.protocolBinding,
          protocolVersion: v.iface.protocolVersion,
          ...continuityOf(r),
        };
      }),
    );
    let cancel: ContinuityReport['cancel'];
    try {
      await client.cancelTask({ id: taskId, tenant: '', metadata: undefined } as never, options);
      cancel = { result: 'Cancelled', message: `task ${taskId} cancelled` };
    } catch (err) {
      const reason = (err as { reason?: unknown }).reason;
      cancel =
        reason === 'TASK_NOT_CANCELABLE'
          ? {
              result: 'NotCancelable',
              message: `the agent does not allow cancelling task ${taskId} (it may have finished)`,
            }
          : { result: 'Failed', message: `CancelTask failed: ${shown(err)}` };
    }
    return { ...base, origin: originRef, taskId, interfaces, cancel };
  } finally {
    opened?.close();
    await pinned.close().catch(() => undefined);
  }
}

/** Lines for the table output. */
export function renderContinuity(r: ContinuityReport): string {
  const lines = [``, `task continuity (${r.note}):`];
  if (r.origin)
    lines.push(
      `  origin ${r.origin.protocolBinding} ${r.origin.url}${r.taskId ? ` created task ${r.taskId}` : ''}`,
    );
  if (r.problem) lines.push(`  ${r.problem}`);
  for (const i of r.interfaces)
    lines.push(`  ${i.result.padEnd(22)} ${i.protocolBinding} ${i.url}: ${i.message}`);
  lines.push(`  cancel: ${r.cancel.result}: ${r.cancel.message}`);
  return `${lines.map((l) => displayText(l, 2000)).join('\n')}\n`;
}

/** One verdict for the whole card (the operator's TaskContinuity condition). */
export function continuitySummary(r: ContinuityReport): { result: ContinuityResult; message: string } {
  if (r.problem) return { result: ContinuityResult.TaskContinuityUnknown, message: r.problem };
  const not = r.interfaces.filter((i) => i.result === ContinuityResult.TaskNotShared);
  const unknown = r.interfaces.filter((i) => i.result === ContinuityResult.TaskContinuityUnknown);
  const origin = r.origin ? `${r.origin.protocolBinding} ${r.origin.url}` : 'the origin';
  const list = (xs: ContinuityInterface[]) => xs.map((i) => `${i.protocolBinding} ${i.url}`).join(', ');
  const cancel = `; cancel: ${r.cancel.result}`;
  if (not.length > 0) {
    return {
      result: ContinuityResult.TaskNotShared,
      message: `a task created over ${origin} is not found over ${list(not)}: those interfaces use another task store${cancel}`,
    };
  }
  if (unknown.length > 0 || r.interfaces.length === 0) {
    return {
      result: ContinuityResult.TaskContinuityUnknown,
      message: `not proven over ${list(unknown) || 'any other interface'}: ${unknown[0]?.message ?? 'no other verified interface'}${cancel}`,
    };
  }
  return {
    result: ContinuityResult.TaskShared,
    message: `a task created over ${origin} is found over ${list(r.interfaces)}${cancel}`,
  };
}
