/** The contract of a CLI command: parse its own arguments, write to the given streams, return an exit code. */
import type { SecretRedactor } from './secret-redactor.js';

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Secrets the command learns (a token) go here: main.ts redacts them from everything it prints. */
  secrets: SecretRedactor;
}

export interface Command {
  /** One line for the command list. */
  summary: string;
  /** Full usage text of the command. */
  usage: string;
  run(argv: string[], io: CommandIo): Promise<number>;
}
