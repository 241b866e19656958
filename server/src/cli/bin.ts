import { loadDotEnv } from '../config.js';
import { runCli } from './main.js';

loadDotEnv();

// `npm run kith -- <command>` lands here (through scripts/kith.mjs).
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = code;
