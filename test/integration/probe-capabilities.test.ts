/**
 * Capability truth (docs/conditions.md, "Capability truth"; issue 13 item 6) against real agents on both runtimes: each card
 * claim (streaming, pushNotifications, extendedAgentCard) tested per interface with a
 * side-effect-free call for a random task id. Served as claimed, absent as claimed, and cards
 * that lie both ways.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CAPABILITIES, capabilityClaims } from '../../src/card/index.js';
import type { CapabilityFlags, DeclaredCapabilities } from '../agents/agent-config.js';
import { RUNTIMES, type LocalAgentConfig } from '../harness/local-agent.js';
import { fetchAgentCard, LOOPBACK, loopbackProbes } from '../harness/loopback-probes.js';

const timeoutMs = 2000;
const lp = loopbackProbes();

/** `BINDING@version capability=State` for every interface and capability of the agent's card. */
async function capabilityStates(config: LocalAgentConfig, rt: (typeof RUNTIMES)[number]): Promise<string[]> {
  const a = await lp.agent(rt, config);
  const card = await fetchAgentCard(a, timeoutMs);
  const claims = capabilityClaims(card.raw);
  const out: string[] = [];
  for (const i of card.interfaces) {
    const port = Number(/:(\d+)(?:\/|$)/.exec(i.url)![1]);
    for (const c of CAPABILITIES) {
      const v = await lp.prober.probeCapability({ address: LOOPBACK, port }, i, c, claims[c], { timeoutMs });
      assert.doesNotMatch(
        v.message,
        /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/,
        'no task id',
      );
      out.push(`${i.protocolBinding}@${i.protocolVersion} ${c}=${v.state}`);
    }
  }
  return out;
}

const ALL: DeclaredCapabilities = { streaming: true, pushNotifications: true, extendedAgentCard: true };
const NONE: CapabilityFlags = { streaming: false, pushNotifications: false, extendedAgentCard: false };
const bindings = ['JSONRPC@1.0', 'HTTP+JSON@1.0', 'GRPC@1.0'];
const table = (states: Record<string, string>): string[] =>
  bindings.flatMap((b) => CAPABILITIES.map((c) => `${b} ${c}=${states[c]}`));

for (const rt of RUNTIMES) {
  void test(`[${rt}] every capability claimed and served: Verified on every binding`, async () => {
    assert.deepEqual(
      await capabilityStates({ grpc: {}, capabilities: ALL }, rt),
      table({ streaming: 'Verified', pushNotifications: 'Verified', extendedAgentCard: 'Verified' }),
    );
  });

  void test(`[${rt}] nothing claimed, nothing served: Absent`, async () => {
    assert.deepEqual(
      await capabilityStates({ grpc: {}, capabilities: {} }, rt),
      table({ streaming: 'Absent', pushNotifications: 'Absent', extendedAgentCard: 'Absent' }),
    );
  });

  void test(`[${rt}] a card that claims what the server does not serve: NotServed`, async () => {
    assert.deepEqual(
      await capabilityStates({ grpc: {}, capabilities: ALL, servedCapabilities: NONE }, rt),
      table({ streaming: 'NotServed', pushNotifications: 'NotServed', extendedAgentCard: 'NotServed' }),
    );
  });

  void test(`[${rt}] a server that streams and takes push configs while the card says no: Undeclared (reported)`, async () => {
    assert.deepEqual(
      await capabilityStates(
        { grpc: {}, capabilities: {}, servedCapabilities: { streaming: true, pushNotifications: true } },
        rt,
      ),
      table({ streaming: 'Undeclared', pushNotifications: 'Undeclared', extendedAgentCard: 'Absent' }),
    );
  });
}

for (const rt of RUNTIMES) {
  void test(`[${rt}] v0.3 interfaces (SDK compat layer): the v0.3 calls, every capability Verified`, async () => {
    const states = await capabilityStates(
      { grpc: {}, legacyCompat: true, card: { serve: 'hybrid' }, capabilities: ALL },
      rt,
    );
    const v03 = states.filter((s) => s.includes('@0.3 '));
    // a2a-go serves v0.3 REST without the /v1 prefix (probe-states.test.ts): no route there.
    const rest = rt === 'go' ? 'NotServed' : 'Verified';
    assert.deepEqual(v03, [
      ...CAPABILITIES.map((c) => `JSONRPC@0.3 ${c}=Verified`),
      ...CAPABILITIES.map((c) => `HTTP+JSON@0.3 ${c}=${rest}`),
      ...CAPABILITIES.map((c) => `GRPC@0.3 ${c}=Verified`),
    ]);
  });
}
