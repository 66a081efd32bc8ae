/**
 * The work of `check`, without argument parsing or printing: get the card, run the static checks,
 * probe every eligible interface at the address it may be dialled at, and judge consistency.
 * Only the base URL's host (or what --connect-to maps) is ever dialled.
 */
import { readFile } from 'node:fs/promises';
import { InterfaceReason, InterfaceState } from '../../api/conditions.js';
import {
  cardDigest,
  CardParseError,
  interfaceEligibility,
  parseCard,
  redactUrl,
  staticChecks,
} from '../../card/index.js';
import { fetchCard, Prober, type TlsSettings } from '../../probe/index.js';
import { ExitError } from '../cli-errors.js';
import type { CheckedInterface, CheckReport } from './check-report.js';
import { applyConnectTo, type ConnectToRule } from './connect-to.js';

export interface CheckOptions {
  baseUrl?: URL;
  cardFile?: string;
  connectTo: ConnectToRule[];
  timeoutMs: number;
  bearerToken?: string;
  tls?: TlsSettings;
}

const CARD_PATH = '/.well-known/agent-card.json';

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Where host:port may be dialled: a --connect-to mapping, else the base URL's own host, else nowhere. */
function dialTarget(
  opts: CheckOptions,
  host: string,
  port: number,
): { address: string; port: number } | undefined {
  const mapped = applyConnectTo(opts.connectTo, host, port);
  if (mapped) return mapped;
  const base = opts.baseUrl?.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return base !== undefined && base === host.toLowerCase() ? { address: host, port } : undefined;
}

async function loadCard(opts: CheckOptions): Promise<unknown> {
  if (opts.cardFile) {
    let text: string;
    try {
      text = await readFile(opts.cardFile, 'utf8');
    } catch (err) {
      throw new ExitError(
        2,
        `CardFetchFailed: cannot read ${opts.cardFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ExitError(2, `CardInvalid: ${opts.cardFile} is not valid JSON (${(err as Error).message})`);
    }
  }
  const base = opts.baseUrl!;
  const port = defaultPort(base);
  const target = dialTarget(opts, base.hostname.replace(/^\[|\]$/g, ''), port)!;
  const result = await fetchCard({
    address: target.address,
    port: target.port,
    scheme: base.protocol === 'https:' ? 'https' : 'http',
    path: `${base.pathname.replace(/\/+$/, '')}${CARD_PATH}`,
    hostHeader: base.host,
    timeoutMs: opts.timeoutMs,
    tls: opts.tls,
  });
  if (result.kind === 'error') throw new ExitError(2, `${result.error.reason}: ${result.error.message}`);
  if (result.kind === 'notModified')
    throw new ExitError(2, 'CardFetchFailed: unexpected 304 without an ETag sent');
  return result.body;
}

export async function runCheck(opts: CheckOptions): Promise<CheckReport> {
  const json = await loadCard(opts);
  const card = parseCard(json);
  if (card instanceof CardParseError) throw new ExitError(2, `${card.reason}: ${card.message}`);
  const checkOpts =
    opts.baseUrl && !opts.cardFile
      ? {
          cardScheme: opts.baseUrl.protocol === 'https:' ? ('https' as const) : ('http' as const),
          allowLoopbackPlaintext: true, // a developer's local agent; never in the operator
        }
      : {};
  const findings = staticChecks(card, checkOpts);
  const eligibility = interfaceEligibility(card, checkOpts);
  const prober = new Prober({ concurrency: 16 });
  try {
    const interfaces = await Promise.all(
      card.interfaces.map(async (iface, i): Promise<CheckedInterface> => {
        const base = {
          url: redactUrl(iface.url),
          protocolBinding: iface.protocolBinding,
          protocolVersion: iface.protocolVersion,
          ...(iface.tenant ? { tenant: iface.tenant } : {}),
        };
        const e = eligibility[i]!;
        if (!e.eligible) {
          return {
            ...base,
            state: InterfaceState.Ineligible,
            reason: InterfaceReason.Ineligible,
            message: `${e.reason}: ${e.message}; not dialled`,
            evidence: {},
          };
        }
        const target = dialTarget(opts, e.endpoint.host, e.endpoint.port);
        if (!target) {
          const hp = e.endpoint.host.includes(':') ? `[${e.endpoint.host}]` : e.endpoint.host;
          return {
            ...base,
            state: InterfaceState.Unmapped,
            reason: InterfaceReason.Unmapped,
            message: `${iface.protocolBinding} ${redactUrl(iface.url)}: host ${e.endpoint.host} is not the base URL's host, so it is not dialled; use --connect-to ${hp}:${e.endpoint.port}:ADDRESS:PORT to probe it`,
            evidence: {},
          };
        }
        const r = await prober.probe(target, iface, {
          timeoutMs: opts.timeoutMs,
          bearerToken: opts.bearerToken,
          tls: opts.tls,
        });
        return { ...base, state: r.state, reason: r.reason, message: r.message, evidence: r.evidence };
      }),
    );
    const consistent =
      findings.length === 0 &&
      interfaces.length > 0 &&
      interfaces.every((i) => i.state === InterfaceState.Verified);
    return {
      consistent,
      card: { shape: card.shape, digest: cardDigest(card.raw) },
      findings: findings.map((f) => ({ reason: f.reason, message: f.message })),
      interfaces,
    };
  } finally {
    await prober.close();
  }
}
