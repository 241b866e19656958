#!/usr/bin/env node
// `node scripts/run-parallel.mjs <npm script> <npm script> …`: runs the npm scripts at the same time
// and fails if any fails. `npm test` runs the integration and browser suites this way: they spend
// most of their time waiting on databases, servers and browsers, each file keeps its own database,
// Redis keys, ports and browser, so they overlap without sharing anything.
//
// Each script's output goes to a file while it runs (interleaved lines would be unreadable) and is
// printed whole, in the order given, once all have ended; a line on stderr says when each ends.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('Usage: node scripts/run-parallel.mjs <npm script>…\n');
  process.exit(2);
}
const dir = mkdtempSync(path.join(tmpdir(), 'kith-parallel-'));
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);

const runs = scripts.map((script, index) => {
  const file = path.join(dir, `${index}.log`);
  const out = createWriteStream(file);
  const child = spawn('npm', ['run', script], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  const ended = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      out.end(() => resolve(code ?? (signal === null ? 1 : 128)));
    });
  });
  ended.then((code) => process.stderr.write(`[parallel] ${script} ended after ${seconds()} s (exit code ${code})\n`));
  return { script, file, child, ended };
});

// Ctrl-C or a CI timeout: the suites stop with this process.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const run of runs) run.child.kill(signal);
  });
}

const codes = await Promise.all(runs.map((run) => run.ended));
for (const [index, run] of runs.entries()) {
  process.stdout.write(`\n===== npm run ${run.script} (exit code ${codes[index]}) =====\n`);
  process.stdout.write(readFileSync(run.file));
}
rmSync(dir, { recursive: true, force: true });
const failed = runs.filter((_run, index) => codes[index] !== 0).map((run) => run.script);
if (failed.length > 0) {
  process.stderr.write(`[parallel] failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
