/** Command-line options of `npm run bench` (bench/operator.ts). */
import { parseArgs } from 'node:util';

export interface BenchOptions {
  agents: number;
  /** Fleet sizes run one after the other (--sizes); [agents] when not given. */
  sizes: number[];
  build: boolean;
  pods: number;
  period: number;
  timeout: number;
  threshold: number;
  events: number;
  eventConcurrency: number;
  workers: number;
  probeConcurrency: number;
  steadyPeriods: number;
  agentsPerProcess: number;
  bareRounds: number;
  seed: number;
  write: boolean;
  out: string;
  /** Node.js options for the operator process only, before its entry point, e.g. --cpu-prof. */
  operatorNodeArgs: string;
  /** The fleet's HTTP keep-alive timeout in seconds; undefined: Node's default (5 s). */
  agentKeepAlive?: number;
}

export const usage = `usage: npm run bench -- [options]

The operator (a2a-operator run, as a child process) on a real control plane against
N agents x M pods x 3 bindings served by real @a2a-js/sdk agents; prints the results and
writes them to docs/benchmarks.md.

  --agents <n>              A2AAgents (default 20)
  --sizes <n,n,...>         run each size in turn (e.g. 100,300,1000) and print the cost curve;
                            overrides --agents
  --pods <n>                pods per agent (default 3)
  --period <s>              probe periodSeconds (default 10; the CRD's default is 30: at 5 s, 1,000
                            agents' fleet, control plane and operator need more than this machine's
                            2 cores, and the run measures the queue, not the operator)
  --timeout <s>             probe timeoutSeconds (default 3, the CRD's default)
  --threshold <n>           probe failureThreshold (default 2)
  --events <n>              gRPC break/heal events for reaction latency (default 24)
  --event-concurrency <n>   events in flight at once, each on a different agent (default 4)
  --workers <n>             operator --workers, and the bare loop's agents in flight (default 8, the operator's)
  --probe-concurrency <n>   operator --probe-concurrency, and the bare loop's (default 32)
  --steady-periods <n>      probe periods the steady-state window spans (default 3)
  --agents-per-process <n>  agents whose pods one fleet process serves, every pod address its
                            own SDK agent (default 100)
  --bare-rounds <n>         measured rounds of the bare loop; the median is reported (default 3)
  --agent-keep-alive <s>    how long the fleet's agents keep an idle HTTP connection (default
                            Node's 5 s, which the SDK's servers keep): below the probe period,
                            every visit opens new connections, on both sides of the comparison
  --seed <n>                seed for the choice of the agents whose gRPC breaks; seed+1 picks
                            the pods of the pod events (default 1)
  --out <file>              results file (default docs/benchmarks.md)
  --no-write                print only; leave the results file and the plot alone
  --no-build                run the existing dist/ (default: npm run build first)
  --operator-node-args <s>  Node.js options for the operator process only, space-separated,
                            before its entry point (e.g. --operator-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof
                            --heapsnapshot-signal=SIGUSR2"); profiles are written when the
                            bench stops the operator (SIGTERM, graceful exit). They follow the
                            image's own Node.js options (the Dockerfile's ENTRYPOINT), so they win
  -h, --help
`;

function positive(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} ${value}: expected a positive integer`);
  return n;
}

/** Parses argv; returns undefined when --help was asked for. */
export function parseOptions(argv: string[]): BenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      agents: { type: 'string' },
      pods: { type: 'string' },
      period: { type: 'string' },
      timeout: { type: 'string' },
      threshold: { type: 'string' },
      events: { type: 'string' },
      'event-concurrency': { type: 'string' },
      workers: { type: 'string' },
      'probe-concurrency': { type: 'string' },
      'steady-periods': { type: 'string' },
      'agents-per-process': { type: 'string' },
      'bare-rounds': { type: 'string' },
      seed: { type: 'string' },
      'agent-keep-alive': { type: 'string' },
      out: { type: 'string' },
      sizes: { type: 'string' },
      'operator-node-args': { type: 'string' },
      'no-write': { type: 'boolean' },
      'no-build': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const agents = positive(values.agents, 'agents', 20);
  const sizes = values.sizes?.split(',').map((v) => positive(v.trim(), 'sizes', 0)) ?? [agents];
  return {
    agents,
    sizes,
    build: !values['no-build'],
    pods: positive(values.pods, 'pods', 3),
    period: positive(values.period, 'period', 10),
    timeout: positive(values.timeout, 'timeout', 3),
    threshold: positive(values.threshold, 'threshold', 2),
    events: positive(values.events, 'events', 24),
    eventConcurrency: positive(values['event-concurrency'], 'event-concurrency', 4),
    workers: positive(values.workers, 'workers', 8),
    probeConcurrency: positive(values['probe-concurrency'], 'probe-concurrency', 32),
    steadyPeriods: positive(values['steady-periods'], 'steady-periods', 3),
    agentsPerProcess: positive(values['agents-per-process'], 'agents-per-process', 100),
    bareRounds: positive(values['bare-rounds'], 'bare-rounds', 3),
    seed: positive(values.seed, 'seed', 1),
    write: !values['no-write'],
    out: values.out ?? 'docs/benchmarks.md',
    operatorNodeArgs: values['operator-node-args'] ?? '',
    ...(values['agent-keep-alive'] === undefined
      ? {}
      : { agentKeepAlive: positive(values['agent-keep-alive'], 'agent-keep-alive', 0) }),
  };
}
