#!/usr/bin/env node
// `npm run dev`: the server, rebuilt and restarted whenever a source file changes. Three watchers
// run side by side, two of them plain child processes:
//
//   tsc      the TypeScript compiler in watch mode: common/src and server/src → their dist/ folders
//   web      Vite's build in watch mode, in this process: web/src → web/dist, which the server serves
//   server   node --watch on those output folders: restarts the server when any of them changes
//
// Watching the output folders, not the server's own imports, also restarts it for a new web build:
// the server lists the client's files and reads its index.html once, at start-up. For hot reload
// while working on the client, `npm run dev --workspace web` is quicker (README.md).
//
// Ctrl-C stops all three; so does any of them ending on its own.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

// One full compile first, so the server starts from current code rather than yesterday's dist/.
const first = spawnSync(node, [tsc, '-b', 'server'], { cwd: root, stdio: 'inherit' });
if (first.status !== 0) process.exit(first.status ?? 1);

/** Prefixes each line a child prints with its name, so three outputs stay readable together. */
function prefixLines(name, stream, target) {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) target.write(`[${name}] ${line}\n`);
  });
  stream.on('end', () => {
    if (pending !== '') target.write(`[${name}] ${pending}\n`);
  });
}

const children = new Map();
let stopping = false;
/** Vite's watcher, once it runs. */
let web = null;

/** Starts one watcher; `prefixed: false` leaves it the terminal as it is. */
function start(name, args, { cwd = root, prefixed = true } = {}) {
  const child = spawn(node, args, { cwd, stdio: prefixed ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  if (prefixed) {
    prefixLines(name, child.stdout, process.stdout);
    prefixLines(name, child.stderr, process.stderr);
  }
  children.set(name, child);
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      process.stderr.write(`[dev] ${name} ended (${signal ?? `exit code ${code}`}); stopping the others\n`);
      stop(code ?? 1);
    } else if (children.size === 0) {
      process.exit(process.exitCode ?? 0);
    }
  });
}

function stop(exitCode) {
  if (stopping) return;
  stopping = true;
  process.exitCode = exitCode;
  void web?.close();
  for (const child of children.values()) child.kill('SIGTERM');
  if (children.size === 0) process.exit(exitCode);
}

// --preserveWatchOutput: tsc would otherwise clear the terminal, and the server's lines with it.
start('tsc', [tsc, '-b', 'server', '--watch', '--preserveWatchOutput']);

// The server starts once the first web build is written: Vite's watcher always begins with a full
// build, and a restart in the middle of the server's start-up could interrupt its migrations.
// Warnings and errors only: Vite's table of every built file would bury the server's lines. The
// folder is not emptied before each rebuild (`npm run build` does that), so the server never
// restarts on a half-empty one.
web = await build({
  root: path.join(root, 'web'),
  logLevel: 'warn',
  build: { watch: {}, emptyOutDir: false },
});
let serverStarted = false;
web.on('event', (event) => {
  // Each build's result holds resources until closed (Rolldown's watch API asks for this).
  if (event.code === 'BUNDLE_END') void event.result.close();
  if (event.code === 'ERROR') {
    void event.result.close();
    process.stderr.write(`[web] build failed: ${event.error.message}\n`);
  }
  if (event.code !== 'END' && event.code !== 'ERROR') return;
  if (event.code === 'END') process.stdout.write(`[web] built web/dist\n`);
  if (serverStarted || stopping) return;
  serverStarted = true;
  // node --watch-path refuses a folder that does not exist (a first build that failed).
  mkdirSync(path.join(root, 'web', 'dist'), { recursive: true });
  // The server's own output (its first-run link, its log lines) goes to the terminal unchanged.
  start(
    'server',
    [
      '--watch-path=server/dist',
      '--watch-path=common/dist',
      '--watch-path=web/dist',
      '--watch-preserve-output',
      'server/dist/main.js',
    ],
    { prefixed: false },
  );
});

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
