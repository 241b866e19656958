import type { Kysely } from 'kysely';

// Link previews (docs/api §2.9, §7.5): one row per requested URL, shared by every user, refreshed
// after 7 days (1 hour after a failed fetch).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The URL as requested (≤ 2048 characters); the unique index is the cache lookup and lets two
    // concurrent first requests meet in one row (insert … on conflict).
    .addColumn('url', 'text', (c) => c.notNull().unique())
    // The answer's `data` object as JSON text.
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    // The preview image, once file storage exists; null until then. No foreign key yet: the files
    // table belongs to another migration and this column stays null for now.
    .addColumn('preview_file_id', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // "Is this file the preview image of a link?" (docs/api §1.8, readable file rule 4) and file clean-up.
  await db.schema.createIndex('links_preview_file').on('links').column('preview_file_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
