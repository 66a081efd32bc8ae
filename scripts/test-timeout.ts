/**
 * How long a test may run before node's runner fails it (`--test-timeout`), for `npm test`, the
 * fault suite and the e2e tests: a regression that hangs (a stalled read, a wait that never
 * ends) then fails and the run goes on, with the logs kept, instead of holding CI until CI's own
 * limit with no summary. Node 20 times each test file as a whole (process isolation) and
 * reports the file as cancelled; Node 24 times each test and hook, and names the test. With
 * `--test-force-exit` a file whose timed-out test left a timer or socket behind still ends
 * (Node 24 would otherwise wait on it forever). The bound is set for the longest file on a
 * loaded machine with room: the longest integration file took under 5 minutes beside another
 * CI run (chart monitoring, helm then built inside it), and the fault suite's long profile
 * (A2A_FAULTS_FULL=1) runs some files 2-4 times the CI profile's rounds. A2A_TEST_TIMEOUT_MS
 * sets another bound (milliseconds, 0 for none).
 */
export const DEFAULT_TEST_TIMEOUT_MS = 30 * 60_000;

/** The largest timer node accepts (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The runner's arguments for the bound, or none when A2A_TEST_TIMEOUT_MS is 0. */
export function testTimeoutArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env.A2A_TEST_TIMEOUT_MS;
  const ms =
    raw === undefined || raw === '' ? DEFAULT_TEST_TIMEOUT_MS : /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!(ms >= 0 && ms <= MAX_TIMEOUT_MS))
    throw new Error(
      `A2A_TEST_TIMEOUT_MS=${JSON.stringify(raw)}: expected milliseconds (digits, at most ${MAX_TIMEOUT_MS}; 0 for no bound)`,
    );
  return ms === 0 ? [] : [`--test-timeout=${ms}`, '--test-force-exit'];
}
