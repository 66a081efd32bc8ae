/** `a2a-operator run`: the operator itself. Flags override environment variables. */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ExitError, UsageError } from '../cli-errors.js';
import type { Command } from '../command.js';
import { KubeConfigError } from '../../kube/errors.js';

const usage = `usage: a2a-operator run [options]

Watches A2AAgents, probes their pods' interfaces against the cards they publish, writes status
and (in Enforce mode) routes only verified interfaces. Runs in-cluster (service account) or with
a kubeconfig.

options (environment variable in brackets):
  --kubeconfig <file>          kubeconfig to use [KUBECONFIG]; default in-cluster, then ~/.kube/config
  --namespaces <a,b>           namespaces to watch [A2A_NAMESPACES]; default all
  --workers <n>                concurrent reconciles [A2A_WORKERS] (default 8)
  --probe-concurrency <n>      probes in flight at once [A2A_PROBE_CONCURRENCY] (default 32)
  --metrics-address <addr>     /metrics, /healthz, /readyz [A2A_METRICS_ADDRESS] (default :8080)
  --cards-address <addr>       advertised-card endpoint [A2A_CARDS_ADDRESS] (default :8081)
  --cards-index <mode>         agent index on the card endpoint [A2A_CARDS_INDEX] (default namespace):
                                 namespace  GET /cards/<ns> lists that namespace's agents
                                 cluster    also GET /cards, every agent the operator watches
                                 none       no index; only GET /cards/<ns>/<name>
  --leader-elect <bool>        Lease leader election [A2A_LEADER_ELECT] (default true)
  --lease-namespace <ns>       namespace of the Lease [A2A_LEASE_NAMESPACE]; default the pod's namespace
  --lease-name <name>          name of the Lease [A2A_LEASE_NAME] (default a2a-operator)
  --identity <id>              leader-election identity [POD_NAME]; default host-pid-random
  --log-level <level>          trace|debug|info|warn|error [A2A_LOG_LEVEL] (default info)
  -h, --help                   show this help

exit status: 0 stopped by SIGTERM/SIGINT after a graceful shutdown; 1 lost the lease (restart me).
`;

const SA_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

function intOption(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} ${value}: expected a positive integer`);
  return n;
}

function boolOption(value: string, name: string): boolean {
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new UsageError(`--${name} ${value}: expected true or false`);
}

// Kept here rather than imported from routing/card-server.ts: the CLI loads the operator lazily.
const CARD_INDEX_MODES = ['cluster', 'namespace', 'none'] as const;
const isCardIndexMode = (v: string): v is (typeof CARD_INDEX_MODES)[number] =>
  (CARD_INDEX_MODES as readonly string[]).includes(v);

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

export const command: Command = {
  summary: 'run the operator',
  usage,
  async run(argv, io) {
    let values;
    try {
      ({ values } = parseArgs({
        args: argv,
        options: {
          kubeconfig: { type: 'string' },
          namespaces: { type: 'string' },
          workers: { type: 'string' },
          'probe-concurrency': { type: 'string' },
          'metrics-address': { type: 'string' },
          'cards-address': { type: 'string' },
          'cards-index': { type: 'string' },
          'leader-elect': { type: 'string' },
          'lease-namespace': { type: 'string' },
          'lease-name': { type: 'string' },
          identity: { type: 'string' },
          'log-level': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
        strict: true,
      }));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (values.help) {
      io.stdout.write(usage);
      return 0;
    }
    const env = process.env;
    const logLevel = values['log-level'] ?? env.A2A_LOG_LEVEL ?? 'info';
    if (!LEVELS.includes(logLevel))
      throw new UsageError(`--log-level ${logLevel}: expected one of ${LEVELS.join(', ')}`);
    const cardsIndex = values['cards-index'] ?? env.A2A_CARDS_INDEX ?? 'namespace';
    if (!isCardIndexMode(cardsIndex))
      throw new UsageError(`--cards-index ${cardsIndex}: expected one of ${CARD_INDEX_MODES.join(', ')}`);
    const namespaces = (values.namespaces ?? env.A2A_NAMESPACES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const leaseNamespace =
      values['lease-namespace'] ??
      env.A2A_LEASE_NAMESPACE ??
      env.POD_NAMESPACE ??
      (existsSync(SA_NAMESPACE) ? readFileSync(SA_NAMESPACE, 'utf8').trim() : 'default');
    // Credentials never reach the logs: probe tokens are not logged anywhere, and these paths
    // are redacted should an object carrying them ever be logged.
    const log = pino({
      level: logLevel,
      base: { component: 'a2a-operator' },
      redact: {
        paths: ['*.token', '*.bearerToken', '*.authorization', '*.headers.authorization', '*.data'],
        censor: '[redacted]',
      },
    });
    const opts = {
      kubeconfig: values.kubeconfig ?? env.KUBECONFIG,
      namespaces,
      workers: intOption(values.workers ?? env.A2A_WORKERS ?? '8', 'workers'),
      probeConcurrency: intOption(
        values['probe-concurrency'] ?? env.A2A_PROBE_CONCURRENCY ?? '32',
        'probe-concurrency',
      ),
      metricsAddress: values['metrics-address'] ?? env.A2A_METRICS_ADDRESS ?? ':8080',
      cardsAddress: values['cards-address'] ?? env.A2A_CARDS_ADDRESS ?? ':8081',
      cardsIndex,
      leaderElection: boolOption(values['leader-elect'] ?? env.A2A_LEADER_ELECT ?? 'true', 'leader-elect'),
      leaseNamespace,
      leaseName: values['lease-name'] ?? env.A2A_LEASE_NAME ?? 'a2a-operator',
      identity: values.identity ?? env.POD_NAME,
      log,
    };
    const { Manager } = await import('../../operator/manager.js');
    const { signCard } = await import('../../routing/card-signing.js');
    let manager;
    try {
      manager = new Manager({ ...opts, signer: signCard });
    } catch (err) {
      if (err instanceof KubeConfigError) throw new ExitError(1, err.message);
      throw err;
    }
    const stop = new AbortController();
    const onSignal = (sig: NodeJS.Signals) => {
      log.info({ signal: sig }, 'shutting down');
      stop.abort();
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    log.info(
      { namespaces: namespaces.length ? namespaces : 'all', leaderElection: opts.leaderElection },
      'starting',
    );
    const reason = await manager.run(stop.signal);
    log.info({ reason }, 'stopped');
    return reason === 'lost-lease' ? 1 : 0;
  },
};
