import { CliError } from './cli-error.js';

/** Parses `--name value` pairs and bare `--flag`s. */
export function parseOptions(args: string[]): Map<string, string | true> {
  const options = new Map<string, string | true>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('--')) throw new CliError(`Unexpected argument "${arg}"`);
    const next = args[i + 1];
    if (next === undefined || next.startsWith('--')) {
      options.set(arg.slice(2), true);
    } else {
      options.set(arg.slice(2), next);
      i += 1;
    }
  }
  return options;
}
