/** A refusal the CLI prints on stderr, exiting non-zero. */
export class CliError extends Error {}
