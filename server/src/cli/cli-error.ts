/** A refusal the CLI prints on stderr, exiting non-zero. */
export class CliError extends Error {}

/** A command that ran but failed: its JSON answer still goes to stdout, the message to stderr, exit 1. */
export class CliFailure extends CliError {
  constructor(
    message: string,
    readonly output: unknown,
  ) {
    super(message);
  }
}
