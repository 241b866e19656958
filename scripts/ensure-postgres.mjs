#!/usr/bin/env node
// Makes sure the PostgreSQL the integration tests use is up: on this machine kind it is installed
// but may be stopped, so start it with Debian's cluster tools. TEST_POSTGRES_URL points elsewhere.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

if (process.env.TEST_POSTGRES_URL) process.exit(0);

const ready = () => spawnSync('pg_isready', ['-q', '-h', '127.0.0.1', '-p', '5432'], { stdio: 'ignore' }).status === 0;

if (ready()) process.exit(0);

let versions = [];
try {
  versions = readdirSync('/etc/postgresql');
} catch {
  process.stderr.write('PostgreSQL is not installed on this machine and TEST_POSTGRES_URL is not set.\n');
  process.exit(1);
}
for (const version of versions) {
  process.stderr.write(`[postgres] starting cluster ${version}/main\n`);
  try {
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
  } catch {
    // already running or another version: the readiness check below decides
  }
}
for (let i = 0; i < 60 && !ready(); i += 1) await new Promise((resolve) => setTimeout(resolve, 500));
if (!ready()) {
  process.stderr.write('PostgreSQL did not become ready on 127.0.0.1:5432.\n');
  process.exit(1);
}
