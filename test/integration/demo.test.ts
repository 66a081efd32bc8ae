/**
 * `npm run demo -- --once` from the repository: its own control plane, three SDK agents in pod
 * hosts, the examples/ A2AAgents and the operator; checks what it prints.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/binaries.js';

test('npm run demo -- --once shows the verdicts and the declared-versus-advertised view', async () => {
  // The demo starts its own control plane: hide the test run's.
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('A2A_TEST_')) delete env[k];
  delete env.USE_EXISTING_CLUSTER;
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'demo.ts'), '--once'],
      { cwd: REPO_ROOT, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const out = r.stdout;
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
  assert.match(out, /export KUBECONFIG=\/\S+kubeconfig/);
});
