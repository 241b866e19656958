import type { Kysely, Selectable } from 'kysely';
import type { Database, ExportsTable } from '../../db/schema.js';

type Q = Kysely<Database>;

/** A stored export (see migration 0022). */
export type ExportRow = Selectable<ExportsTable>;

/** Records a new export. */
export async function insertExport(db: Q, row: ExportRow): Promise<void> {
  await db.insertInto('exports').values(row).execute();
}

/** One export by id, whoever owns it (the policy decides who may see it). */
export function findExport(db: Q, id: string): Promise<ExportRow | undefined> {
  return db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The user's exports that have not expired, newest first. */
export function listUserExports(db: Q, userId: string, now: number, limit: number): Promise<ExportRow[]> {
  return db
    .selectFrom('exports')
    .selectAll()
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The user's latest export that counts against the rate limit (not failed), or undefined. */
export function latestCountedExport(db: Q, userId: string): Promise<ExportRow | undefined> {
  return db
    .selectFrom('exports')
    .selectAll()
    .where('user_id', '=', userId)
    .where('state', '!=', 'failed')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Marks a building export ready with its zip; false when it is no longer building (expired, gone). */
export async function markExportReady(
  db: Q,
  id: string,
  values: { storageKey: string; size: number; finishedAt: number; expiresAt: number },
): Promise<boolean> {
  const result = await db
    .updateTable('exports')
    .set({
      state: 'ready',
      storage_key: values.storageKey,
      size: values.size,
      finished_at: values.finishedAt,
      expires_at: values.expiresAt,
    })
    .where('id', '=', id)
    .where('state', '=', 'building')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks an export failed, with the reason kept for operators. */
export async function markExportFailed(db: Q, id: string, error: string, finishedAt: number): Promise<void> {
  await db
    .updateTable('exports')
    .set({ state: 'failed', error: error.slice(0, 1000), finished_at: finishedAt, expires_at: null })
    .where('id', '=', id)
    .execute();
}

/** Exports whose time is over (at most `limit`): ready ones past expiry. */
export function listExpiredExports(db: Q, now: number, limit: number): Promise<ExportRow[]> {
  return db
    .selectFrom('exports')
    .selectAll()
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Failed exports older than `before` (they only served to show the failure). */
export async function deleteOldFailedExports(db: Q, before: number): Promise<number> {
  const result = await db
    .deleteFrom('exports')
    .where('state', '=', 'failed')
    .where('created_at', '<=', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The store keys of a user's exports that have a zip. */
export async function exportKeysOfUser(db: Q, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('exports')
    .select('storage_key')
    .where('user_id', '=', userId)
    .where('storage_key', 'is not', null)
    .execute();
  return rows.flatMap((r) => (r.storage_key === null ? [] : [r.storage_key]));
}

/** Deletes export rows by id. */
export async function deleteExports(db: Q, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('exports').where('id', 'in', ids).execute();
}

// --- What an archive holds -------------------------------------------------------------------

/** Whose writing an archive holds: one member's, or a whole group's. */
export type ArchiveScope = { kind: 'member'; userId: string } | { kind: 'group'; groupId: string };

/** A message or comment as an archive writes it. */
export interface ArchiveMessageRow {
  id: string;
  group_id: string;
  author_id: string | null;
  parent_id: string | null;
  root_id: string;
  title: string | null;
  text: string | null;
  created_at: number;
}

/** Where a page of messages starts: after this (created_at, id). */
export interface PageCursor {
  createdAt: number;
  id: string;
}

/**
 * One page of the scope's messages and comments that are not deleted, oldest first, after
 * `cursor`; walks messages_author_created or messages_group_created.
 */
export function archiveMessagesPage(
  db: Q,
  scope: ArchiveScope,
  cursor: PageCursor | null,
  limit: number,
): Promise<ArchiveMessageRow[]> {
  let query = db
    .selectFrom('messages')
    .select(['id', 'group_id', 'author_id', 'parent_id', 'root_id', 'title', 'text', 'created_at'])
    .where('is_deleted', '=', 0);
  query =
    scope.kind === 'member' ? query.where('author_id', '=', scope.userId) : query.where('group_id', '=', scope.groupId);
  if (cursor !== null) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '>', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '>', cursor.id)]),
      ]),
    );
  }
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** A file attached to a message of an archive. */
export interface ArchiveFileRow {
  message_id: string;
  id: string;
  name: string;
  type: string;
  kind: string;
  ext: string;
  size: number;
  storage_key: string;
}

/** The files of these messages, in each message's order. */
export function filesOfMessages(db: Q, messageIds: readonly string[]): Promise<ArchiveFileRow[]> {
  if (messageIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('message_files as mf')
    .innerJoin('files as f', 'f.id', 'mf.file_id')
    .select(['mf.message_id', 'f.id', 'f.name', 'f.type', 'f.kind', 'f.ext', 'f.size', 'f.storage_key'])
    .where('mf.message_id', 'in', messageIds)
    .orderBy('mf.message_id')
    .orderBy('mf.position')
    .execute();
}

/** The replies (not deleted) to these messages that the scope holds: (parent, child) pairs, oldest first. */
export function repliesInScope(
  db: Q,
  scope: ArchiveScope,
  parentIds: readonly string[],
): Promise<{ id: string; parent_id: string | null }[]> {
  if (parentIds.length === 0) return Promise.resolve([]);
  let query = db
    .selectFrom('messages')
    .select(['id', 'parent_id'])
    .where('parent_id', 'in', parentIds)
    .where('is_deleted', '=', 0);
  query =
    scope.kind === 'member' ? query.where('author_id', '=', scope.userId) : query.where('group_id', '=', scope.groupId);
  return query.orderBy('parent_id').orderBy('created_at').orderBy('id').execute();
}

/** Names of users by id. */
export function userNames(db: Q, ids: readonly string[]): Promise<{ id: string; name: string }[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('users').select(['id', 'name']).where('id', 'in', ids).execute();
}

/** Names of groups by id. */
export function groupNames(db: Q, ids: readonly string[]): Promise<{ id: string; name: string }[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('groups').select(['id', 'name']).where('id', 'in', ids).execute();
}

/** The current members of a group, in the order they joined. */
export function groupMembers(db: Q, groupId: string): Promise<{ id: string; name: string; joined_at: number }[]> {
  return db
    .selectFrom('memberships as ms')
    .innerJoin('users as u', 'u.id', 'ms.user_id')
    .select(['u.id', 'u.name', 'ms.joined_at'])
    .where('ms.group_id', '=', groupId)
    .orderBy('ms.joined_at')
    .execute();
}

/** A user's language and name (the archive's texts and title). */
export function findExportOwner(
  db: Q,
  userId: string,
): Promise<{ id: string; name: string; lang: string | null } | undefined> {
  return db.selectFrom('users').select(['id', 'name', 'lang']).where('id', '=', userId).executeTakeFirst();
}

/** A group's id and name. */
export function findArchiveGroup(db: Q, groupId: string): Promise<{ id: string; name: string } | undefined> {
  return db.selectFrom('groups').select(['id', 'name']).where('id', '=', groupId).executeTakeFirst();
}

/** One page of the user's bookmarks of messages not deleted, oldest first, after `cursor`. */
export function bookmarksPage(
  db: Q,
  userId: string,
  cursor: PageCursor | null,
  limit: number,
): Promise<{ id: string; message_id: string; created_at: number; group_id: string; title: string | null }[]> {
  let query = db
    .selectFrom('bookmarks as b')
    .innerJoin('messages as m', 'm.id', 'b.message_id')
    .select(['b.id', 'b.message_id', 'b.created_at', 'm.group_id', 'm.title'])
    .where('b.user_id', '=', userId)
    .where('m.is_deleted', '=', 0);
  if (cursor !== null) {
    query = query.where((eb) =>
      eb.or([
        eb('b.created_at', '>', cursor.createdAt),
        eb.and([eb('b.created_at', '=', cursor.createdAt), eb('b.id', '>', cursor.id)]),
      ]),
    );
  }
  return query.orderBy('b.created_at').orderBy('b.id').limit(limit).execute();
}
