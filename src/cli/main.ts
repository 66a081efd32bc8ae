#!/usr/bin/env node
/**
 * `a2a-operator <command> …`. Commands are loaded lazily from ./commands/<name>.ts; adding one is
 * one entry in `commands`. This is the only module that calls process.exit.
 */
import type { Command } from './command.js';
import { ExitError, UsageError } from './cli-errors.js';
import { redactCredentials } from '../text/redact-credentials.js';
import { SecretRedactor } from './secret-redactor.js';
import { clipText, printable } from '../text/display-text.js';

const secrets = new SecretRedactor();

/**
 * An error message may quote a card, an answer or an argument: control characters escaped, URL
 * credentials and known secrets (the token) redacted, before and after escaping, and clipped.
 */
function safe(text: string): string {
  return clipText(secrets.redact(printable(secrets.redact(redactCredentials(text)))), 4000);
}

const commands: Record<string, { summary: string; load: () => Promise<{ command: Command }> }> = {
  run: {
    summary: 'run the operator (watch A2AAgents, probe, write status, route verified interfaces)',
    load: () => import('./commands/run.js'),
  },
  check: {
    summary: "probe an agent's declared interfaces against its card (for CI and people)",
    load: () => import('./commands/check.js'),
  },
};

function usage(): string {
  const list = Object.entries(commands)
    .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
    .join('\n');
  return `usage: a2a-operator <command> [options]\n\ncommands:\n${list}\n\nRun a2a-operator <command> --help for a command's options.\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry) {
    process.stderr.write(`a2a-operator: unknown command "${safe(name)}"\n${usage()}`);
    return 2;
  }
  const { command } = await entry.load();
  try {
    return await command.run(rest, { stdout: process.stdout, stderr: process.stderr, secrets });
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`a2a-operator ${name}: ${safe(err.message)}\n${command.usage}`);
      return err.exitCode;
    }
    if (err instanceof ExitError) {
      process.stderr.write(`a2a-operator ${name}: ${safe(err.message)}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Streams flush before exit; pools and channels were closed by the command.
    process.stdout.write('', () => process.exit(code));
  },
  (err: unknown) => {
    // A stack is kept for bug reports, one escaped line at a time (its message may quote a card or a token).
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`a2a-operator: internal error: ${text.split('\n').map(safe).join('\n')}\n`);
    process.exit(70);
  },
);
