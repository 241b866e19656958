#!/usr/bin/env node
// `npm run kith -- <command>`: the admin CLI. Installs and builds first when needed (quietly, on
// stderr), then runs the compiled CLI with the project's Node, so stdout carries only JSON.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quiet = { cwd: root, stdio: ['ignore', 2, 2] };

const bootstrap = spawnSync(process.execPath, [path.join(root, 'scripts', 'bootstrap.mjs')], quiet);
if (bootstrap.status !== 0) process.exit(bootstrap.status ?? 1);

const node = path.join(root, 'node_modules', '.bin', 'node');
const cli = path.join(root, 'server', 'dist', 'cli', 'bin.js');
if (!existsSync(cli)) {
  const build = spawnSync('npm', ['run', 'build:server'], quiet);
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const result = spawnSync(node, [cli, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
