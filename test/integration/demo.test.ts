/**
 * `npm run demo` and `npm run cluster` as the README says to run them: each stays up, what it
 * prints to explore with works (kubectl, curl), and Ctrl-C stops it with exit 0, leaving no
 * process, network namespace, address claim or temporary folder behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  claimsOf,
  remainingPodHosts,
  runScript,
  scriptProcesses,
  type InteractiveScript,
} from '../harness/interactive-script.js';

const START_MS = 300_000;
const STOP_MS = 60_000;

/** Runs `lines` in bash as a person would paste them; resolves with stdout (rejects on failure). */
function shell(lines: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', lines.join('\n')],
      { timeout: 60_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${lines.join('; ')}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
}

/** The export lines the script printed, exactly as printed. */
function exportLines(out: string): string[] {
  const lines = out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^export (KUBECONFIG|PATH)=/.test(l));
  assert.equal(lines.length, 2, `KUBECONFIG and PATH lines in:\n${out}`);
  return lines;
}

/** The script's temporary folder, from the printed KUBECONFIG path. */
function tmpOf(out: string, prefix: string): string {
  const m = new RegExp(`export KUBECONFIG=(\\S*/${prefix}-[A-Za-z0-9]{6})/`).exec(out);
  assert.ok(m, `KUBECONFIG under a ${prefix}- folder:\n${out}`);
  return m[1]!;
}

async function stopAndCheckNothingLeft(
  s: InteractiveScript,
  tmp: string,
  withPodHosts: boolean,
): Promise<void> {
  const pids = scriptProcesses(s.child.pid!, tmp);
  assert.ok(
    pids.length >= 3,
    `the script, etcd and kube-apiserver run with TMPDIR=${tmp}: ${pids.join(' ')}`,
  );
  const claims = claimsOf(pids);
  if (withPodHosts) assert.ok(claims.length >= 3, `three pod hosts claimed: ${JSON.stringify(claims)}`);
  const code = await s.interrupt(STOP_MS);
  assert.equal(code, 0, s.output());
  assert.deepEqual(scriptProcesses(s.child.pid!, tmp), [], 'no process of the script is left');
  assert.equal(existsSync(tmp), false, `${tmp} is removed`);
  assert.deepEqual(remainingPodHosts(claims), [], 'no network namespace or address claim is left');
}

test('npm run demo stays up with verdicts to explore, answers kubectl and curl as printed, and Ctrl-C removes everything', async () => {
  const s = runScript('demo');
  await s.waitFor(/^Ctrl-C stops everything\.$/m, START_MS);
  const out = s.output();
  assert.match(
    out,
    /\$ kubectl get a2aagents -n a2a-demo -o wide\nNAME\s+READY\s+REASON\s+VERIFIED\s+PREFERRED\s+PODS\s+AGE\s+MESSAGE/,
  );
  assert.match(out, /^weather\s+True\s+Succeeded\s+3\/3\s+JSONRPC\s+1\/1/m);
  assert.match(out, /^seed\s+False\s+PreferredTransportMismatch\s+1\/3\s+JSONRPC\s+1\/1/m);
  assert.match(out, /^ledger\s+False\s+InterfaceUnimplemented\s+2\/3\s+JSONRPC\s+1\/1/m);
  // The seed agent: what its card declares, each verdict, and what is advertised instead.
  const seed = out.slice(out.indexOf('seed: Ready=False'));
  assert.match(seed, /GRPC\s+https:\/\/agent\.internal:8443\s+0\.3\s+WrongBinding\s+0\/1\s+no/);
  assert.match(seed, /JSONRPC\s+https:\/\/agent\.internal:8443\s+0\.3\s+Verified\s+1\/1\s+yes/);
  assert.match(seed, /GRPC\s+https:\/\/agent\.internal:9443\s+0\.3\s+Unimplemented\s+0\/1\s+no/);
  const advertised = seed.slice(seed.indexOf('the advertised card'), seed.indexOf('\n\n'));
  assert.match(advertised, /JSONRPC https:\/\/agent\.internal:8443 \(url, preferredTransport\)/);
  assert.doesNotMatch(advertised, /GRPC/);
  const ledger = out.slice(out.indexOf('ledger: Ready=False'));
  assert.match(ledger, /GRPC\s+http:\/\/ledger\.a2a-demo\.svc:9090\s+1\.0\s+Unimplemented\s+0\/1\s+no/);
  assert.doesNotMatch(ledger.slice(ledger.indexOf('the advertised card'), ledger.indexOf('\n\n')), /GRPC/);
  assert.doesNotMatch(out, /^weather: Ready/m, 'healthy agents are not explained');

  // A person reads the output, then types what it says: the demo must still be up.
  await new Promise((r) => setTimeout(r, 5000));
  assert.equal(s.child.exitCode, null, `the demo is still running:\n${s.output()}`);
  const exports = exportLines(out);
  const agents = await shell([...exports, 'kubectl get a2aagents -n a2a-demo']);
  assert.match(agents, /^weather\s+True\s+Succeeded/m);
  assert.match(agents, /^seed\s+False\s+PreferredTransportMismatch/m);
  const curl = /^\s*curl (\S+)/m.exec(out);
  assert.ok(curl, `a curl line in:\n${out}`);
  const cards = await shell([`curl -sS --fail --max-time 20 ${curl[1]}`]);
  assert.match(cards, /"name":"weather"/);

  await stopAndCheckNothingLeft(s, tmpOf(out, 'a2a-demo'), true);
});

test('npm run cluster stays up, answers kubectl as printed, and Ctrl-C removes everything', async () => {
  const s = runScript('cluster');
  await s.waitFor(/^Ctrl-C stops everything\.$/m, START_MS);
  await new Promise((r) => setTimeout(r, 3000));
  assert.equal(s.child.exitCode, null, `the cluster is still running:\n${s.output()}`);
  const out = s.output();
  const crds = await shell([
    ...exportLines(out),
    'kubectl get a2aagents -A',
    'kubectl get crd a2aagents.a2a.dev -o name',
  ]);
  assert.match(crds, /customresourcedefinition\.apiextensions\.k8s\.io\/a2aagents\.a2a\.dev/);
  await stopAndCheckNothingLeft(s, tmpOf(out, 'a2a-cluster'), false);
});
