/**
 * The work of `check`, without argument parsing or printing: get the card, run the static checks,
 * probe every eligible interface at the address it may be dialled at, and judge consistency.
 * Only what dial-policy.ts allows is dialled; each host name is resolved once and every
 * connection goes to that address (Host, :authority and SNI keep the name), so a DNS answer
 * that changes between probes cannot move them elsewhere. At most MAX_INTERFACES interfaces
 * are probed, and the whole run ends by the deadline.
 */
import { CapabilityState, InterfaceReason, InterfaceState, CardReason } from '../../api/conditions.js';
import {
  CAPABILITIES,
  capabilityClaims,
  cardDigest,
  CardParseError,
  interfaceEligibility,
  parseCard,
  staticChecks,
  trimTrailingSlashes,
  type ParsedCard,
  type StaticCheckOptions,
} from '../../card/index.js';
import { MAX_INTERFACES } from '../../observation/interface-map.js';
import { fetchCard, Prober, type TlsSettings } from '../../probe/index.js';
import { ExitError } from '../cli-errors.js';
import type { CapabilityMode, CheckedCapability, CheckedInterface, CheckReport } from './check-report.js';
import { bareHost, type ConnectToRule } from './connect-to.js';
import { dialDecision, type DialPolicy } from './dial-policy.js';
import { Deadline } from './deadline.js';
import { HostPins, type Resolve } from './host-pins.js';
import { redactUrlCredentials } from '../../text/redact-credentials.js';
import type { DialTarget } from '../../probe/dial-target.js';
import { runTaskContinuity, type VerifiedInterface } from '../../client/task-continuity.js';

export interface CheckOptions {
  baseUrl?: URL;
  /** The card of `--card FILE` (read-card-file.ts); without it the card is fetched from baseUrl. */
  cardJson?: unknown;
  connectTo: ConnectToRule[];
  /** Other ports of the base host that may be dialled. */
  allowPorts: number[];
  timeoutMs: number;
  /** The whole run: what has not finished by then is reported Timeout. */
  deadlineMs: number;
  bearerToken?: string;
  tls?: TlsSettings;
  /** Host name to address; default: the system resolver, IPv4 preferred. */
  resolve?: Resolve;
  /** Capability truth: `Report` (default) or `Enforce` (a claim not served makes the card inconsistent). */
  capabilities?: CapabilityMode;
  /** `--task-continuity`: after the probes, send this message and look its task up elsewhere (creates a task). */
  taskContinuity?: { message: string };
}

const CARD_PATH = '/.well-known/agent-card.json';
const LATE: unique symbol = Symbol('late');

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function dialPolicy(opts: CheckOptions): DialPolicy {
  return {
    ...(opts.baseUrl
      ? { baseHost: bareHost(opts.baseUrl.hostname), basePort: defaultPort(opts.baseUrl) }
      : {}),
    allowPorts: opts.allowPorts,
    connectTo: opts.connectTo,
  };
}

/**
 * A request may not outlive the deadline by much, but runs a little past it so that the
 * deadline, not the request's own timer, is what reports it (the message then names --deadline).
 */
function requestTimeout(timeoutMs: number, deadline: Deadline): number {
  return Math.max(1, Math.min(timeoutMs, deadline.remainingMs + 250));
}

function deadlineText(d: Deadline): string {
  return `the --deadline of ${d.ms / 1000}s passed`;
}

async function fetchBaseCard(opts: CheckOptions, pins: HostPins, deadline: Deadline): Promise<unknown> {
  const base = opts.baseUrl!;
  const port = defaultPort(base);
  const decision = dialDecision(dialPolicy(opts), base.hostname, port);
  if (decision.kind !== 'dial') throw new Error('the base URL is always dialled');
  // The deadline settles a race with a marker, not a throw: a late rejection nobody awaits would crash the CLI.
  const late = (): typeof LATE => LATE;
  const lateError = () =>
    new ExitError(2, `${CardReason.CardFetchFailed}: ${deadlineText(deadline)} before the card was fetched`);
  const address = await deadline.race(pins.address(decision.host), late);
  if (address === LATE) throw lateError();
  if (typeof address !== 'string')
    throw new ExitError(
      2,
      `${CardReason.CardFetchFailed}: cannot resolve ${decision.host} (${address.code})`,
    );
  const result = await deadline.race(
    fetchCard({
      address,
      port: decision.port,
      scheme: base.protocol === 'https:' ? 'https' : 'http',
      path: `${trimTrailingSlashes(base.pathname)}${CARD_PATH}`,
      hostHeader: base.host,
      timeoutMs: requestTimeout(opts.timeoutMs, deadline),
      tls: opts.tls,
    }),
    late,
  );
  if (result === LATE || (result.kind === 'error' && deadline.remainingMs === 0)) throw lateError();
  if (result.kind === 'error') throw new ExitError(2, `${result.error.reason}: ${result.error.message}`);
  if (result.kind === 'notModified')
    throw new ExitError(2, `${CardReason.CardFetchFailed}: unexpected 304 without an ETag sent`);
  return result.body;
}

/** Parse, static checks and digest; any card the JSON parser accepted ends here as a verdict or CardInvalid. */
function judgeCard(
  json: unknown,
  checkOpts: StaticCheckOptions,
): {
  card: ParsedCard;
  findings: { reason: string; message: string }[];
  eligibility: ReturnType<typeof interfaceEligibility>;
  digest: string;
} {
  let card: ParsedCard | CardParseError;
  try {
    card = parseCard(json);
    if (card instanceof CardParseError) throw new ExitError(2, `${card.reason}: ${card.message}`);
    const findings = staticChecks(card, checkOpts).map((f) => ({ reason: f.reason, message: f.message }));
    const eligibility = interfaceEligibility(card, checkOpts);
    return { card, findings, eligibility, digest: cardDigest(card.raw) };
  } catch (err) {
    if (err instanceof ExitError) throw err;
    // The card layer should judge every parsed card; if it throws instead, the card is still invalid, not the CLI broken.
    throw new ExitError(
      2,
      `${CardReason.CardInvalid}: the card cannot be processed (${err instanceof Error ? err.name : 'error'}); check its numbers, nesting and sizes`,
    );
  }
}

export async function runCheck(opts: CheckOptions): Promise<CheckReport> {
  const deadline = new Deadline(opts.deadlineMs);
  const pins = new HostPins(opts.resolve);
  const prober = new Prober({ concurrency: 16 });
  let timedOut = false;
  try {
    const json = opts.cardJson !== undefined ? opts.cardJson : await fetchBaseCard(opts, pins, deadline);
    const checkOpts =
      opts.baseUrl && opts.cardJson === undefined
        ? {
            cardScheme: opts.baseUrl.protocol === 'https:' ? ('https' as const) : ('http' as const),
            allowLoopbackPlaintext: true, // a developer's local agent; never in the operator
          }
        : {};
    const { card, findings, eligibility, digest } = judgeCard(json, checkOpts);
    const policy = dialPolicy(opts);
    const claims = capabilityClaims(card.raw);
    const targets: (DialTarget | undefined)[] = [];
    const interfaces = await Promise.all(
      card.interfaces.map(async (iface, i): Promise<CheckedInterface> => {
        const base = {
          url: iface.url,
          protocolBinding: iface.protocolBinding,
          protocolVersion: iface.protocolVersion,
          ...(iface.tenant ? { tenant: iface.tenant } : {}),
        };
        const what = `${iface.protocolBinding} ${redactUrlCredentials(iface.url)}`;
        const notDialled = (
          state: typeof InterfaceState.Ineligible | typeof InterfaceState.Unmapped,
          message: string,
        ): CheckedInterface => ({ ...base, state, reason: InterfaceReason[state], message, evidence: {} });
        if (i >= MAX_INTERFACES) {
          return notDialled(
            InterfaceState.Ineligible,
            `${what}: interface #${i + 1} is past the ${MAX_INTERFACES} probed per card; not dialled`,
          );
        }
        const e = eligibility[i]!;
        if (!e.eligible)
          return notDialled(InterfaceState.Ineligible, `${e.reason}: ${e.message}; not dialled`);
        const decision = dialDecision(policy, e.endpoint.host, e.endpoint.port);
        if (decision.kind === 'portNotAllowed')
          return notDialled(InterfaceState.Ineligible, `${what}: ${decision.message}`);
        if (decision.kind === 'hostNotMapped')
          return notDialled(InterfaceState.Unmapped, `${what}: ${decision.message}`);
        const late = (): CheckedInterface => {
          timedOut = true;
          return {
            ...base,
            state: InterfaceState.Timeout,
            reason: InterfaceReason.Timeout,
            message: `${what}: not finished when ${deadlineText(deadline)}`,
            evidence: {},
          };
        };
        let dialled: string | undefined;
        const checked = await deadline.race(
          (async (): Promise<CheckedInterface> => {
            const address = await pins.address(decision.host);
            if (typeof address !== 'string') {
              return {
                ...base,
                state: InterfaceState.Unreachable,
                reason: InterfaceReason.Unreachable,
                message: `${what}: cannot resolve ${decision.host} (${address.code}); not dialled`,
                evidence: { errorCode: address.code },
              };
            }
            dialled = address;
            targets[i] = { address, port: decision.port };
            const r = await prober.probe({ address, port: decision.port }, iface, {
              timeoutMs: requestTimeout(opts.timeoutMs, deadline),
              notAfter: deadline.notAfter,
              bearerToken: opts.bearerToken,
              tls: opts.tls,
            });
            // Pending (its turn came after notAfter) or a request cut at the deadline: the deadline's doing, said so.
            if (r.state === InterfaceState.Pending) return late();
            if (r.state === InterfaceState.Timeout && deadline.remainingMs === 0) return late();
            return { ...base, state: r.state, reason: r.reason, message: r.message, evidence: r.evidence };
          })(),
          late,
        );
        if (checked.state !== InterfaceState.Verified || dialled === undefined) return checked;
        // Capability truth on the served interface: the three calls at once, each bounded like a
        // probe. Raced apart from the probe, so the deadline cuts only them (NotProbed), never
        // the interface's own verdict.
        const address = dialled;
        const capabilities = await deadline.race(
          Promise.all(
            CAPABILITIES.map((c): Promise<CheckedCapability> =>
              prober.probeCapability({ address, port: decision.port }, iface, c, claims[c], {
                timeoutMs: requestTimeout(opts.timeoutMs, deadline),
                notAfter: deadline.notAfter,
                bearerToken: opts.bearerToken,
                tls: opts.tls,
              }),
            ),
          ),
          () => {
            timedOut = true;
            return CAPABILITIES.map((c): CheckedCapability => ({
              capability: c,
              declared: claims[c],
              state: CapabilityState.NotProbed,
              message: `${what}: ${c} not probed (${deadlineText(deadline)})`,
            }));
          },
        );
        return { ...checked, capabilities };
      }),
    );
    const taskContinuity = opts.taskContinuity
      ? await runTaskContinuity({
          raw: card.raw,
          verified: card.interfaces.flatMap((iface, i): VerifiedInterface[] => {
            const e = eligibility[i];
            const target = targets[i];
            return interfaces[i]?.state === InterfaceState.Verified && e?.eligible && target
              ? [{ iface, endpoint: e.endpoint, target }]
              : [];
          }),
          prober,
          timeoutMs: requestTimeout(opts.timeoutMs, deadline),
          message: opts.taskContinuity.message,
          ...(opts.bearerToken !== undefined ? { bearerToken: opts.bearerToken } : {}),
          ...(opts.tls ? { tls: opts.tls } : {}),
        })
      : undefined;
    const consistent =
      findings.length === 0 &&
      interfaces.length > 0 &&
      interfaces.every((i) => i.state === InterfaceState.Verified) &&
      !taskContinuity?.interfaces.some((i) => i.result === 'TaskNotShared');
    const mode = opts.capabilities ?? 'Report';
    const capabilitiesConsistent = interfaces.every((i) =>
      (i.capabilities ?? []).every(
        (c) => c.state !== CapabilityState.NotServed && c.state !== CapabilityState.Inconclusive,
      ),
    );
    return {
      consistent: consistent && (mode === 'Report' || capabilitiesConsistent),
      card: { shape: card.shape, digest },
      findings,
      interfaces,
      capabilities: { mode, consistent: capabilitiesConsistent },
      ...(taskContinuity ? { taskContinuity } : {}),
    };
  } finally {
    deadline.dispose();
    // After a deadline, probes may still hold connections: closing them is not worth waiting for.
    const closed = prober.close().catch(() => undefined);
    if (timedOut) await Promise.race([closed, new Promise((r) => setTimeout(r, 500).unref())]);
    else await closed;
  }
}
