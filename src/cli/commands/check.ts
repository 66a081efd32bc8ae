/** `a2a-operator check`: argument parsing and output; the work is in ../check/run-check.ts. */
import { parseArgs } from 'node:util';
import { bearerTokenProblem } from '../../probe/bearer-token.js';
import { ExitError, UsageError } from '../cli-errors.js';
import type { Command } from '../command.js';
import { parseConnectTo } from '../check/connect-to.js';
import { parseAllowPorts } from '../check/dial-policy.js';
import { parseDuration } from '../check/duration.js';
import { readAtMost } from '../check/read-at-most.js';
import { readCardFile } from '../check/read-card-file.js';
import { credentialsIn, redactCredentials } from '../../text/redact-credentials.js';
import { redactReport } from '../check/redact-report.js';
import { renderOutput, OUTPUTS, type OutputFormat } from '../check/render-output.js';
import { renderContinuity } from '../../client/task-continuity.js';
import { runCheck, type CheckOptions } from '../check/run-check.js';
import type { SecretRedactor } from '../secret-redactor.js';

const usage = `usage: a2a-operator check <base-url> [options]
       a2a-operator check --card <file> [<base-url>] [options]

Fetches <base-url>/.well-known/agent-card.json (with A2A-Version: 1.0), runs the card's static
checks, probes every declared interface over its own binding with a side-effect-free GetTask,
and reports which interfaces are really served.

Only the base URL's host and port are dialled (the host resolved once, every connection to that
address). A card URL naming another port of that host is Ineligible unless --allow-port names
it; one naming another host is Unmapped unless --connect-to maps it. Redirects are never
followed. At most 64 interfaces are probed.

options:
  --card <file>            check this card instead of fetching one
  --connect-to <h:p:a:p>   send connections for host h port p to address a port p (as curl;
                           repeatable; an empty field matches any / keeps the original)
  --allow-port <port>      also dial this port of the base URL's host (repeatable)
  --timeout <duration>     per request: 5s (default), 500ms, or seconds as a number
  --deadline <duration>    the whole check: 60s (default); what has not finished is Timeout
  --token <token>          bearer token sent with every probe
  --token-file <file>      read the bearer token from a file (at most 64 KiB)
  --cacert <file>          PEM CA bundle to verify TLS servers with
  --insecure               do not verify TLS certificates
  --output <format>        table (default), json, junit (JUnit XML for CI test reports)
                           or github (GitHub Actions annotations): docs/ci.md
  --capabilities <report|enforce>
                           capability truth (streaming, push notifications, extended card
                           checked per Verified interface): report (default) or enforce (a
                           claimed capability not served makes the card inconsistent)
  --task-continuity        also check that the verified interfaces share one task store: send
                           one message over the first (THIS CREATES A TASK on the agent), GetTask
                           its id over every other, then cancel it where the agent allows;
                           TaskNotShared on any interface makes the exit status 1
  --message <text>         the message --task-continuity sends (default: a fixed probe text)
  -h, --help               show this help

exit status: 0 every declared interface is Verified and the card has no findings;
             1 the card is inconsistent (or an interface was cut off by --deadline; with
               --capabilities enforce, also a claimed capability not served or unproven);
             2 usage error, or the card cannot be fetched or parsed.

Strings from the card and the agent's answers are printed with control characters escaped;
credentials in URLs and the token are printed as ***.
`;

const DEFAULT_CONTINUITY_MESSAGE = 'a2a-operator check --task-continuity: please ignore';

/** A bearer token is one line; a file this large is not one (and is not read further). */
export const MAX_TOKEN_FILE_BYTES = 64 * 1024;
/** Room for any CA bundle (the whole Mozilla set is about 220 KB). */
export const MAX_CA_FILE_BYTES = 1024 * 1024;

/** `file`, read to at most `maxBytes` (+1 to see it is over): over is a usage error that quotes nothing of it. */
async function readOption(file: string, what: string, flag: string, maxBytes: number): Promise<string> {
  let raw: Buffer;
  try {
    raw = await readAtMost(file, maxBytes + 1);
  } catch (err) {
    throw new ExitError(
      2,
      `cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  if (raw.length > maxBytes)
    throw new UsageError(`${flag} ${file}: larger than the ${maxBytes}-byte limit for a ${what}`);
  return raw.toString('utf8');
}

/** The token's value as given on the command line, found before parsing so even a parse error cannot print it. */
function tokenArguments(argv: readonly string[]): string[] {
  const found: string[] = [];
  argv.forEach((arg, i) => {
    if (arg === '--token' && i + 1 < argv.length) found.push(argv[i + 1]!);
    else if (arg.startsWith('--token=')) found.push(arg.slice('--token='.length));
  });
  return found;
}

function checkToken(token: string, from: string): string {
  const problem = bearerTokenProblem(token);
  if (problem) throw new UsageError(`${from}: ${problem}`);
  return token;
}

async function parseOptions(
  argv: string[],
  secrets: SecretRedactor,
): Promise<{ opts: CheckOptions; output: OutputFormat; cardFile?: string } | 'help'> {
  for (const t of tokenArguments(argv)) secrets.add(t);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        card: { type: 'string' },
        'connect-to': { type: 'string', multiple: true },
        'allow-port': { type: 'string', multiple: true },
        timeout: { type: 'string' },
        deadline: { type: 'string' },
        token: { type: 'string' },
        'token-file': { type: 'string' },
        cacert: { type: 'string' },
        insecure: { type: 'boolean' },
        output: { type: 'string', short: 'o' },
        capabilities: { type: 'string' },
        'task-continuity': { type: 'boolean' },
        message: { type: 'string' },
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
      throw new UsageError(`${redactCredentials(raw)}: credentials in the URL are not sent; use --token`);
  }
  const output = values.output ?? 'table';
  if (!(OUTPUTS as readonly string[]).includes(output))
    throw new UsageError(`--output ${output}: expected ${OUTPUTS.join(', ')}`);
  if (values.token !== undefined && values['token-file'] !== undefined) {
    throw new UsageError('--token and --token-file are exclusive');
  }
  let token: string | undefined;
  if (values['token-file'] !== undefined) {
    const text = await readOption(values['token-file'], 'token file', '--token-file', MAX_TOKEN_FILE_BYTES);
    secrets.add(text);
    secrets.add(text.trim());
    token = checkToken(text.trim(), `--token-file ${values['token-file']}`);
  } else if (values.token !== undefined) {
    token = checkToken(values.token, '--token');
  }
  if (token !== undefined) secrets.add(token);
  const ca =
    values.cacert !== undefined
      ? await readOption(values.cacert, 'CA bundle', '--cacert', MAX_CA_FILE_BYTES)
      : undefined;
  const tls =
    ca !== undefined || values.insecure
      ? { ...(ca ? { ca } : {}), insecureSkipVerify: values.insecure === true }
      : undefined;
  const connectTo = (values['connect-to'] ?? []).map(parseConnectTo);
  const allowPorts = parseAllowPorts(values['allow-port'] ?? []);
  const timeoutMs = values.timeout !== undefined ? parseDuration(values.timeout, '--timeout') : 5000;
  const deadlineMs = values.deadline !== undefined ? parseDuration(values.deadline, '--deadline') : 60_000;
  const cardJson = values.card !== undefined ? await readCardFile(values.card) : undefined;
  const capabilities = values.capabilities ?? 'report';
  if (capabilities !== 'report' && capabilities !== 'enforce')
    throw new UsageError(`--capabilities ${capabilities}: expected report or enforce`);
  if (values.message !== undefined && !values['task-continuity'])
    throw new UsageError('--message is only sent with --task-continuity');
  return {
    output: output as OutputFormat,
    ...(values.card !== undefined ? { cardFile: values.card } : {}),
    opts: {
      baseUrl,
      ...(cardJson !== undefined ? { cardJson } : {}),
      connectTo,
      allowPorts,
      timeoutMs,
      deadlineMs,
      ...(token !== undefined ? { bearerToken: token } : {}),
      ...(tls ? { tls } : {}),
      capabilities: capabilities === 'enforce' ? 'Enforce' : 'Report',
      ...(values['task-continuity']
        ? { taskContinuity: { message: values.message ?? DEFAULT_CONTINUITY_MESSAGE } }
        : {}),
    },
  };
}

export const command: Command = {
  summary: "probe an agent's declared interfaces against its card",
  usage,
  async run(argv, io) {
    const parsed = await parseOptions(argv, io.secrets);
    if (parsed === 'help') {
      io.stdout.write(usage);
      return 0;
    }
    const report = await runCheck(parsed.opts);
    // Credentials a card's URLs carry are known secrets too: redacted wherever a message quotes them.
    for (const secret of report.interfaces.flatMap((i) => credentialsIn(i.url))) io.secrets.add(secret, 4);
    const redact = (text: string) => io.secrets.redact(redactCredentials(text));
    const shown = redactReport(report, redact);
    const text = renderOutput(parsed.output, shown, {
      target: parsed.opts.baseUrl ? redact(parsed.opts.baseUrl.href) : (parsed.cardFile ?? 'card'),
      ...(parsed.cardFile !== undefined ? { cardFile: parsed.cardFile } : {}),
    });
    // The continuity result is in the JSON document; the table gets its own section.
    const continuity =
      parsed.output === 'table' && shown.taskContinuity ? renderContinuity(shown.taskContinuity) : '';
    io.stdout.write(io.secrets.redact(text + continuity));
    return report.consistent ? 0 : 1;
  },
};
