/**
 * What the container image runs is what the tests run. There is no Docker engine here, so the
 * Dockerfile is parsed and checked against the harness (test/harness/operator.ts runs
 * `src/cli/main.ts run` through tsx, or the image's entrypoint from `dist`) and the chart (its
 * args replace CMD); then the bundled entrypoint, `node dist/cli/main.js run`, is built by
 * `npm run build`'s script and run, with no node_modules anywhere up its tree, against the
 * control plane: it becomes ready and exits 0 on SIGTERM within the chart's grace period.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/binaries.js';
import { useCluster } from '../harness/cluster.js';
import { renderChart, one } from '../harness/helm.js';
import { dockerfileStages, finalInstruction, imageEntrypoint } from '../harness/image-entrypoint.js';
import { operatorArgv } from '../harness/operator.js';
import { freePort } from '../harness/ports.js';
import { startProcess } from '../harness/process.js';

const stages = dockerfileStages();
const entrypoint = imageEntrypoint(stages);
const final = stages.at(-1)!;
const last = (op: string) => finalInstruction(stages, op);

test('Dockerfile: multi-stage, Node 24, the bundled CLI without node_modules, non-root, exec-form entrypoint', () => {
  assert.ok(stages.length >= 2, 'multi-stage');
  for (const s of stages) assert.match(s.from, /^node:24[-.\w]*/);
  const all = stages.flatMap((s) => s.instructions);
  assert.ok(
    all.some((i) => i.op === 'RUN' && /npm ci\b/.test(i.args) && !/--omit=dev/.test(i.args)),
    'build stage npm ci',
  );
  assert.ok(
    all.some((i) => i.op === 'RUN' && /npm run build/.test(i.args)),
    'build stage npm run build',
  );
  // The CLI is bundled with its dependencies (scripts/build.ts): the image carries no node_modules.
  assert.ok(
    !final.instructions.some((i) => /node_modules/.test(i.args)),
    'no node_modules in the final stage',
  );
  assert.ok(
    final.instructions.some((i) => i.op === 'COPY' && /^--from=build\s+\S*dist\/cli\s/.test(i.args)),
    'the final stage copies the bundled CLI',
  );
  assert.ok(!final.instructions.some((i) => i.op === 'RUN'), 'the final stage runs nothing as root');
  const user = last('USER');
  assert.ok(user && /^[1-9]\d*(:\d+)?$/.test(user), `numeric non-root USER, got ${user}`);
  assert.deepEqual(JSON.parse(last('ENTRYPOINT')!), ['node', 'dist/cli/main.js']);
  assert.deepEqual(JSON.parse(last('CMD')!), ['run']);
});

test('the entrypoint is the one the harness and the chart run', async () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  const { script, nodeOptions } = entrypoint;
  assert.equal(pkg.bin['a2a-operator'], script);
  // scripts/build.ts bundles src/cli/main.ts into dist/cli/main.js (tsconfig.build.json's dirs).
  const build = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.build.json'), 'utf8')) as {
    compilerOptions: { rootDir: string; outDir: string };
  };
  assert.match(readFileSync(join(REPO_ROOT, 'scripts', 'build.ts'), 'utf8'), /'src', 'cli', 'main\.ts'/);
  const source = script
    .replace(new RegExp(`^${build.compilerOptions.outDir}/`), `${build.compilerOptions.rootDir}/`)
    .replace(/\.js$/, '.ts');
  // The command the harness starts: from source through tsx, or the compiled bin itself with
  // the image's Node.js options first and the caller's after (`dist: true`, as the bench runs it).
  const ports = { metrics: 1, cards: 2 };
  const fromSource = operatorArgv({ kubeconfig: 'k', nodeArgs: ['--cpu-prof'] }, ports);
  assert.deepEqual(fromSource.slice(0, 5), ['--cpu-prof', '--import', 'tsx', join(REPO_ROOT, source), 'run']);
  const shipped = operatorArgv({ kubeconfig: 'k', dist: true }, ports);
  assert.deepEqual(shipped.slice(0, nodeOptions.length + 2), [
    ...nodeOptions,
    join(REPO_ROOT, script),
    'run',
  ]);
  // An image with an option, overridden by the caller: the image's comes first, so the caller's wins.
  const flagged = operatorArgv(
    { kubeconfig: 'k', dist: true, nodeArgs: ['--heap-growing-percent=0'] },
    ports,
    () => ({ ...entrypoint, nodeOptions: ['--heap-growing-percent=30'] }),
  );
  assert.deepEqual(flagged.slice(0, 4), [
    '--heap-growing-percent=30',
    '--heap-growing-percent=0',
    join(REPO_ROOT, script),
    'run',
  ]);
  for (const argv of [fromSource, shipped, flagged])
    assert.ok(
      argv.includes('--kubeconfig=k') && argv.includes('--metrics-address=127.0.0.1:1'),
      argv.join(' '),
    );
  const d = one(await renderChart(), 'Deployment').spec as {
    template: { spec: { containers: { args: string[] }[] } };
  };
  assert.equal(
    d.template.spec.containers[0]!.args[0],
    (JSON.parse(last('CMD')!) as string[])[0],
    'chart args start with the CMD',
  );
});

test('.dockerignore keeps the build context to what the image needs', () => {
  const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim());
  for (const p of ['node_modules', 'dist', '.cache', '.git', 'test']) assert.ok(ignored.includes(p), p);
  const copied = stages
    .flatMap((s) => s.instructions)
    .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'));
  for (const c of copied) {
    for (const src of c.args.split(/\s+/).slice(0, -1))
      assert.ok(!ignored.includes(src), `${src} is copied but ignored`);
  }
});

test('node dist/cli/main.js run (built by npm run build) serves /readyz and exits 0 on SIGTERM, with no node_modules', async () => {
  const cluster = await useCluster();
  const ns = await cluster.createNamespace('image');
  // Outside the repository, as in the image: only the bundled CLI and package.json, so a
  // dependency the bundle failed to carry cannot be found in a node_modules up the tree.
  const dir = mkdtempSync(join(tmpdir(), 'a2a-image-test-'));
  const built = join(REPO_ROOT, '.cache', `image-test-${process.pid}`);
  try {
    execFileSync(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
        join(REPO_ROOT, 'scripts', 'build.ts'),
        '--out-dir',
        built,
      ],
      { stdio: 'inherit' },
    );
    cpSync(join(built, 'cli'), join(dir, 'dist', 'cli'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json')); // "type": "module"
    assert.ok(!existsSync(join(dir, 'node_modules')) && !existsSync(join(tmpdir(), 'node_modules')));
    const metrics = await freePort();
    const cards = await freePort();
    assert.equal(entrypoint.program, 'node');
    const args = [
      ...entrypoint.nodeOptions,
      join(dir, entrypoint.script),
      ...(JSON.parse(last('CMD')!) as string[]),
      `--kubeconfig=${cluster.kubeconfigPath}`,
      `--metrics-address=127.0.0.1:${metrics}`,
      `--cards-address=127.0.0.1:${cards}`,
      '--leader-elect=true',
      `--lease-name=image-test-${process.pid}`,
      `--namespaces=${ns}`,
    ];
    const proc = startProcess(process.execPath, args, join(dir, 'operator.log'), {
      ...process.env,
      NODE_ENV: 'production',
      POD_NAMESPACE: ns,
      POD_NAME: 'image-0',
    });
    const keepAlive = setInterval(() => {}, 1000);
    try {
      const deadline = Date.now() + 30_000;
      let ready = false;
      while (!ready && Date.now() < deadline && proc.child.exitCode === null) {
        ready = await fetch(`http://127.0.0.1:${metrics}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(ready, proc.tail());
      assert.equal((await fetch(`http://127.0.0.1:${metrics}/healthz`)).status, 200);
      /** The operator's Lease holder as stored ('' when released). */
      const leaseHolder = async () =>
        (
          await cluster.kubectl([
            'get',
            'lease',
            `image-test-${process.pid}`,
            '-n',
            ns,
            '-o',
            'jsonpath={.spec.holderIdentity}',
          ])
        ).stdout;
      // Wait until it leads (the Lease names it), so shutdown includes releasing the Lease.
      const leaseDeadline = Date.now() + 20_000;
      while (Date.now() < leaseDeadline) {
        if ((await leaseHolder()).startsWith('image-0')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const chart = one(await renderChart(), 'Deployment').spec as {
        template: { spec: { terminationGracePeriodSeconds: number } };
      };
      const graceMs = chart.template.spec.terminationGracePeriodSeconds * 1000;
      const started = Date.now();
      proc.child.kill('SIGTERM');
      const code = await Promise.race([
        proc.exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs)),
      ]);
      assert.equal(code, 0, `exit ${String(code)} after ${Date.now() - started}ms:\n${proc.tail()}`);
      assert.equal(await leaseHolder(), '', 'the Lease was released on shutdown');
    } finally {
      clearInterval(keepAlive);
      await proc.stop('SIGKILL', 1000);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(built, { recursive: true, force: true });
  }
});
