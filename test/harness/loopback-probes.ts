/**
 * The setup the Prober's integration tests share: one Prober for the file, the loopback agents
 * it starts (both runtimes), closed after the file, and the agent's card fetched and parsed as
 * the operator would (Host: agent.internal, so card URLs name that host).
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { CardParseError, parseCard, type ParsedCard } from '../../src/card/index.js';
import { fetchCard, Prober } from '../../src/probe/index.js';
import { startLocalAgent, type LocalAgent, type LocalAgentConfig, type Runtime } from './local-agent.js';

export const LOOPBACK = '127.0.0.1';

export interface LoopbackProbes {
  /** Set in before(). */
  readonly prober: Prober;
  /** Starts an agent on loopback, stopped after the file. */
  agent(rt: Runtime, config: LocalAgentConfig): Promise<LocalAgent>;
}

/** Registers the file's before/after hooks. */
export function loopbackProbes(): LoopbackProbes {
  let prober: Prober | undefined;
  const agents: LocalAgent[] = [];
  before(() => {
    prober = new Prober({ concurrency: 8 });
  });
  after(async () => {
    await prober?.close();
    for (const a of agents) await a.close();
  });
  return {
    get prober() {
      if (!prober) throw new Error('loopbackProbes: the prober is set in before()');
      return prober;
    },
    async agent(rt, config) {
      const a = await startLocalAgent(rt, config);
      agents.push(a);
      return a;
    },
  };
}

/** The agent's card, fetched from its HTTP listener and parsed. */
export async function fetchAgentCard(a: LocalAgent, timeoutMs: number): Promise<ParsedCard> {
  const r = await fetchCard({
    address: LOOPBACK,
    port: a.ports.http!,
    scheme: 'http',
    path: '/.well-known/agent-card.json',
    hostHeader: `agent.internal:${a.ports.http}`,
    timeoutMs,
  });
  assert.equal(r.kind, 'ok');
  const card = parseCard(r.kind === 'ok' ? r.body : undefined);
  assert.ok(!(card instanceof CardParseError));
  return card;
}
