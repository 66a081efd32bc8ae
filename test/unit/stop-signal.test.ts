/**
 * The life of the scripts a person stops with Ctrl-C (test/harness/stop-signal.ts), on a real
 * child process: it stays up, stops on the first signal, takes a repeat within a second as the
 * same keypress relayed by npm, and exits at once on a later one, removing its folder.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../harness/binaries.js';

const CHILD = join(REPO_ROOT, 'test', 'harness', 'fixtures', 'stop-signal-child.ts');

function start(
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): {
  child: ChildProcess;
  out: () => string;
  line: (re: RegExp) => Promise<string>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: (() => void)[] = [];
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters.splice(0)) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const line = (re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = re.exec(out);
        if (m) resolve(m[0]);
        else if (child.exitCode !== null) reject(new Error(`exited ${child.exitCode}: ${out}`));
        else waiters.push(check);
      };
      child.once('exit', check);
      check();
    });
  return { child, out: () => out, line };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('stays up until a signal, then runs its own cleanup and exits 0', async () => {
  const s = start(['--clean-exit']);
  const tmp = (await s.line(/up (\S+)/)).slice(3);
  assert.ok(existsSync(join(tmp, 'marker')));
  await sleep(1500);
  assert.equal(s.child.exitCode, null, 'still up with nothing but a pending promise');
  s.child.kill('SIGTERM');
  assert.equal(await exited(s.child), 0);
  assert.match(s.out(), /cleaning up after SIGTERM/);
  assert.equal(existsSync(tmp), false);
});

test('a repeat within a second is the same Ctrl-C; a later one forces the exit (130) and removes the folder', async () => {
  const s = start();
  const tmp = (await s.line(/up (\S+)/)).slice(3);
  // One keypress as it arrives through npm: from the terminal and relayed, back to back.
  s.child.kill('SIGINT');
  s.child.kill('SIGINT');
  await s.line(/cleaning up after SIGINT/);
  await sleep(500);
  assert.equal(s.child.exitCode, null, 'the echo does not force the exit');
  await sleep(2000); // a person pressing Ctrl-C again, well past the echo window
  s.child.kill('SIGINT');
  assert.equal(await exited(s.child), 130);
  assert.match(s.out(), /forced exit on a second SIGINT/);
  assert.equal(existsSync(tmp), false);
});

test('stops itself through its own cleanup once the process named by A2A_STOP_WITH_PID is gone', async () => {
  const starter = spawn('sleep', ['600'], { stdio: 'ignore' });
  const starterGone = exited(starter);
  const s = start(['--clean-exit'], { ...process.env, A2A_STOP_WITH_PID: String(starter.pid) });
  const tmp = (await s.line(/up (\S+)/)).slice(3);
  await sleep(1500);
  assert.equal(s.child.exitCode, null, 'stays up while that process lives');
  starter.kill('SIGKILL');
  await starterGone;
  assert.equal(await exited(s.child), 0);
  assert.match(s.out(), new RegExp(`process ${starter.pid} that started this script is gone`));
  assert.match(s.out(), /cleaning up after SIGTERM/);
  assert.equal(existsSync(tmp), false);
});
