import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { TEST_DB_PREFIX, dropDatabase, urlForDatabase, withAdmin } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresTemplate: string;
  }
}

/**
 * Migrates one template database per run; each test file then gets its own copy with
 * `CREATE DATABASE … TEMPLATE`, which is much faster than migrating again.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Database names carry this run's pid: kith_test_<pid>_template and kith_test_<pid>_<random>.
  const template = `${TEST_DB_PREFIX}${process.pid}_template`;
  await withAdmin(async (client) => {
    // Leftovers of runs that crashed before their teardown; runs still alive keep theirs.
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `${TEST_DB_PREFIX}%`,
    ]);
    for (const row of rows) {
      const pid = Number(/^kith_test_(\d+)_/.exec(row.datname)?.[1]);
      // Another run (possibly in another PID namespace) may still use it: then the drop is refused
      // once and the database left alone.
      if (!isAlive(pid)) await dropDatabase(client, row.datname, 1).catch(() => undefined);
    }
    await client.query(`CREATE DATABASE "${template}"`);
  });
  const db = openDatabase({ kind: 'postgres', url: urlForDatabase(template) });
  await migrateToLatest(db);
  await db.close();
  project.provide('postgresTemplate', template);
  return async () => {
    await withAdmin((client) => dropDatabase(client, template));
  };
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
