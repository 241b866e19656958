import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isUserVisibleTo } from '../users/queries.js';
import { attachedToReadableMessages, isAttachedToReadableMessage, usersWithAvatar, type FileRow } from './queries.js';

type Q = Kysely<Database>;

/** Whether the file is the preview image of a stored link (readable file rule 4, §1.8). */
export async function isLinkPreviewImage(db: Q, fileId: string): Promise<boolean> {
  const row = await db
    .selectFrom('links')
    .select('id')
    .where('preview_file_id', '=', fileId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Readable file (contract §1.8): the caller uploaded it, it is the preview image of a link (images
 * of public web pages, readable by any signed-in user), it is attached to a message the caller can
 * read, or it is the avatar of a user visible to the caller. Public-link grants (rule 5) are
 * checked by the routes that read the `kith_public` cookie (messages/public-grants.ts).
 */
export async function canReadFile(db: Q, userId: string, file: FileRow): Promise<boolean> {
  if (file.uploader_id === userId) return true;
  if (file.uploader_id === null && file.kind === 'image' && (await isLinkPreviewImage(db, file.id))) return true;
  if (await isAttachedToReadableMessage(db, userId, file.id)) return true;
  for (const owner of await usersWithAvatar(db, file.id)) {
    if (await isUserVisibleTo(db, userId, owner)) return true;
  }
  return false;
}

/**
 * Of `files`, the ones the caller may put on a message (contract §1.8, §6.1): uploaded by the
 * caller or attached to a message the caller can read, and in status raw or ready.
 */
export async function attachableFiles(db: Q, userId: string, files: FileRow[]): Promise<Set<string>> {
  const ok = new Set<string>();
  const others: string[] = [];
  for (const file of files) {
    if (file.status !== 'raw' && file.status !== 'ready') continue;
    if (file.uploader_id === userId) ok.add(file.id);
    else others.push(file.id);
  }
  for (const id of await attachedToReadableMessages(db, userId, others)) ok.add(id);
  return ok;
}

/** An avatar must be an image the caller uploaded (contract §4.3). */
export function canBeAvatarOf(userId: string, file: FileRow | undefined): boolean {
  return file !== undefined && file.uploader_id === userId && file.kind === 'image';
}
