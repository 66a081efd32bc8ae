/** The contract of a CLI command: parse its own arguments, write to the given streams, return an exit code. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface Command {
  /** One line for the command list. */
  summary: string;
  /** Full usage text of the command. */
  usage: string;
  run(argv: string[], io: CommandIo): Promise<number>;
}
