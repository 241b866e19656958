import type { Kysely, Selectable } from 'kysely';
import type { Database, FilesTable, LinksTable } from '../../db/schema.js';

export type LinkRow = Selectable<LinksTable>;
type Q = Kysely<Database>;

/** The stored preview of a URL, if one was ever fetched. */
export function findLink(db: Q, url: string): Promise<LinkRow | undefined> {
  return db.selectFrom('links').selectAll().where('url', '=', url).executeTakeFirst();
}

/** How old the stored preview of a URL is and whether its last fetch failed (enough to know if it is stale). */
export function findLinkFreshness(db: Q, url: string): Promise<Pick<LinkRow, 'updated_at' | 'failed'> | undefined> {
  return db.selectFrom('links').select(['updated_at', 'failed']).where('url', '=', url).executeTakeFirst();
}

/**
 * Writes the result of a fetch and reads the row back: insert … on conflict (url) do update, so two
 * processes fetching the same new URL at once both succeed and meet in one row.
 */
export async function upsertLink(
  db: Q,
  link: { id: string; url: string; data: string; previewFileId: string | null; failed: number; now: number },
): Promise<LinkRow> {
  const { url, data, previewFileId, failed, now } = link;
  await db
    .insertInto('links')
    .values({ id: link.id, url, data, preview_file_id: previewFileId, updated_at: now, failed })
    .onConflict((oc) => oc.column('url').doUpdateSet({ data, updated_at: now, failed, preview_file_id: previewFileId }))
    .execute();
  return db.selectFrom('links').selectAll().where('url', '=', url).executeTakeFirstOrThrow();
}

/** Writes the file row of a stored link preview image. */
export async function insertPreviewImageFile(db: Q, row: FilesTable): Promise<void> {
  await db.insertInto('files').values(row).execute();
}
