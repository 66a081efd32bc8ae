/**
 * `npm run bench:fleet -- --agents 1000`: the multiplexed agent fleet alone (no control plane,
 * no operator). Starts agents x pods pod addresses in fleet processes, then dials every address
 * (card fetch, then JSON-RPC, HTTP+JSON and gRPC probes with the operator's Prober) to show each
 * one answers as its own agent, and prints startup time and the fleet's resident memory.
 */
import { availableParallelism, freemem, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { A2AAgentSpec } from '../src/api/a2aagent.js';
import { CardParseError, parseCard } from '../src/card/index.js';
import { mapInterfaces } from '../src/observation/interface-map.js';
import { podPort } from '../src/observation/port-mapping.js';
import { Prober } from '../src/probe/index.js';
import { healthySpec } from '../test/harness/manifests.js';
import { Fleet, startFleet } from './lib/agent-fleet.js';
import { fixed } from './lib/report.js';
import { limited } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    agents: { type: 'string', default: '100' },
    pods: { type: 'string', default: '3' },
    'agents-per-process': { type: 'string', default: '100' },
  },
});
const agents = Number(values.agents);
const pods = Number(values.pods);
const perProcess = Number(values['agents-per-process']);
const log = (line: string) => process.stderr.write(`[fleet] ${line}\n`);
const namespace = 'bench';
const fleet = new Fleet();
process.once('SIGINT', () => {
  fleet.destroySync();
  process.exit(130);
});
try {
  const names = Array.from({ length: agents }, (_, i) => `agent-${String(i).padStart(4, '0')}`);
  const started = performance.now();
  await startFleet(
    undefined,
    { namespace, agents: names, podsPerAgent: pods, agentsPerProcess: perProcess, log },
    fleet,
  );
  const startMs = performance.now() - started;
  const rss = await fleet.rssBytes();

  // Dial every address: its card must name its own agent's Service, and every binding answer.
  const prober = new Prober({ concurrency: 64 });
  const dialled = performance.now();
  let probes = 0;
  let failures = 0;
  await limited(fleet.pods, 32, async (pod) => {
    const spec = A2AAgentSpec.parse(healthySpec(pod.agent));
    const res = await prober.fetchCard({
      address: pod.ip,
      port: 8080,
      scheme: 'http',
      path: spec.card.path,
      hostHeader: `${pod.agent}.${namespace}.svc`,
      timeoutMs: 10_000,
    });
    if (res.kind !== 'ok') {
      if (failures++ < 3) log(`${pod.ip}: ${JSON.stringify(res)}`);
      return;
    }
    const card = parseCard(res.body);
    if (card instanceof CardParseError || !JSON.stringify(res.body).includes(`${pod.agent}.${namespace}.svc`))
      return void failures++;
    for (const m of mapInterfaces(card, { spec, namespace, serviceName: pod.agent })) {
      if (!m.mapped) continue;
      const r = await prober.probe(
        { address: pod.ip, port: podPort(m.port, { containerPorts: {} })! },
        m.iface,
        {
          timeoutMs: 10_000,
        },
      );
      probes++;
      if (r.state !== 'Verified') failures++;
    }
  });
  await prober.close();
  const mib = (b: number) => fixed(b / 1024 ** 2, 0);
  process.stdout.write(
    [
      `| agents x pods x bindings | ${agents} x ${pods} x 3 (${fleet.pods.length} addresses, ${fleet.processes.length} processes) |`,
      `| fleet startup (s) | ${fixed(startMs / 1000, 1)} (slowest process binding its addresses: ${fixed(Math.max(...fleet.processes.map((p) => p.startMs ?? 0)) / 1000, 1)}) |`,
      `| fleet RSS (MiB) | ${mib(rss)} total, ${fixed(rss / 1024 / fleet.pods.length, 0)} KiB per pod address |`,
      `| every address dialled (s) | ${fixed((performance.now() - dialled) / 1000, 1)}: ${fleet.pods.length} cards + ${probes} probes, ${failures} failures |`,
      `| machine | ${availableParallelism()} CPUs, ${mib(totalmem())} MiB, ${mib(freemem())} MiB free at the end |`,
    ].join('\n') + '\n',
  );
  process.exitCode = failures === 0 ? 0 : 1;
} finally {
  await fleet.destroy();
}
