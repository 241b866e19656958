import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_DIALECT } from '../../test/harness.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

// Runs in a process of its own, on the built server (as main.int.test.ts does), so that nothing
// else allocates beside it: fills both connections' page caches (20 MB written, then read), then
// releases the memory as a quiet server does, and prints the RSS before and once it stopped falling.
const PROGRAM = `
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
const [databaseModule, file] = process.argv.slice(2);
const { openDatabase } = await import(databaseModule);
const { trimMalloc } = await import(databaseModule.replace(/db[\\/]database\\.js$/, 'lib/malloc-trim.js'));
const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const db = openDatabase({ kind: 'sqlite', file });
await sql\`create table filler (id integer primary key, body text not null)\`.execute(db.kysely);
await db.transaction(async (tx) => {
  for (let i = 0; i < 200; i += 1) {
    const rows = Array.from({ length: 100 }, (_, j) => ({ id: i * 100 + j, body: 'x'.repeat(1000) + (i * 100 + j) }));
    await tx.insertInto('filler').values(rows).execute();
  }
});
let total = 0;
for (let id = 0; id < 20000; id += 500) {
  const rows = await db.kysely.selectFrom('filler').select('body').where('id', '>=', id).where('id', '<', id + 500).execute();
  total += rows.length;
}
await new Promise((resolve) => setTimeout(resolve, 50));
const before = rss();
// What the quiet server does (lib/quiet-reclaim.ts): release, then trim glibc's heaps.
db.releaseMemory();
trimMalloc();
let after = rss();
for (let waited = 0; waited < 10000 && before - after < 20; waited += 50) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  after = rss();
}
// The next read still answers, from the file.
const again = await db.kysely.selectFrom('filler').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
await db.close();
console.log(JSON.stringify({ total, again: Number(again.n), before, after }));
`;

describe('SQLite memory released when the server is quiet (lib/quiet-reclaim.ts)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kith-release-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.runIf(TEST_DIALECT === 'sqlite')('gives the page caches of both connections back to the system', () => {
    const databaseModule = path.join(repoRoot, 'server', 'dist', 'db', 'database.js');
    // A file beside the server, not `-e`: its worker threads (the checkpointer) would inherit
    // `--input-type=module`. Under server/ so that it finds the server's packages.
    const program = path.join(repoRoot, 'server', `release-memory-${process.pid}.tmp.mjs`);
    writeFileSync(program, PROGRAM);
    let result;
    try {
      result = spawnSync(process.execPath, [program, databaseModule, path.join(dir, 'kith.db')], { encoding: 'utf8' });
    } finally {
      rmSync(program, { force: true });
    }
    expect(result.stderr).toBe('');
    const { total, again, before, after } = JSON.parse(result.stdout) as {
      total: number;
      again: number;
      before: number;
      after: number;
    };
    expect(total).toBe(20000);
    expect(again).toBe(20000);
    // The reader's cache is 8 MiB and the writer's 16; both were full. About 30 MB go back; without
    // emptying the caches, the trim alone gave back about 12 (other freed memory).
    expect(before - after).toBeGreaterThan(20);
  });
});
