/**
 * Bounds an operation by wall-clock time even where the library does not honour an abort
 * signal at every stage (undici keeps a TLS handshake to a silent peer until its connect
 * timeout). The late outcome is consumed so it cannot surface as an unhandled rejection.
 */
import { setMaxListeners } from 'node:events';

export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  readonly code = 'ERR_PROBE_TIMEOUT';
}

export function withDeadline<T>(operation: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`no answer within ${ms} ms`)), ms);
  });
  operation.catch(() => undefined);
  return Promise.race([operation, deadline]).finally(() => clearTimeout(timer));
}

/** Raised by `untilAborted` when the caller's signal aborts first. */
export class ProbeAbortedError extends Error {
  override readonly name = 'ProbeAbortedError';
  readonly code = 'ERR_PROBE_ABORTED';
}

/**
 * The operation, or a ProbeAbortedError as soon as `signal` aborts: the caller is answered at
 * once even where a library stage does not watch the signal (the operation is still cut by
 * whatever signal it was given; its late outcome is consumed).
 */
export function untilAborted<T>(operation: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return operation;
  if (signal.aborted) {
    operation.catch(() => undefined);
    return Promise.reject(new ProbeAbortedError('aborted'));
  }
  // One promise, not a race of two: this wraps every probe. A late outcome after the abort
  // lands on a settled promise (consumed, never an unhandled rejection).
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ProbeAbortedError('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    operation.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}

/** A signal that aborts after `ms` or with `parent`, and a cancel() for when the work is done. */
export interface CancellableDeadline {
  signal: AbortSignal;
  cancel(): void;
}

/**
 * `AbortSignal.any([AbortSignal.timeout(ms), parent])` that can be cancelled: the timeout
 * signal of the standard form lives (with everything listening on it) until its timer fires, so
 * every probe's signals survived young-generation collections and filled the old generation
 * (docs/benchmarks.md); cancel() lets them go when the work ends. The reasons are the standard
 * ones: a TimeoutError DOMException, or the parent's reason.
 */
export function cancellableDeadline(ms: number, parent?: AbortSignal): CancellableDeadline {
  const ac = new AbortController();
  if (parent?.aborted) {
    ac.abort(parent.reason);
    return { signal: ac.signal, cancel: () => undefined };
  }
  const timer = setTimeout(
    () => ac.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  // Like AbortSignal.timeout: a pending deadline never keeps the process alive.
  timer.unref();
  const onAbort = () => {
    clearTimeout(timer);
    ac.abort(parent!.reason);
  };
  parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ac.signal,
    cancel() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}

interface SharedEntry {
  deadline: CancellableDeadline;
  users: number;
}

/**
 * One `cancellableDeadline` for every operation that ends at the same instant under the same
 * parent: the probes of one reconcile share their hard stop (the reconcile's `notAfter` plus the
 * probe timeout), so a probe no longer makes its own AbortController, timer and parent listener
 * (an operator-only cost per probe the bench's bare loop never had, docs/benchmarks.md). The
 * shared deadline is cancelled when its last user releases it; one that fired stays aborted for
 * the users still holding it, as theirs would have.
 */
export class SharedDeadlines {
  private readonly byParent = new WeakMap<AbortSignal, Map<number, SharedEntry>>();
  private readonly unparented = new Map<number, SharedEntry>();

  /** A signal that aborts at epoch ms `at` or with `parent`; call release() when the work is done. */
  acquire(at: number, parent?: AbortSignal): { signal: AbortSignal; release(): void } {
    let entries = parent ? this.byParent.get(parent) : this.unparented;
    if (!entries) {
      entries = new Map();
      this.byParent.set(parent!, entries);
    }
    let entry = entries.get(at);
    if (!entry) {
      const deadline = cancellableDeadline(Math.max(0, at - Date.now()), parent);
      // Every probe in flight under it listens: as many as the prober's concurrency allows.
      setMaxListeners(0, deadline.signal);
      entry = { deadline, users: 0 };
      entries.set(at, entry);
    }
    entry.users++;
    const held = entry;
    const map = entries;
    let released = false;
    return {
      signal: held.deadline.signal,
      release: () => {
        if (released) return;
        released = true;
        if (--held.users > 0) return;
        held.deadline.cancel();
        // An entry leaves the map only here, with no users: none can have replaced it.
        map.delete(at);
      },
    };
  }
}
