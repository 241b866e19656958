import { sql, type Kysely } from 'kysely';
import type { FileRow } from '../../db/rows.js';
import type { Database } from '../../db/schema.js';
import { prepared } from '../../db/prepared.js';

type Q = Kysely<Database>;

export function findFile(db: Q, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findFiles(db: Q, ids: string[]): Promise<FileRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('files').selectAll().where('id', 'in', ids).execute();
}

/** Whether the file is attached to a message of a group `userId` belongs to (docs/api §1.8). */
export async function isAttachedToReadableMessage(db: Q, userId: string, fileId: string): Promise<boolean> {
  return (await attachedToReadableMessages(db, userId, [fileId])).has(fileId);
}

/** Of `fileIds`, those attached to a message of a group `userId` belongs to, in one query. */
export async function attachedToReadableMessages(db: Q, userId: string, fileIds: string[]): Promise<Set<string>> {
  if (fileIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('message_files as mf')
    .innerJoin('messages as m', 'm.id', 'mf.message_id')
    .innerJoin('memberships as ms', (join) =>
      join.onRef('ms.group_id', '=', 'm.group_id').on('ms.user_id', '=', userId),
    )
    .select('mf.file_id')
    .distinct()
    .where('mf.file_id', 'in', fileIds)
    .execute();
  return new Set(rows.map((r) => r.file_id));
}

/** Users whose avatar the file is. */
export async function usersWithAvatar(db: Q, fileId: string): Promise<string[]> {
  const rows = await db.selectFrom('users').select('id').where('avatar_id', '=', fileId).execute();
  return rows.map((r) => r.id);
}

/** The files of messages, each with the id of its message. */
const filesOfMessagesQuery = (db: Q, messageIds: string[]) =>
  db
    .selectFrom('message_files as mf')
    .innerJoin('files as f', 'f.id', 'mf.file_id')
    .selectAll('f')
    .select('mf.message_id')
    .where('mf.message_id', 'in', messageIds);

// Every card and message answer reads these: prepared once (db/prepared.ts), and kept until
// something changes (`memo`).
const fileRowsOf = prepared(
  (db, messageIds: string[]) => filesOfMessagesQuery(db, messageIds).orderBy('mf.message_id').orderBy('mf.position'),
  { memo: true },
);
const firstFileRowsOf = prepared(
  (db, messageIds: string[]) => filesOfMessagesQuery(db, messageIds).where('mf.position', '=', 0),
  { memo: true },
);

/** The files of each message in order (`position`), in one query for any number of messages. */
export async function filesOfMessages(db: Q, messageIds: string[]): Promise<Map<string, FileRow[]>> {
  const result = new Map<string, FileRow[]>(messageIds.map((id) => [id, []]));
  if (messageIds.length === 0) return result;
  const rows = await fileRowsOf(db, messageIds);
  for (const { message_id: messageId, ...file } of rows) result.get(messageId)?.push(file);
  return result;
}

/** The first file (position 0) of each message: its card picture (docs/api §10.6), in one query. */
export async function firstFilesOfMessages(db: Q, messageIds: string[]): Promise<Map<string, FileRow>> {
  const result = new Map<string, FileRow>();
  if (messageIds.length === 0) return result;
  const rows = await firstFileRowsOf(db, messageIds);
  for (const { message_id: messageId, ...file } of rows) result.set(messageId, file);
  return result;
}

/** Writes a new file row. */
export async function insertFile(db: Q, row: FileRow): Promise<void> {
  await db.insertInto('files').values(row).execute();
}

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

/** Whether the file is attached to one of the messages of `messageIds`. */
export async function isAttachedToAnyOf(db: Q, messageIds: string[], fileId: string): Promise<boolean> {
  const attached = await db
    .selectFrom('message_files')
    .select('file_id')
    .where('message_id', 'in', messageIds)
    .where('file_id', '=', fileId)
    .limit(1)
    .executeTakeFirst();
  return attached !== undefined;
}

/** Whether the file is the preview image of the stored link of one of `urls`. */
export async function isPreviewImageOfAnyLink(db: Q, urls: string[], fileId: string): Promise<boolean> {
  const link = await db
    .selectFrom('links')
    .select('id')
    .where('url', 'in', urls)
    .where('preview_file_id', '=', fileId)
    .limit(1)
    .executeTakeFirst();
  return link !== undefined;
}

/** Records a conversion's progress while the file is still raw; false when it is not (any more). */
export async function setRawFileProgress(db: Q, fileId: string, percent: number): Promise<boolean> {
  const result = await db
    .updateTable('files')
    .set({ progress: percent })
    .where('id', '=', fileId)
    .where('status', '=', 'raw')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Makes a raw file the converted one (new bytes, type, name, size), only while it is still raw and
 * still has the bytes the conversion read; false when it was deleted or finished meanwhile.
 */
export async function replaceConvertedFile(
  db: Q,
  file: Pick<FileRow, 'id' | 'storage_key'>,
  converted: Pick<FileRow, 'type' | 'ext' | 'name' | 'storage_key' | 'size' | 'width' | 'height' | 'updated_at'>,
): Promise<boolean> {
  const result = await db
    .updateTable('files')
    .set({ status: 'ready', progress: null, error: null, ...converted })
    .where('id', '=', file.id)
    .where('status', '=', 'raw')
    .where('storage_key', '=', file.storage_key)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends a raw file's conversion as failed (the original kept, ready, with the reason). */
export async function markRawFileFailed(db: Q, fileId: string, reason: string, updatedAt: number): Promise<boolean> {
  const result = await db
    .updateTable('files')
    .set({ status: 'ready', progress: null, error: reason, updated_at: updatedAt })
    .where('id', '=', fileId)
    .where('status', '=', 'raw')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A user's stored bytes and those their uploads in flight have claimed, and the instance's. */
export async function readStorage(
  db: Q,
  userId: string,
): Promise<{ bytes: number; reserved: number; instanceBytes: number; instanceReserved: number }> {
  const [user, instance] = await Promise.all([
    db.selectFrom('users').select(['storage_bytes', 'storage_reserved']).where('id', '=', userId).executeTakeFirst(),
    db.selectFrom('instance_storage').select(['bytes', 'reserved']).where('id', '=', 1).executeTakeFirst(),
  ]);
  return {
    bytes: user?.storage_bytes ?? 0,
    reserved: user?.storage_reserved ?? 0,
    instanceBytes: instance?.bytes ?? 0,
    instanceReserved: instance?.reserved ?? 0,
  };
}

/**
 * Claims `bytes` more for an upload of `userId`, only while the user's stored and claimed bytes
 * stay within `userLimit` and the instance's within `instanceLimit` (null: no limit). Each check
 * and claim is one conditional UPDATE, so two uploads at once cannot both pass a limit only one
 * fits under. Answers which limit refused, or null once both rows took the claim (the caller's
 * transaction rolls the first back when the second refuses).
 */
export async function claimStorage(
  db: Q,
  userId: string,
  bytes: number,
  limits: { userLimit: number | null; instanceLimit: number | null },
): Promise<'user' | 'instance' | null> {
  const { userLimit, instanceLimit } = limits;
  const user = await db
    .updateTable('users')
    .set((eb) => ({ storage_reserved: eb('storage_reserved', '+', bytes) }))
    .where('id', '=', userId)
    .$if(userLimit !== null, (q) =>
      q.where((eb) => eb(eb(eb.ref('storage_bytes'), '+', eb.ref('storage_reserved')), '<=', (userLimit ?? 0) - bytes)),
    )
    .executeTakeFirst();
  if (Number(user.numUpdatedRows) === 0) return 'user';
  const instance = await db
    .updateTable('instance_storage')
    .set((eb) => ({ reserved: eb('reserved', '+', bytes) }))
    .where('id', '=', 1)
    .$if(instanceLimit !== null, (q) =>
      q.where((eb) => eb(eb(eb.ref('bytes'), '+', eb.ref('reserved')), '<=', (instanceLimit ?? 0) - bytes)),
    )
    .executeTakeFirst();
  return Number(instance.numUpdatedRows) === 0 ? 'instance' : null;
}

/** Gives back `bytes` an upload of `userId` had claimed (never below zero). */
export async function releaseStorage(db: Q, userId: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await db
    .updateTable('users')
    .set({
      storage_reserved: sql<number>`case when storage_reserved > ${bytes} then storage_reserved - ${bytes} else 0 end`,
    })
    .where('id', '=', userId)
    .execute();
  await db
    .updateTable('instance_storage')
    .set({ reserved: sql<number>`case when reserved > ${bytes} then reserved - ${bytes} else 0 end` })
    .where('id', '=', 1)
    .execute();
}

/** Forgets every claim of uploads under way (none can be, when this is called). */
export async function clearStorageClaims(db: Q): Promise<void> {
  await db.updateTable('users').set({ storage_reserved: 0 }).where('storage_reserved', '<>', 0).execute();
  await db.updateTable('instance_storage').set({ reserved: 0 }).where('reserved', '<>', 0).execute();
}
