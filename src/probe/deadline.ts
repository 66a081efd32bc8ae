/**
 * Bounds an operation by wall-clock time even where the library does not honour an abort
 * signal at every stage (undici keeps a TLS handshake to a silent peer until its connect
 * timeout). The late outcome is consumed so it cannot surface as an unhandled rejection.
 */
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
