/** Errors a command throws to choose its exit status; only main.ts turns them into one. */

/** Bad arguments: exit 2 with the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'OPR_ERR_CLI_USAGE';
  readonly exitCode = 2;
}

/** The command could not do its job (e.g. the card could not be fetched): exit with `exitCode`, one line on stderr. */
export class ExitError extends Error {
  override readonly name = 'ExitError';
  readonly code = 'OPR_ERR_CLI_EXIT';
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}
