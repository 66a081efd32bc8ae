/**
 * The lower bound for cold-start convergence: the probes the operator makes on its first visit
 * of every agent (one card fetch per pod, then every mapped interface of the card probed at
 * that pod), issued by a bare loop with the operator's own `fetchCard` and `Prober`, with the
 * operator's concurrency shape (`workers` agents at once, each agent's pods in parallel, at most
 * `probeConcurrency` probes in flight), and no Kubernetes at all. Everything it runs of the
 * operator's is the shipped code (dist/, `Shipped`), as the operator runs it. The rounds share one Prober,
 * as the operator's probes share its one Prober: connections stay alive from round to round
 * for as long as the agents keep them (the caller runs a warm-up round first and starts rounds
 * one probe period apart, as the operator visits), and cards are fetched through
 * `Prober.fetchCard` exactly as the operator fetches them. Both sides are equal: the same
 * connection reuse, warm JIT.
 */
import type { CardParseError, ParsedCard } from '../../src/card/index.js';
import type { Prober } from '../../src/probe/index.js';
import type { Shipped } from './shipped.js';
import { limited, sleep } from './stats.js';

export interface BareAgent {
  name: string;
  /** Pod addresses. */
  ips: string[];
  /** The A2AAgent spec as applied (zod input form). */
  spec: unknown;
}

export interface BareRound {
  ms: number;
  /** CPU time of this process during the round (user + system), in ms: the client side only. */
  cpuMs: number;
  fetches: number;
  probes: number;
  /** Capability calls (three per verified interface of the agents whose turn it was). */
  capabilityCalls: number;
  /** Probes whose answer was not Verified (the agents are healthy, so this should be 0). */
  notVerified: number;
}

/**
 * Cards by pod address with the digest of the bytes they were parsed from, kept across rounds
 * as the operator keeps them across visits: a card whose bytes did not change is not parsed
 * again (the fetch sends the digest and answers `notModified`), on both sides alike.
 */
export type HeldCards = Map<string, { bodyDigest: string; card: ParsedCard }>;

export async function bareRound(
  namespace: string,
  agents: readonly BareAgent[],
  lib: Shipped,
  prober: Prober,
  opts: {
    workers: number;
    /**
     * Whether this agent's verified interfaces get the three capability calls after their
     * probe, as the operator makes them (docs/conditions.md, "Capability truth"): on its first visit for every agent, then
     * for about one agent in CAPABILITY_PERIODS each period (src/controller/probe-memory.ts).
     */
    capabilities: (agentIndex: number) => boolean;
    /**
     * The cards held between rounds: every round records what it parsed; `reuse` sends the
     * held digest (steady rounds; a first visit holds nothing, so it parses every card).
     */
    held?: { cards: HeldCards; reuse: boolean };
    /**
     * Visits spread one by one over this many ms, each its own wake-up (as the operator's visits
     * were before they fell on a grid, routineDueAt): agent i starts i/n of it after the round,
     * still `workers` at once. Unset, the round visits every agent as fast as the workers allow
     * (a burst).
     */
    spreadMs?: number;
  },
): Promise<BareRound> {
  let fetches = 0;
  let probes = 0;
  let capabilityCalls = 0;
  let notVerified = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const index = new Map(agents.map((a, i) => [a, i]));
  const { A2AAgentSpec } = lib.api;
  const { CAPABILITIES, capabilityClaims } = lib.cardClaims;
  const { CardParseError: ParseError, parseCard } = lib.card;
  const { mapInterfaces } = lib.interfaceMap;
  const { podPort, serviceHostNames } = lib.portMapping;
  await limited(agents, opts.workers, async (agent) => {
    const i = index.get(agent)!;
    if (opts.spreadMs !== undefined) {
      await sleep(Math.max(0, started + (opts.spreadMs * i) / agents.length - performance.now()));
    }
    const withCapabilities = opts.capabilities(i);
    const spec = A2AAgentSpec.parse(agent.spec);
    const serviceName = spec.routing.serviceName ?? agent.name;
    const cardPort = spec.ports.find((p) => p.name === spec.card.port)!;
    const timeoutMs = spec.probe.timeoutSeconds * 1000;
    await Promise.all(
      agent.ips.map(async (ip) => {
        const held = opts.held?.reuse ? opts.held.cards.get(ip) : undefined;
        const fetchOnce = () =>
          prober.fetchCard({
            address: ip,
            port: podPort(cardPort, { containerPorts: {} })!,
            scheme: spec.card.scheme === 'HTTPS' ? 'https' : 'http',
            path: spec.card.path,
            hostHeader: spec.hosts?.[0] ?? serviceHostNames(serviceName, namespace)[2]!,
            timeoutMs,
            heldBodyDigest: held?.bodyDigest,
          });
        // Like the operator, a fetch that times out on a loaded machine is tried again.
        let res = await fetchOnce();
        fetches++;
        for (let retry = 0; retry < 2 && res.kind === 'error'; retry++) {
          res = await fetchOnce();
          fetches++;
        }
        let card: ParsedCard | CardParseError;
        if (res.kind === 'notModified' && held) card = held.card;
        else if (res.kind === 'ok') {
          card = parseCard(res.body);
          if (card instanceof ParseError) throw card;
          opts.held?.cards.set(ip, { bodyDigest: res.bodyDigest, card });
        } else throw new Error(`card fetch from ${ip} failed: ${JSON.stringify(res)}`);
        const mapped = mapInterfaces(card, { spec, namespace, serviceName });
        await Promise.all(
          mapped.map(async (m) => {
            if (!m.mapped) return;
            const target = { address: ip, port: podPort(m.port, { containerPorts: {} })! };
            const r = await prober.probe(target, m.iface, { timeoutMs });
            probes++;
            if (r.state !== 'Verified') {
              notVerified++;
              return;
            }
            if (!withCapabilities) return;
            // As LiveProbeBackend.probeCapabilities: the three calls at once.
            const claims = capabilityClaims(card.raw);
            await Promise.all(
              CAPABILITIES.map((c) => prober.probeCapability(target, m.iface, c, claims[c], { timeoutMs })),
            );
            capabilityCalls += CAPABILITIES.length;
          }),
        );
      }),
    );
  });
  const used = process.cpuUsage(cpu);
  return {
    ms: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    fetches,
    probes,
    capabilityCalls,
    notVerified,
  };
}
