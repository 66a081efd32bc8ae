/** `a2a-operator check`: argument parsing and output; the work is in ../check/run-check.ts. */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ExitError, UsageError } from '../cli-errors.js';
import type { Command } from '../command.js';
import { reportJson } from '../check/check-report.js';
import { parseConnectTo } from '../check/connect-to.js';
import { renderTable } from '../check/render-table.js';
import { runCheck, type CheckOptions } from '../check/run-check.js';

const usage = `usage: a2a-operator check <base-url> [options]
       a2a-operator check --card <file> [<base-url>] [options]

Fetches <base-url>/.well-known/agent-card.json (with A2A-Version: 1.0), runs the card's static
checks, probes every declared interface over its own binding with a side-effect-free GetTask,
and reports which interfaces are really served.

Only the base URL's host is dialled; a card URL naming another host is reported Unmapped unless
--connect-to maps it. Redirects are never followed.

options:
  --card <file>            check this card instead of fetching one
  --connect-to <h:p:a:p>   send connections for host h port p to address a port p (as curl;
                           repeatable; an empty field matches any / keeps the original)
  --timeout <duration>     per request: 5s (default), 500ms, or seconds as a number
  --token <token>          bearer token sent with every probe
  --token-file <file>      read the bearer token from a file
  --cacert <file>          PEM CA bundle to verify TLS servers with
  --insecure               do not verify TLS certificates
  --output <table|json>    output format (default table)
  -h, --help               show this help

exit status: 0 every declared interface is Verified and the card has no findings;
             1 the card is inconsistent; 2 usage error, or the card cannot be fetched or parsed.
`;

function parseTimeout(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new UsageError(`--timeout ${text}: expected a duration such as 5s, 500ms or 3`);
  const ms = m[2] === 'ms' ? Number(m[1]) : Number(m[1]) * 1000;
  if (!(ms > 0)) throw new UsageError('--timeout must be positive');
  return ms;
}

async function readOption(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new ExitError(
      2,
      `cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
}

async function parseOptions(
  argv: string[],
): Promise<{ opts: CheckOptions; output: 'table' | 'json' } | 'help'> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        card: { type: 'string' },
        'connect-to': { type: 'string', multiple: true },
        timeout: { type: 'string' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        cacert: { type: 'string' },
        insecure: { type: 'boolean' },
        output: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length > 1) throw new UsageError(`expected one base URL, got ${positionals.length}`);
  const raw = positionals[0];
  if (raw === undefined && values.card === undefined)
    throw new UsageError('missing <base-url> (or --card <file>)');
  let baseUrl: URL | undefined;
  if (raw !== undefined) {
    try {
      baseUrl = new URL(raw);
    } catch {
      throw new UsageError(`${raw} is not an absolute URL`);
    }
    if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
      throw new UsageError(`${raw}: only http and https`);
    if (baseUrl.username || baseUrl.password)
      throw new UsageError(`${raw}: credentials in the URL are not sent; use --token`);
  }
  const output = values.output ?? 'table';
  if (output !== 'table' && output !== 'json')
    throw new UsageError(`--output ${output}: expected table or json`);
  if (values.token !== undefined && values['token-file'] !== undefined) {
    throw new UsageError('--token and --token-file are exclusive');
  }
  const token =
    values['token-file'] !== undefined
      ? (await readOption(values['token-file'], 'token file')).trim()
      : values.token;
  const ca = values.cacert !== undefined ? await readOption(values.cacert, 'CA bundle') : undefined;
  const tls =
    ca !== undefined || values.insecure
      ? { ...(ca ? { ca } : {}), insecureSkipVerify: values.insecure === true }
      : undefined;
  return {
    output,
    opts: {
      baseUrl,
      cardFile: values.card,
      connectTo: (values['connect-to'] ?? []).map(parseConnectTo),
      timeoutMs: values.timeout !== undefined ? parseTimeout(values.timeout) : 5000,
      ...(token ? { bearerToken: token } : {}),
      ...(tls ? { tls } : {}),
    },
  };
}

export const command: Command = {
  summary: "probe an agent's declared interfaces against its card",
  usage,
  async run(argv, io) {
    const parsed = await parseOptions(argv);
    if (parsed === 'help') {
      io.stdout.write(usage);
      return 0;
    }
    const report = await runCheck(parsed.opts);
    io.stdout.write(parsed.output === 'json' ? reportJson(report) : renderTable(report));
    return report.consistent ? 0 : 1;
  },
};
