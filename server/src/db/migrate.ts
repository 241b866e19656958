import { Migrator, type Migration, type MigrationProvider } from 'kysely';
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
};

const provider: MigrationProvider = {
  getMigrations: () => Promise.resolve(MIGRATIONS),
};

/** Brings the schema up to date; safe to call at every start-up and from several processes. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({
    db: db.kysely,
    provider,
    migrationTableName: 'kith_migrations',
    migrationLockTableName: 'kith_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
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
