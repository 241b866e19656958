import type { Kysely } from 'kysely';

// Moving in from Zusam (issue 22): what `import-zusam` already brought over, so a second run adds
// only what is new and never brings back what was deleted or left in Kith since. One row per
// imported item: its kind (user, group, membership, message, file, bookmark, reaction) and Zusam
// id (a pair of ids joined by `:` for memberships), with the Kith id it became. Zusam ids are
// kept where they are free, so most rows map an id to itself; a Zusam user whose login already
// had a Kith account maps to that account.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('zusam_imports')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('zusam_id', 'text', (c) => c.notNull())
    .addColumn('kith_id', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('zusam_imports_pk', ['kind', 'zusam_id'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
