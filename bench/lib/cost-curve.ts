/**
 * The cost curve of a multi-size run (`--sizes 100,300,1000`): one point per size, printed as a
 * table with per-agent figures (so a reader sees whether cost grows linearly) and drawn as an
 * SVG with vega-lite (rendered headless: View.toSVG with renderer 'none', no browser).
 */
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';
import type { BenchOptions } from './options.js';
import { fixed, type Row } from './report.js';

/** The periods the ceiling of one replica is given for. */
export const CEILING_PERIODS = [10, 30, 60] as const;

export interface SizePoint {
  agents: number;
  /** Operator /readyz -> every agent converged. */
  coldAfterReadyS: number;
  /** The bare loop's median round over the same probes. */
  bareS: number;
  /** Operator CPU from spawn until converged. */
  coldCpuS: number;
  /** Operator CPU in steady state, % of one core. */
  steadyCpuPct: number;
  opCpuPerProbeMs: number;
  bareCpuPerProbeMs: number;
  rssMiB: number;
  /** API requests from spawn until converged. */
  coldApiRequests: number;
  /** Operator probes per second in steady state. */
  probesPerS: number;
  /** Steady state: reconcile time over the window and the workers, % (100: every worker always busy). */
  workersBusyPct: number;
  /** Steady state: API writes per period. */
  steadyWritesPerPeriod: number;
  /** Steady state: the whole machine's cores busy (operator, fleet, control plane, the rest), %. */
  machineBusyPct: number;
  /** Agents one core sustains at each of CEILING_PERIODS. */
  agentsPerCore: number[];
}

/**
 * Agents (each `probesPerAgentPeriod` probes per period, card fetches folded into the CPU per
 * probe) one core sustains at each of CEILING_PERIODS, from CPU per probe.
 */
export function agentsPerCore(cpuPerProbeMs: number, probesPerAgentPeriod: number): number[] {
  const perAgentMs = cpuPerProbeMs * probesPerAgentPeriod;
  return CEILING_PERIODS.map((p) => (perAgentMs > 0 ? (p * 1000) / perAgentMs : Number.NaN));
}

/** One row per figure, one column per size: the absolute figure, then per agent. */
export function costTable(points: readonly SizePoint[]): string {
  const header = `| figure | ${points.map((p) => `${p.agents} agents`).join(' | ')} |`;
  const sep = `| --- | ${points.map(() => '---:').join(' | ')} |`;
  const line = (name: string, f: (p: SizePoint) => string) =>
    `| ${name} | ${points.map((p) => f(p)).join(' | ')} |`;
  return [
    header,
    sep,
    line(
      'cold start after /readyz, operator / bare loop (s)',
      (p) => `${fixed(p.coldAfterReadyS)} / ${fixed(p.bareS)}`,
    ),
    line(
      'cold start after /readyz per agent, operator / bare loop (ms)',
      (p) => `${fixed((p.coldAfterReadyS * 1000) / p.agents, 1)} / ${fixed((p.bareS * 1000) / p.agents, 1)}`,
    ),
    line('operator CPU until converged (s)', (p) => fixed(p.coldCpuS)),
    line('operator CPU until converged, per agent (ms)', (p) => fixed((p.coldCpuS * 1000) / p.agents, 1)),
    line('operator CPU, steady state (% of one core)', (p) => fixed(p.steadyCpuPct, 1)),
    line('operator CPU, steady state, per agent (% of one core)', (p) => fixed(p.steadyCpuPct / p.agents, 3)),
    line(
      'CPU per probe, operator / bare loop (ms)',
      (p) => `${fixed(p.opCpuPerProbeMs, 3)} / ${fixed(p.bareCpuPerProbeMs, 3)}`,
    ),
    line('operator RSS at the end (MiB)', (p) => fixed(p.rssMiB, 1)),
    line('operator RSS per agent (KiB)', (p) => fixed((p.rssMiB * 1024) / p.agents, 0)),
    line('API requests until converged', (p) => String(p.coldApiRequests)),
    line('API requests until converged, per agent', (p) => fixed(p.coldApiRequests / p.agents, 2)),
    line('probes per second, steady state', (p) => fixed(p.probesPerS, 1)),
    line('probes per second per agent', (p) => fixed(p.probesPerS / p.agents, 3)),
    line(`agents one core sustains at period ${CEILING_PERIODS.join(' / ')} s`, (p) =>
      p.agentsPerCore.map((n) => fixed(n, 0)).join(' / '),
    ),
  ].join('\n');
}

/** The ceiling of one replica as Markdown rows, from the largest size measured. */
export function ceilingRows(p: SizePoint): Row[] {
  return CEILING_PERIODS.map((period, i) => ({
    metric: `agents (3 pods x 3 bindings) one core sustains, period ${period} s`,
    value: fixed(p.agentsPerCore[i]!, 0),
    note: `from ${fixed(p.opCpuPerProbeMs, 3)} ms of operator CPU per probe at ${p.agents} agents`,
  }));
}

/** The vega-lite spec: cost per size, operator vs bare loop, one panel per cost. */
export function costSpec(points: readonly SizePoint[]): vegaLite.TopLevelSpec {
  const values = points.flatMap((p) => [
    { agents: p.agents, side: 'operator', cost: 'cold start after /readyz (s)', value: p.coldAfterReadyS },
    { agents: p.agents, side: 'bare loop', cost: 'cold start after /readyz (s)', value: p.bareS },
    {
      agents: p.agents,
      side: 'operator',
      cost: 'CPU per agent per 10 s period (ms)',
      value: (p.opCpuPerProbeMs * p.probesPerS * 10) / p.agents,
    },
    {
      agents: p.agents,
      side: 'bare loop',
      cost: 'CPU per agent per 10 s period (ms)',
      value: (p.bareCpuPerProbeMs * p.probesPerS * 10) / p.agents,
    },
  ]);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    facet: { column: { field: 'cost', type: 'nominal', title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 260,
      height: 200,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'agents', type: 'quantitative', title: 'agents (x 3 pods x 3 bindings)' },
        y: { field: 'value', type: 'quantitative', title: null },
        color: { field: 'side', type: 'nominal', title: null },
      },
    },
  };
}

export async function costSvg(points: readonly SizePoint[]): Promise<string> {
  const view = new vega.View(vega.parse(vegaLite.compile(costSpec(points)).spec), { renderer: 'none' });
  return view.toSVG();
}

/**
 * Whether a reconcile's wait was for cores: the fleet and the control plane share the operator's
 * here, and past about 90 % busy more workers mostly wait longer each (16 workers and 64 probes in
 * flight at 1,000 agents: reconciles 1.5-1.8x as long, 9-24 % more visits; docs/benchmarks.md).
 */
function coresNote(machineBusyPct: number): string {
  const busy = `The machine was ${fixed(machineBusyPct, 0)} % busy over the steady window (every process on its cores)`;
  return machineBusyPct >= 90
    ? `${busy}: the reconciles waited for cores the fleet and the control plane held, so more workers add few visits here (read the reaction rows of that size; a real cluster runs the agents elsewhere).`
    : `${busy}: cores were free, so more workers or probes in flight would add visits.`;
}

/** Whether the steady state kept up with the probe period at the largest size. */
export function throughputNote(
  opts: Pick<BenchOptions, 'pods' | 'period' | 'workers' | 'probeConcurrency'>,
  largest: SizePoint,
): string {
  const needed = (largest.agents * opts.pods * 3) / opts.period;
  const head = `At ${largest.agents} agents and a ${opts.period} s period the steady state needs ${fixed(needed, 0)} interface probes/s; the operator made ${fixed(largest.probesPerS, 0)}/s (each probe is due again after 80-100 % of the period, so no verdict is older than a period) at ${fixed(largest.steadyCpuPct, 0)} % of a core`;
  return largest.probesPerS >= needed
    ? `${head}, so it kept up. Throughput can still run out before CPU does: each worker (\`--workers=${opts.workers}\`) holds one agent's probes and API writes, at most \`--probe-concurrency=${opts.probeConcurrency}\` probes are in flight, and when probes or the API server are slow, raise those before adding cores.`
    : largest.steadyCpuPct >= 90
      ? `${head}: it fell behind, its own process CPU-bound (one event loop): past this ceiling, shard (below).`
      : `${head}: it fell behind. Its own process was not CPU-bound: its \`--workers=${opts.workers}\` were busy ${fixed(largest.workersBusyPct, 0)} % of the steady window, each reconcile waiting on its agent's probes, at most \`--probe-concurrency=${opts.probeConcurrency}\` in flight, ${largest.steadyWritesPerPeriod > 0 ? `and on its API writes (${fixed(largest.steadyWritesPerPeriod, 1)} per period)` : 'not on API writes (none)'}. ${coresNote(largest.machineBusyPct)} A replica needs \`workers >= agents x mean reconcile time / period\`.`;
}
