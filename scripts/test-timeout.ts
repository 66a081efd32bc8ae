/**
 * How long a test may run before node's runner fails it (`--test-timeout`), for `npm test`, the
 * fault suite and the e2e tests: a regression that hangs (a stalled read, a wait that never
 * ends) then fails with its name and the logs kept, instead of holding CI until CI's own limit
 * and leaving no summary. Node 20 times each test file as a whole (process isolation), Node 22
 * and later each top-level test, so the bound is set for the longest file on a loaded machine
 * with room: the longest integration file took under 5 minutes on a loaded machine (chart
 * monitoring, with a cold helm build inside it), and the fault suite's long profile (A2A_FAULTS_FULL=1) runs some files 2-4 times
 * the CI profile's rounds. A2A_TEST_TIMEOUT_MS sets another bound (milliseconds, 0 for none).
 */
export const DEFAULT_TEST_TIMEOUT_MS = 30 * 60_000;

/** The runner's `--test-timeout=…` argument, or none when A2A_TEST_TIMEOUT_MS is 0. */
export function testTimeoutArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env.A2A_TEST_TIMEOUT_MS;
  const ms = raw === undefined || raw === '' ? DEFAULT_TEST_TIMEOUT_MS : Number(raw);
  if (!Number.isInteger(ms) || ms < 0)
    throw new Error(
      `A2A_TEST_TIMEOUT_MS=${JSON.stringify(raw)}: expected milliseconds (an integer, 0 for no bound)`,
    );
  return ms === 0 ? [] : [`--test-timeout=${ms}`];
}
