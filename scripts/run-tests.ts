// `npm test`: runs every test file under test/ with node's built-in test runner.
//
// Integration tests share one control plane: this script starts it once (test/harness),
// hands its kubeconfig to every test process through A2A_TEST_KUBECONFIG, and stops it at
// the end. `--unit` runs only test/unit; extra arguments select files or folders.
//
// Every temporary file of the run (operator and agent logs, kubeconfigs, the control plane's
// data) goes in one directory: removed when every test passed, kept and named when one failed
// (or with A2A_KEEP_TEST_LOGS=1), so runs that pass do not fill the machine's /tmp.
//
// A test that hangs fails after a bound (test-timeout.ts) rather than holding the run.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testTimeoutArgs } from './test-timeout.js';

function findTests(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const timeoutArgs = testTimeoutArgs(); // before anything starts: a bad A2A_TEST_TIMEOUT_MS stops here
const selected = args.filter((a) => !a.startsWith('--'));
const roots = selected.length > 0 ? selected : unitOnly ? ['test/unit'] : ['test/unit', 'test/integration'];
const files = roots.flatMap((r) => (statSync(r).isDirectory() ? findTests(r) : [r]));
const needsCluster = files.some((f) => !f.startsWith('test/unit'));

// os.tmpdir() reads TMPDIR on each call: this process's harness and every test process use it.
const runDir = mkdtempSync(join(tmpdir(), 'a2a-test-run-'));
process.env.TMPDIR = runDir;

let stopCluster: (() => Promise<void>) | undefined;
if (needsCluster && !process.env.A2A_TEST_KUBECONFIG) {
  // startSharedCluster sets A2A_TEST_CLUSTER / A2A_TEST_KUBECONFIG in process.env.
  const { startSharedCluster } = await import('../test/harness/cluster.js');
  stopCluster = (await startSharedCluster()).stop;
}
const env = { ...process.env };

const concurrency = process.env.A2A_TEST_CONCURRENCY ?? '1';
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...timeoutArgs, ...files],
  { stdio: 'inherit', env },
);
// SIGTERM (CI or a person stopping the run) goes to the tests; the control plane is stopped
// once they have ended, as after a normal run, and the logs are kept.
process.on('SIGTERM', () => child.kill('SIGTERM'));
const code: number = await new Promise((resolve) =>
  child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))),
);
await stopCluster?.();
if (code === 0 && process.env.A2A_KEEP_TEST_LOGS !== '1') rmSync(runDir, { recursive: true, force: true });
else process.stderr.write(`test logs (operator, agents, control plane) kept in ${runDir}\n`);
process.exit(code);
