import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isUserVisibleTo } from '../users/queries.js';
import { attachedToReadableMessages, isAttachedToReadableMessage, usersWithAvatar, type FileRow } from './queries.js';

type Q = Kysely<Database>;

/**
 * Readable file (contract §1.8): the caller uploaded it, it is attached to a message the caller can
 * read, or it is the avatar of a user visible to the caller. Link preview images (rule 4) and
 * public-link grants (rule 5) join with the link-preview and public-link media work.
 */
export async function canReadFile(db: Q, userId: string, file: FileRow): Promise<boolean> {
  if (file.uploader_id === userId) return true;
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
