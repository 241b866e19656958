#!/usr/bin/env node
// Installs what is missing before `npm start` and `npm test`, so a fresh clone needs nothing else.
// Runs on whatever Node the machine has (the project's own Node 24 arrives with the npm packages),
// so it uses no dependency and no syntax newer than Node 18.
//
//   node scripts/bootstrap.mjs           the build tools and npm packages (when package-lock.json changed)
//   node scripts/bootstrap.mjs --test    also the Debian packages the test suites use
//
// Everything it prints goes to stderr: `npm run kith` must keep stdout for its JSON.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'node_modules', '.kith-install-stamp');

// What node-gyp builds the server's small native addon with (native/malloc-trim), at `npm install`.
const BUILD_SYSTEM_PACKAGES = { make: 'make', 'g++': 'g++', python3: 'python3' };

// Debian packages the test suites need, as "command: package" (media: ffmpeg/ffprobe and poppler's
// pdftoppm; the browser suite: chromium; the scale-out deployment suite: nginx as load balancer).
const TEST_SYSTEM_PACKAGES = {
  ffmpeg: 'ffmpeg',
  ffprobe: 'ffmpeg',
  pdftoppm: 'poppler-utils',
  chromium: 'chromium',
  nginx: 'nginx',
};
// Packages without a command, checked with dpkg: fonts so that screenshots show Chinese, Korean,
// Tamil, Tifinagh (Tamazight) and emoji instead of empty boxes (fonts-noto-core has the scripts of
// the 15 languages but Han and Hangul, which fonts-noto-cjk has).
const TEST_DATA_PACKAGES = ['fonts-noto-cjk', 'fonts-noto-core', 'fonts-noto-color-emoji'];

function log(message) {
  process.stderr.write(`[bootstrap] ${message}\n`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 2, 2], ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    log(`${command} ${args.join(' ')} failed with exit code ${result.status}`);
    process.exit(result.status ?? 1);
  }
}

function lockHash() {
  const lock = path.join(root, 'package-lock.json');
  return existsSync(lock) ? createHash('sha256').update(readFileSync(lock)).digest('hex') : 'no-lock';
}

function ensureNpmPackages() {
  const wanted = lockHash();
  const node24 = path.join(root, 'node_modules', '.bin', 'node');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted && existsSync(node24)) return;
  log('installing npm packages (first run or package-lock.json changed)…');
  const args = existsSync(path.join(root, 'package-lock.json')) ? ['ci'] : ['install'];
  // Errors only: the engine warnings of the machine's older Node are expected (Node 24 arrives now).
  run('npm', [...args, '--loglevel=error', '--no-fund', '--no-audit']);
  writeFileSync(stamp, lockHash());
}

function hasCommand(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function hasPackage(pkg) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('install ok installed');
}

function ensureSystemPackages(packages, dataPackages) {
  const missing = [
    ...new Set([
      ...Object.entries(packages)
        .filter(([command]) => !hasCommand(command))
        .map(([, pkg]) => pkg),
      ...dataPackages.filter((pkg) => !hasPackage(pkg)),
    ]),
  ];
  if (missing.length === 0) return;
  log(`installing Debian packages: ${missing.join(', ')}`);
  const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
  const apt = (args) =>
    run(sudo[0] ?? 'apt-get', sudo.length ? ['apt-get', ...args] : args, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  apt(['update', '-q']);
  apt(['install', '-y', '-q', '--no-install-recommends', ...missing]);
}

ensureSystemPackages(BUILD_SYSTEM_PACKAGES, []);
ensureNpmPackages();
if (process.argv.includes('--test')) ensureSystemPackages(TEST_SYSTEM_PACKAGES, TEST_DATA_PACKAGES);
