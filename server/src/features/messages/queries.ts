import type { Kysely } from 'kysely';
import type { FileObject } from '@kith/common';
import type { Database } from '../../db/schema.js';
import type { MessageRow } from '../../db/rows.js';
import type { Membership } from '../../db/rows.js';
import { presentFile, type FileSigner } from '../files/presenter.js';
import { filesOfMessages, firstFilesOfMessages } from '../files/queries.js';
import { firstUrlInText } from '../../lib/urls.js';

type Q = Kysely<Database>;

export function findMessage(db: Q, id: string): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Ancestor ids of a stored message, nearest parent first. */
export function lineageOf(message: Pick<MessageRow, 'lineage'>): string[] {
  const value: unknown = JSON.parse(message.lineage);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Messages with what a card or a message answer shows beside them (author, group name), in one
 * query for any number of ids.
 */
function selectViews(db: Q) {
  return db
    .selectFrom('messages as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .leftJoin('users as a', 'a.id', 'm.author_id')
    .selectAll('m')
    .select(['g.name as group_name', 'a.name as author_name', 'a.avatar_id as author_avatar_id']);
}

export type MessageView = MessageRow & {
  group_name: string;
  author_name: string | null;
  author_avatar_id: string | null;
};

export function findMessageViews(db: Q, ids: string[]): Promise<MessageView[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return selectViews(db).where('m.id', 'in', ids).execute();
}

/** The files of each message as File objects with their `fileIndex`, in one query. */
export async function presentedFilesOf(signer: FileSigner, db: Q, ids: string[]): Promise<Map<string, FileObject[]>> {
  const rows = await filesOfMessages(db, ids);
  return new Map([...rows].map(([id, files]) => [id, files.map((file, index) => presentFile(signer, file, index))]));
}

/**
 * The card picture of each message (contract §10.6): the file at position 0, else the stored preview
 * image of the first URL in its text. At most three queries for any number of messages.
 */
export async function previewsOf(signer: FileSigner, db: Q, ids: string[]): Promise<Map<string, FileObject>> {
  const rows = await firstFilesOfMessages(db, ids);
  const result = new Map([...rows].map(([id, file]) => [id, presentFile(signer, file, 0)]));
  const missing = ids.filter((id) => !rows.has(id));
  if (missing.length === 0) return result;
  const texts = await db
    .selectFrom('messages')
    .select(['id', 'text'])
    .where('id', 'in', missing)
    .where('is_deleted', '=', 0)
    .execute();
  for (const [id, file] of await linkPreviewsOf(signer, db, texts)) result.set(id, file);
  return result;
}

/**
 * For messages without files: the preview image of the link of the first URL in each text
 * (contract §10.6), once the background fetch stored one. One query, none without URLs.
 */
export async function linkPreviewsOf(
  signer: FileSigner,
  db: Q,
  messages: Pick<MessageRow, 'id' | 'text'>[],
): Promise<Map<string, FileObject>> {
  const result = new Map<string, FileObject>();
  const firstUrls = new Map<string, string>();
  for (const m of messages) {
    const url = firstUrlInText(m.text);
    if (url !== null) firstUrls.set(m.id, url);
  }
  if (firstUrls.size === 0) return result;
  const rows = await db
    .selectFrom('links as l')
    .innerJoin('files as f', 'f.id', 'l.preview_file_id')
    .selectAll('f')
    .select('l.url as link_url')
    .where('l.url', 'in', [...new Set(firstUrls.values())])
    .execute();
  const byUrl = new Map(rows.map(({ link_url: url, ...file }) => [url, file]));
  for (const [id, url] of firstUrls) {
    const file = byUrl.get(url);
    if (file !== undefined) result.set(id, presentFile(signer, file, 0));
  }
  return result;
}

/** Direct replies of each message, oldest first, in one query. */
export async function childrenOf(db: Q, parentIds: string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(parentIds.map((id) => [id, []]));
  if (parentIds.length === 0) return result;
  const rows = await db
    .selectFrom('messages')
    .select(['id', 'parent_id'])
    .where('parent_id', 'in', parentIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const row of rows) if (row.parent_id !== null) result.get(row.parent_id)?.push(row.id);
  return result;
}

/** How many direct replies each message has, in one query. */
export async function childCounts(db: Q, parentIds: string[]): Promise<Map<string, number>> {
  const result = new Map<string, number>(parentIds.map((id) => [id, 0]));
  if (parentIds.length === 0) return result;
  const rows = await db
    .selectFrom('messages')
    .select((eb) => ['parent_id', eb.fn.countAll<number>().as('n')])
    .where('parent_id', 'in', parentIds)
    .groupBy('parent_id')
    .execute();
  for (const row of rows) if (row.parent_id !== null) result.set(row.parent_id, Number(row.n));
  return result;
}

/** The group page (contract §5.4): front messages, newest activity first, then highest id. */
export function frontMessagesQuery(db: Q, groupId: string) {
  return db
    .selectFrom('messages')
    .where('group_id', '=', groupId)
    .where('is_in_front', '=', 1)
    .orderBy('last_activity_date', 'desc')
    .orderBy('id', 'desc');
}

/**
 * The user's membership of a group and the number of its front messages, from the count its
 * triggers keep (migration 0009); undefined when the user is not a member. One query answers both,
 * because every group page and feed request needs both.
 */
export async function memberFrontCount(
  db: Q,
  groupId: string,
  userId: string,
): Promise<{ membership: Membership; frontCount: number } | undefined> {
  const row = await db
    .selectFrom('groups as g')
    .innerJoin('memberships as m', 'm.group_id', 'g.id')
    .select(['g.front_count', 'm.group_id', 'm.user_id'])
    .where('g.id', '=', groupId)
    .where('m.user_id', '=', userId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return { membership: { group_id: row.group_id, user_id: row.user_id }, frontCount: Number(row.front_count) };
}
