import type { Priority } from './workqueue.js';

/**
 * Error classes that decide behaviour. Callers branch on the class and on HTTP status, never
 * on message text (STYLE rule 8/9).
 */

/**
 * A reconcile error that retrying cannot fix (a spec problem that needs a person). The
 * controller engine records it and does not back off; the next change to the object enqueues
 * it again. Mirrors controller-runtime's `reconcile.TerminalError`, with one addition:
 * `revisit` schedules one visit as a successful reconcile's `requeueAfterMs` would, for a
 * reconciler whose work is more than the refused write: the operator's probes must go on
 * while one object is refused, or a break found meanwhile would never be withdrawn.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  readonly revisit: { afterMs: number; priority: Priority } | undefined;
  constructor(
    message: string,
    options?: { cause?: unknown; revisit?: { afterMs: number; priority: Priority } },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.revisit = options?.revisit;
  }
}

export function isTerminalError(err: unknown): err is TerminalError {
  return err instanceof TerminalError;
}

/**
 * A write this replica refused to send because it may no longer hold the leader Lease (it was
 * paused or cut off past its renew deadline, and a standby may lead now). Nothing was sent.
 */
export class NotLeaderError extends Error {
  override readonly name = 'NotLeaderError';
  readonly code = 'ERR_NOT_LEADER';
}

export const isNotLeader = (err: unknown): boolean => err instanceof NotLeaderError;

/**
 * No usable kubeconfig: the file cannot be read or parsed, or it names no current cluster. A
 * person must fix the configuration; the message names the file and what was wrong.
 */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
  readonly code = 'ERR_KUBECONFIG';
}

/** The `reason` field of a Kubernetes `Status` (metav1.StatusReason), e.g. `Conflict`. */
export type StatusReason = string;

/**
 * A non-2xx answer from the API server. `status` is the HTTP status, `reason` the Status
 * object's machine-readable reason when the server sent one.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly reason: StatusReason,
    message: string,
    /** `METHOD path`, for logs. */
    readonly request: string,
  ) {
    super(message);
  }
}

function statusOf(err: unknown): number | undefined {
  return err instanceof ApiError ? err.status : undefined;
}

/** 409: optimistic-concurrency conflict (stale resourceVersion) or AlreadyExists. */
export const isConflict = (err: unknown): boolean => statusOf(err) === 409;
export const isNotFound = (err: unknown): boolean => statusOf(err) === 404;
export const isForbidden = (err: unknown): boolean => statusOf(err) === 403;
/** 410: the requested resourceVersion was compacted away; the caller must relist. */
export const isGone = (err: unknown): boolean => statusOf(err) === 410;
export const isAlreadyExists = (err: unknown): boolean =>
  err instanceof ApiError && err.status === 409 && err.reason === 'AlreadyExists';

/**
 * How a reconcile error is retried, as Flux classifies them:
 *
 * | class       | meaning                                           | queue                         |
 * |-------------|---------------------------------------------------|-------------------------------|
 * | `stalling`  | the API refused the object we built (422, 400, 413): retrying the write alone cannot help | no backoff (`TerminalError`); its revisit keeps the probes' schedule |
 * | `waiting`   | something outside the object must change (RBAC 403, a Secret's content, which is not watched) | requeue when the probes are due (at most a period) |
 * | `transient` | anything else: 409 stale write, 429, 5xx, network, timeouts | per-key exponential backoff |
 */
export type ErrorClass = 'stalling' | 'waiting' | 'transient';

export interface ClassifiedError {
  class: ErrorClass;
  /** Stable condition reason (API: never changes meaning). */
  reason: 'Invalid' | 'Forbidden' | 'ApplyFailed' | string;
}

export function classifyError(err: unknown): ClassifiedError {
  if (isTerminalError(err)) return { class: 'stalling', reason: 'Invalid' };
  if (err instanceof ApiError) {
    if (err.status === 422 || err.status === 400 || err.status === 413)
      return { class: 'stalling', reason: 'Invalid' };
    if (err.status === 403) return { class: 'waiting', reason: 'Forbidden' };
    return { class: 'transient', reason: 'ApplyFailed' };
  }
  // Domain errors name their own reason (e.g. SigningKeyInvalid): a key read from a Secret,
  // which the operator does not watch, so the fix is seen at the next period.
  if (err instanceof Error && !isNotLeader(err)) {
    const reason = (err as { reason?: unknown }).reason;
    if (typeof reason === 'string' && /^[A-Z][A-Za-z]{1,63}$/.test(reason))
      return { class: 'waiting', reason };
  }
  return { class: 'transient', reason: 'ApplyFailed' };
}
