/**
 * A verdict as it leaves the prober: nothing in it changes from one probe to the next unless
 * the answer did (the random task id is a placeholder), and no URL credential it quotes is shown.
 */
import { redactCredentials } from '../text/redact-credentials.js';
import type { Verdict } from './probe-result.js';

export const TASK_ID_PLACEHOLDER = '<task-id>';

/**
 * The verdict with the probe's random task id (echoed back in an error, or in the REST request
 * path) replaced by a fixed placeholder: otherwise the message, hence status and the readiness
 * gate, would change on every probe although nothing did.
 */
export function withoutTaskId(v: Verdict, taskId: string): Verdict {
  return rewritten(v, (t) => t.replaceAll(taskId, TASK_ID_PLACEHOLDER));
}

/**
 * The verdict with URL credentials redacted wherever it quotes the request (`POST /a2a?token=…
 * GetTask`, the card URL's query is sent as is) or the server's words: status and Events are
 * read by many.
 */
export function withoutUrlCredentials(v: Verdict): Verdict {
  return rewritten(v, redactCredentials);
}

/** Both of the above: the form every probe verdict is reported in. */
export function settledVerdict(v: Verdict, taskId: string): Verdict {
  return withoutUrlCredentials(withoutTaskId(v, taskId));
}

/**
 * `rewrite` applied to the message and the quoted evidence (request, detail); the verdict itself
 * when that changes nothing, as on nearly every probe (no copy per probe).
 */
function rewritten(v: Verdict, rewrite: (text: string) => string): Verdict {
  const { request, detail } = v.evidence;
  const message = rewrite(v.message);
  const newRequest = request === undefined ? undefined : rewrite(request);
  const newDetail = detail === undefined ? undefined : rewrite(detail);
  if (message === v.message && newRequest === request && newDetail === detail) return v;
  const evidence = { ...v.evidence };
  if (newRequest !== undefined) evidence.request = newRequest;
  if (newDetail !== undefined) evidence.detail = newDetail;
  return { ...v, message, evidence };
}
