import { runCli } from '../src/cli/main.js';

/**
 * Runs one `kith` command in process against `env` (the instance's settings, as a shell would give
 * them): its exit code, what it wrote to stdout and stderr, and stdout read as JSON when any.
 */
export async function runCliCaptured(argv: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env });
  return { code, stdout, stderr, json: stdout === '' ? undefined : JSON.parse(stdout) };
}
