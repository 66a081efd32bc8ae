/**
 * The test agent as a separate process (how integration tests run "pods"): READY line, the
 * control endpoint flipping the gRPC server and the card at runtime, exit on SIGTERM.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AgentConfig, AgentPorts } from '../agents/agent-config.js';
import { startAgent } from '../agents/start-agent.js';
import { Prober } from '../../src/probe/index.js';
import { fetchCard } from '../../src/probe/index.js';

void test('agent-server.ts: READY, control endpoint, SIGTERM', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/agents/agent-server.ts', JSON.stringify({ grpc: {} })],
    { cwd: join(import.meta.dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const prober = new Prober();
  try {
    const lines = createInterface({ input: child.stdout });
    const [first] = (await once(lines, 'line')) as [string];
    assert.match(first, /^READY \{/);
    const { ports } = JSON.parse(first.slice('READY '.length)) as { ports: AgentPorts };
    assert.ok(ports.http && ports.grpc && ports.control);
    const control = (path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${ports.control}${path}`, { method: 'POST', body: JSON.stringify(body) });
    const grpc = {
      url: `http://agent.internal:${ports.grpc}`,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      index: 0,
      declaredAt: 'test',
    };
    const target = { address: '127.0.0.1', port: ports.grpc };
    assert.equal((await prober.probe(target, grpc, { timeoutMs: 2000 })).state, 'Verified');
    assert.equal((await control('/grpc', { running: true, register: false })).status, 200);
    assert.equal((await prober.probe(target, grpc, { timeoutMs: 2000 })).state, 'Unimplemented');
    await control('/grpc', { running: false });
    assert.equal((await prober.probe(target, grpc, { timeoutMs: 2000 })).state, 'Unreachable');
    await control('/card', { serve: 'malformed' });
    const card = await fetchCard({
      address: '127.0.0.1',
      port: ports.http,
      scheme: 'http',
      path: '/.well-known/agent-card.json',
      hostHeader: 'agent.internal',
      timeoutMs: 2000,
    });
    assert.equal(card.kind === 'error' && card.error.reason, 'CardInvalid');
    const state = (await (await fetch(`http://127.0.0.1:${ports.control}/state`)).json()) as {
      seen: unknown[];
    };
    assert.equal(state.seen.length, 1);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    await prober.close();
    child.kill('SIGKILL');
  }
});

void test('an agent keeps idle HTTP connections as long as its config says (bench --agent-keep-alive)', async () => {
  // Node's servers say their idle timeout in the Keep-Alive header; clients (undici, the
  // Prober) close a connection before it. The bench's fleet sets it to measure connection reuse.
  const keepAlive = async (config: AgentConfig): Promise<string | null> => {
    const agent = await startAgent(config);
    try {
      const res = await fetch(`http://127.0.0.1:${agent.ports.http}/.well-known/agent-card.json`);
      await res.arrayBuffer();
      return res.headers.get('keep-alive');
    } finally {
      await agent.close();
    }
  };
  assert.equal(await keepAlive({ http: { keepAliveMs: 30_000 } }), 'timeout=30');
  assert.equal(await keepAlive({ http: {} }), 'timeout=5');
});
