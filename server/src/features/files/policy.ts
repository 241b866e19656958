import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { attachedToReadableMessages } from './queries.js';
import type { FileRow } from '../../db/rows.js';

// What a caller may do with files: put them on a message, make one their avatar. Who may read a
// file is decided in access.ts.

type Q = Kysely<Database>;

/**
 * Of `files`, the ones the caller may put on a message (docs/api §1.8, §6.1): uploaded by the
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

/** An avatar must be an image the caller uploaded (docs/api §4.3). */
export function canBeAvatarOf(userId: string, file: FileRow | undefined): boolean {
  return file !== undefined && file.uploader_id === userId && file.kind === 'image';
}
