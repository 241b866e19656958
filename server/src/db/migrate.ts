import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.js';
import * as m0001 from './migrations/0001_initial.js';
import * as m0002 from './migrations/0002_messages.js';
import * as m0003 from './migrations/0003_search.js';
import * as m0004 from './migrations/0004_search_author.js';
import * as m0005 from './migrations/0005_files.js';
import * as m0006 from './migrations/0006_links.js';
import * as m0007 from './migrations/0007_jobs.js';
import * as m0008 from './migrations/0008_digests.js';
import * as m0009 from './migrations/0009_front_count.js';
import * as m0010 from './migrations/0010_notification_indexes.js';
import * as m0011 from './migrations/0011_search_group_terms.js';
import * as m0012 from './migrations/0012_user_theme.js';
import * as m0013 from './migrations/0013_job_handovers.js';
import * as m0014 from './migrations/0014_reactions.js';
import * as m0015 from './migrations/0015_pins.js';

import * as m0017 from './migrations/0017_all_groups_feed.js';
import * as m0018 from './migrations/0018_push.js';
import * as m0019 from './migrations/0019_mentions.js';
import * as m0020 from './migrations/0020_mail_replies.js';
import * as m0021 from './migrations/0021_quotas_admin.js';
import * as m0022 from './migrations/0022_exports.js';
import * as m0023 from './migrations/0023_zusam_import.js';
import * as m0024 from './migrations/0024_notification_events.js';
import * as m0025 from './migrations/0025_search_group_lexemes.js';
import * as m0026 from './migrations/0026_deferred_front_count.js';
import * as m0027 from './migrations/0027_author_name_function.js';
import * as m0028 from './migrations/0028_group_activity_at_commit.js';
import * as m0029 from './migrations/0029_sqlite_group_activity_trigger.js';
import * as m0030 from './migrations/0030_search_slices.js';

/** Every migration, in order. A new file is added at the end; a landed one is never edited. */
const MIGRATIONS: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_messages': m0002,
  '0003_search': m0003,
  '0004_search_author': m0004,
  '0005_files': m0005,
  '0006_links': m0006,
  '0007_jobs': m0007,
  '0008_digests': m0008,
  '0009_front_count': m0009,
  '0010_notification_indexes': m0010,
  '0011_search_group_terms': m0011,
  '0012_user_theme': m0012,
  '0013_job_handovers': m0013,
  '0014_reactions': m0014,
  '0015_pins': m0015,

  '0017_all_groups_feed': m0017,
  '0018_push': m0018,
  '0019_mentions': m0019,
  '0020_mail_replies': m0020,
  '0021_quotas_admin': m0021,
  '0022_exports': m0022,
  '0023_zusam_import': m0023,
  '0024_notification_events': m0024,
  '0025_search_group_lexemes': m0025,
  '0026_deferred_front_count': m0026,
  '0027_author_name_function': m0027,
  '0028_group_activity_at_commit': m0028,
  '0029_sqlite_group_activity_trigger': m0029,
  '0030_search_slices': m0030,
};

/** The names of every migration this version knows, oldest first. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

/**
 * `trx` as a migration that opens a transaction of its own sees it: its `transaction()` runs the
 * work in `trx`. Migrations 0004, 0011 and 0024 open one on SQLite, written when Kysely ran SQLite
 * migrations outside any transaction; now they run inside the migrator's (sqlite-driver.ts), where
 * Kysely refuses to nest one. A landed migration is never edited, so the joining happens here.
 */
function joiningTransaction(trx: Kysely<unknown>): Kysely<unknown> {
  return new Proxy(trx, {
    get(target, key) {
      if (key === 'transaction')
        return () => ({ execute: <T>(work: (tx: Kysely<unknown>) => Promise<T>) => work(target) });
      const value: unknown = Reflect.get(target, key, target);
      // Kysely's methods read private fields: they run on the transaction itself, not the proxy.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const provider: MigrationProvider = {
  getMigrations: () =>
    Promise.resolve(
      Object.fromEntries(
        Object.entries(MIGRATIONS).map(([name, migration]) => [
          name,
          { ...migration, up: (db: Kysely<unknown>) => migration.up(db.isTransaction ? joiningTransaction(db) : db) },
        ]),
      ),
    ),
};

/**
 * A database that a newer Kith has migrated: it names migrations this version does not know.
 * Starting on it could misread or damage what the newer version wrote, so nothing is done.
 */
export class NewerDatabaseError extends Error {
  override readonly name = 'NewerDatabaseError';
  constructor(readonly unknownMigrations: readonly string[]) {
    super(
      `This database was upgraded by a newer version of Kith (it has migration${unknownMigrations.length === 1 ? '' : 's'} ` +
        `${unknownMigrations.join(', ')}, which this version does not know). Run that newer version, or restore ` +
        'the backup taken before the upgrade to go back (docs/operations.md, "Upgrades"). The database was left untouched.',
    );
  }
}

function migrator(db: Db): Migrator {
  return new Migrator({
    db: db.kysely,
    provider,
    migrationTableName: 'kith_migrations',
    migrationLockTableName: 'kith_migrations_lock',
  });
}

/** The name of the last migration, for the schema a backup records (`maintenance/backup`). */
export const LATEST_MIGRATION = MIGRATION_NAMES.at(-1) ?? '';

/** Whether `name` is one of this version's migrations. */
export function isKnownMigration(name: string): boolean {
  return MIGRATION_NAMES.includes(name);
}

/** The migrations recorded in the database (none on a new one), read without changing anything. */
export async function appliedMigrations(db: Db): Promise<string[]> {
  const exists =
    db.dialect === 'sqlite'
      ? await sql<{ found: number }>`
          select 1 as found from sqlite_master where type = 'table' and name = 'kith_migrations'`.execute(db.kysely)
      : await sql<{ found: number }>`
          select 1 as found where to_regclass('kith_migrations') is not null`.execute(db.kysely);
  if (exists.rows.length === 0) return [];
  const { rows } = await sql<{ name: string }>`select name from kith_migrations order by name`.execute(db.kysely);
  return rows.map((row) => row.name);
}

/** Refuses a database from a newer Kith before anything is written to it (`NewerDatabaseError`). */
export async function assertNotNewer(db: Db): Promise<void> {
  const known = new Set(MIGRATION_NAMES);
  const unknown = (await appliedMigrations(db)).filter((name) => !known.has(name));
  if (unknown.length > 0) throw new NewerDatabaseError(unknown);
}

/**
 * Brings the schema up to date; safe to call at every start-up and from several processes. Any
 * earlier release's database is upgraded in one go, each missing migration in order; a database
 * from a newer release is refused untouched (`NewerDatabaseError`).
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  await assertNotNewer(db);
  return report(await migrator(db).migrateToLatest());
}

/**
 * Migrates up to and including `name` only: the upgrade tests build each earlier release's schema
 * so, and a restore brings a backup's data into the schema it was taken at.
 */
export async function migrateTo(db: Db, name: string): Promise<string[]> {
  if (!MIGRATION_NAMES.includes(name)) throw new Error(`Unknown migration ${name}`);
  await assertNotNewer(db);
  return report(await migrator(db).migrateTo(name));
}

function report({ error, results }: Awaited<ReturnType<Migrator['migrateToLatest']>>): string[] {
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(
      `Database migration ${failed} failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`,
      {
        cause: error,
      },
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
