/** Wire answers for the classifier tables: an HTTP answer, a JSON-RPC error, a google.rpc.ErrorInfo. */

export const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/** An HTTP answer as the classifiers receive it (a string body is sent as is, anything else as JSON). */
export const httpAnswer = (status: number, body: unknown, contentType = 'application/json') => ({
  status,
  contentType,
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

export const rpcError = (code: number, data?: unknown) => ({
  jsonrpc: '2.0',
  id: 'p',
  error: { code, message: 'm', ...(data === undefined ? {} : { data }) },
});

export const errorInfo = (reason: string, domain?: string) => ({
  '@type': ERROR_INFO,
  ...(domain ? { domain } : {}),
  reason,
});
