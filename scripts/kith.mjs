#!/usr/bin/env node
// `npm run kith -- <command>`: the admin CLI. Installs and builds first when needed (quietly, on
// stderr), then runs the compiled CLI with the project's Node, so stdout carries only JSON.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveCommand } from './serve-command.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quiet = { cwd: root, stdio: ['ignore', 2, 2] };

const bootstrap = spawnSync(process.execPath, [path.join(root, 'scripts', 'bootstrap.mjs')], quiet);
if (bootstrap.status !== 0) process.exit(bootstrap.status ?? 1);

const node = path.join(root, 'node_modules', '.bin', 'node');
const args = process.argv.slice(2);

if (args[0] === 'serve') {
  // `serve --role web|worker|all`: the server itself (server/main.ts reads the role), built first
  // when needed (the web client too, unless the process only runs jobs). It runs as a child that
  // receives the signals this process gets, so a process manager's SIGTERM drains it.
  const needsWeb = !args.includes('worker');
  if (
    !existsSync(path.join(root, 'server', 'dist', 'main.js')) ||
    (needsWeb && !existsSync(path.join(root, 'web', 'dist')))
  ) {
    const build = spawnSync('npm', ['run', needsWeb ? 'build' : 'build:server'], quiet);
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  // The environment variables and Node flags of `npm run serve` (serve-command.mjs).
  const serve = serveCommand(root);
  const server = spawn(node, [...serve.flags, path.join(root, 'server', 'dist', 'main.js'), ...args.slice(1)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...serve.env, ...process.env },
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => server.kill(signal));
  server.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
} else {
  const cli = path.join(root, 'server', 'dist', 'cli', 'bin.js');
  if (!existsSync(cli)) {
    const build = spawnSync('npm', ['run', 'build:server'], quiet);
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  const result = spawnSync(node, [cli, ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}
