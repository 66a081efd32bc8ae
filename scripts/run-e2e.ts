// `npm run test:e2e`: the end-to-end tests (test/e2e/*.test.ts) on ONE real single-node cluster
// (test/harness/real-cluster), started here once, handed to every test file through
// A2A_E2E_CLUSTER (test/e2e/fixture.ts reads it), and torn down at the end, whatever the tests
// did, also on Ctrl-C/SIGTERM. Extra arguments select files. Prints how long each phase took.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startRealCluster, type RealCluster } from '../test/harness/real-cluster/cluster.js';
import { describeForTests } from '../test/e2e/cluster-handle.js';
import { startChildrenInOwnGroups } from '../test/harness/process.js';
import { testTimeoutArgs } from './test-timeout.js';

// The cluster's processes get process groups of their own: a Ctrl-C reaches the tests and this
// runner, which then stops the cluster in order.
startChildrenInOwnGroups();

const log = (line: string): void => console.log(`[e2e] ${line}`);
const selected = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files =
  selected.length > 0
    ? selected
    : readdirSync('test/e2e')
        .filter((n) => n.endsWith('.test.ts'))
        .sort()
        .map((n) => join('test/e2e', n));
const timeoutArgs = testTimeoutArgs(); // before the cluster starts: a bad A2A_TEST_TIMEOUT_MS stops here

let cluster: RealCluster | undefined;
let child: ReturnType<typeof spawn> | undefined;
let stopping = false;
const onSignal = (signal: NodeJS.Signals): void => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping the tests, then the cluster`);
  child?.kill('SIGTERM');
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

let code = 1;
const t0 = Date.now();
const secs = (from: number): string => `${((Date.now() - from) / 1000).toFixed(1)}s`;
try {
  cluster = await startRealCluster({ log });
  log(`phase cluster up: ${secs(t0)}`);
  if (!stopping) {
    const t1 = Date.now();
    const args = ['--import', 'tsx', '--test', '--test-concurrency=1', ...timeoutArgs, ...files];
    child = spawn(process.execPath, args, {
      stdio: 'inherit',
      env: { ...process.env, A2A_E2E_CLUSTER: describeForTests(cluster) },
    });
    code = await new Promise<number>((resolve) => child?.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
    log(`phase tests: ${secs(t1)} (exit ${code})`);
  }
} catch (err) {
  process.stderr.write(`e2e: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  code = 1;
} finally {
  const t2 = Date.now();
  try {
    await cluster?.stop();
  } catch (err) {
    process.stderr.write(`e2e teardown: ${err instanceof Error ? err.message : String(err)}\n`);
    code = 1;
  }
  log(`phase teardown: ${secs(t2)}; total ${secs(t0)}`);
}
process.exit(code);
