import { sql, type Kysely, type RawBuilder } from 'kysely';
import { LIMITS, type FileObject } from '@kith/common';
import type { Database } from '../../db/schema.js';
import type { FileRow, Membership, MessageRow, UserRow } from '../../db/rows.js';
import { presentFile, type FileSigner } from '../files/presenter.js';
import { firstFilesOfMessages } from '../files/queries.js';
import { firstUrlInText } from '../../lib/urls.js';
import { eventsOf, unreadEvent, unreadSince } from '../inbox/queries.js';
import { prepared, preparedInsert } from '../../db/prepared.js';
import { engineOf } from '../../db/engine.js';
import { findMembership } from '../memberships/queries.js';
import { currentAuthorName } from '../../search/reindex.js';
import type { AppContext } from '../../context.js';

type IndexContext = Pick<AppContext, 'db' | 'search'>;

type Q = Kysely<Database>;

// The reads of every group page, feed and message answer are prepared once (db/prepared.ts).
const messageById = prepared((db, id: string) => db.selectFrom('messages').selectAll().where('id', '=', id));
export async function findMessage(db: Q, id: string): Promise<MessageRow | undefined> {
  return (await messageById(db, id))[0];
}

/** Ancestor ids of a stored message, nearest parent first. */
export function lineageOf(message: Pick<MessageRow, 'lineage'>): string[] {
  const value: unknown = JSON.parse(message.lineage);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The name of the group of the message `m`, as a scalar subquery (see `selectViews`). */
const GROUP_NAME = sql<string>`(select g.name from groups as g where g.id = m.group_id)`;

/**
 * Messages with what a card or a message answer shows beside them (author, group name), in one
 * query for any number of ids.
 */
function selectViews(db: Q) {
  return (
    db
      .selectFrom('messages as m')
      .leftJoin('users as a', 'a.id', 'm.author_id')
      .selectAll('m')
      // The group's name as a scalar subquery (a message's group always exists, by foreign key): a
      // page of 30 cards read in 88 µs on SQLite, against 221 joined to `groups` (same plan, the
      // benchmark's full data).
      .select([GROUP_NAME.as('group_name'), 'a.name as author_name', 'a.avatar_id as author_avatar_id'])
  );
}

export type MessageView = MessageRow & {
  group_name: string;
  author_name: string | null;
  author_avatar_id: string | null;
};

const viewsOf = prepared((db, ids: string[]) => selectViews(db).where('m.id', 'in', ids), { memo: true });
export function findMessageViews(db: Q, ids: string[]): Promise<MessageView[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return viewsOf(db, ids);
}

// A message and the caller's membership of its group in one statement: every read of one message
// checks both, and they were two round trips (PostgreSQL's `message` answer, issue 23). The view's
// variant also brings what the answer shows beside the message, which the answer then reads no more.
const messageWithMembership = prepared((db, id: string, userId: string) =>
  db
    .selectFrom('messages as m')
    .leftJoin('memberships as ms', (j) => j.onRef('ms.group_id', '=', 'm.group_id').on('ms.user_id', '=', userId))
    .selectAll('m')
    .select('ms.user_id as member_id')
    .where('m.id', '=', id),
);
const viewWithMembership = prepared(
  (db, id: string, userId: string) =>
    selectViews(db)
      .leftJoin('memberships as ms', (j) => j.onRef('ms.group_id', '=', 'm.group_id').on('ms.user_id', '=', userId))
      .select('ms.user_id as member_id')
      .where('m.id', '=', id),
  { memo: true },
);

/** What `findMessageAndMembership` answers: the row, and the caller's membership if any. */
export interface WithMembership<T> {
  message: T;
  membership: Membership | undefined;
}

function splitMembership<T extends { group_id: string; member_id: string | null }>(
  row: T | undefined,
): WithMembership<Omit<T, 'member_id'>> | undefined {
  if (row === undefined) return undefined;
  const { member_id: memberId, ...message } = row;
  return { message, membership: memberId === null ? undefined : { group_id: row.group_id, user_id: memberId } };
}

// SQLite has no round trips to save, and there the join costs more than the two statements it
// replaces (20 µs against 6 for the message and membership, benchmark's full data).

/** SQLite: `message` (if found) with `userId`'s membership of its group, read by a second statement. */
async function withMembershipOf<T extends { group_id: string }>(
  db: Q,
  message: T | undefined,
  userId: string,
): Promise<WithMembership<T> | undefined> {
  return message === undefined
    ? undefined
    : { message, membership: await findMembership(db, message.group_id, userId) };
}

/** A stored message and `userId`'s membership of its group. */
export async function findMessageAndMembership(
  db: Q,
  id: string,
  userId: string,
): Promise<WithMembership<MessageRow> | undefined> {
  if (engineOf(db) === 'postgres') return splitMembership((await messageWithMembership(db, id, userId))[0]);
  return withMembershipOf(db, await findMessage(db, id), userId);
}

/** A message's view (`findMessageViews`) and `userId`'s membership of its group. */
export async function findViewAndMembership(
  db: Q,
  id: string,
  userId: string,
): Promise<WithMembership<MessageView> | undefined> {
  if (engineOf(db) === 'postgres') return splitMembership((await viewWithMembership(db, id, userId))[0]);
  return withMembershipOf(db, (await findMessageViews(db, [id]))[0], userId);
}

// The files and the reactions of the message `m` as JSON arrays, read as `filesOfMessages` and
// `reactionViewsOf` read them and in the same order (null when there are none): the message and the
// public answers read them with the view on PostgreSQL.
const FILES_OF_M = sql<FileRow[] | null>`(
        select json_agg(to_json(f) order by mf.position) from message_files as mf
        inner join files as f on f.id = mf.file_id where mf.message_id = m.id)`;
const REACTIONS_OF_M = sql<ReactionView[] | null>`(
        select json_agg(json_build_object('id', r.id, 'message_id', r.message_id, 'user_id', r.user_id,
          'user_name', u.name, 'emoji', r.emoji) order by r.created_at, r.id)
        from reactions as r inner join users as u on u.id = r.user_id where r.message_id = m.id)`;

// PostgreSQL: what the message answer shows beside the view of `m`, read with it, in one round trip
// instead of four (issue 23): children, files, reactions and mentions, each as `childrenOf`,
// `filesOfMessages`, `reactionViewsOf` and `mentionViewsOf` read them, in the same order. They are
// scalar subqueries under `case`, so only a member's statement (`ms`, the caller's membership)
// reads them. The children come as JSON, which the driver parses natively: as an array they went
// through the pg driver's array parser in JavaScript, 2.6 % of the busy time of the message answer.
const MEMBER_EXTRAS = [
  sql<string[] | null>`case when ms.user_id is not null then (
        select json_agg(c.id order by c.created_at, c.id) from messages as c where c.parent_id = m.id) end`.as(
    'x_children',
  ),
  sql<FileRow[] | null>`case when ms.user_id is not null then ${FILES_OF_M} end`.as('x_files'),
  sql<ReactionView[] | null>`case when ms.user_id is not null then ${REACTIONS_OF_M} end`.as('x_reactions'),
  sql<MentionView[] | null>`case when ms.user_id is not null then (
        select json_agg(json_build_object('message_id', x.message_id, 'user_id', x.user_id, 'user_name', u.name,
          'written_name', x.written_name) order by x.position)
        from mentions as x inner join users as u on u.id = x.user_id where x.message_id = m.id) end`.as('x_mentions'),
];

// PostgreSQL: the user of an API key's hash (`findUserByApiKeyHash`) and, for them, the view and
// membership of `viewWithMembership` with `MEMBER_EXTRAS`, in one round trip instead of two: the
// message answer's key lookup was a statement of its own (issue 23). The user comes as JSON, as
// their columns share names with the message's; its columns are text, integers and bigints, which
// JSON gives back as the driver does (bigints as numbers, database.ts). No row: no such key; a
// null `id`: no message.
const callerAndViewWithExtras = prepared(
  (db, keyHash: string, id: string) =>
    db
      .selectFrom('users as k')
      .leftJoin('messages as m', (j) => j.on('m.id', '=', id))
      .leftJoin('users as a', 'a.id', 'm.author_id')
      .leftJoin('memberships as ms', (j) => j.onRef('ms.group_id', '=', 'm.group_id').onRef('ms.user_id', '=', 'k.id'))
      .selectAll('m')
      .select([
        sql<UserRow>`to_json(k)`.as('x_caller'),
        GROUP_NAME.as('group_name'),
        'a.name as author_name',
        'a.avatar_id as author_avatar_id',
        'ms.user_id as member_id',
        ...MEMBER_EXTRAS,
      ])
      .where('k.api_key_hash', '=', keyHash),
  { memo: true },
);

/** What a message answer shows beside its view, read with it (`findCallerAndMessage`). */
export interface MessageExtras {
  children: string[];
  files: FileRow[];
  reactions: ReactionView[];
  mentions: MentionView[];
}

/** The message as `findViewAndMembership` reads it and, for a member, its `MessageExtras`. */
export type ViewMembershipAndExtras = WithMembership<MessageView> & { extras: MessageExtras | undefined };

function splitExtras(
  row: MessageView & {
    member_id: string | null;
    x_children: string[] | null;
    x_files: FileRow[] | null;
    x_reactions: ReactionView[] | null;
    x_mentions: MentionView[] | null;
  },
): ViewMembershipAndExtras | undefined {
  const { x_children: children, x_files: files, x_reactions: reactions, x_mentions: mentions, ...view } = row;
  const found = splitMembership(view);
  if (found === undefined) return undefined;
  return {
    ...found,
    extras:
      found.membership === undefined
        ? undefined
        : { children: children ?? [], files: files ?? [], reactions: reactions ?? [], mentions: mentions ?? [] },
  };
}

/**
 * PostgreSQL only: the user of the API key whose hash is `keyHash` (undefined: none) and, when
 * there is one, message `id` as `findViewAndMembership` reads it for them with, for a member, its
 * `MessageExtras`, in one statement.
 */
export async function findCallerAndMessage(
  db: Q,
  keyHash: string,
  id: string,
): Promise<{ caller: UserRow | undefined; found: ViewMembershipAndExtras | undefined }> {
  const [row] = await callerAndViewWithExtras(db, keyHash, id);
  if (row === undefined) return { caller: undefined, found: undefined };
  const { x_caller: caller, ...rest } = row;
  // The left join answers the message's columns null when there is no message of that id.
  return { caller, found: rest.id === null ? undefined : splitExtras(rest as Parameters<typeof splitExtras>[0]) };
}

/**
 * The card picture of each message (docs/api §10.6): the file at position 0, else the stored preview
 * image of the first URL in its text. At most three queries for any number of messages.
 */
export async function previewsOf(signer: FileSigner, db: Q, ids: string[]): Promise<Map<string, FileObject>> {
  const rows = await firstFilesOfMessages(db, ids);
  const result = new Map([...rows].map(([id, file]) => [id, presentFile(signer, file, 0)]));
  const missing = ids.filter((id) => !rows.has(id));
  if (missing.length === 0) return result;
  const texts = await liveTextsOf(db, missing);
  for (const [id, file] of await linkPreviewsOf(signer, db, texts)) result.set(id, file);
  return result;
}

const liveTextsOf = prepared(
  (db, ids: string[]) =>
    db.selectFrom('messages').select(['id', 'text']).where('id', 'in', ids).where('is_deleted', '=', 0),
  { memo: true },
);

const linkPreviewRows = prepared(
  (db, urls: string[]) =>
    db
      .selectFrom('links as l')
      .innerJoin('files as f', 'f.id', 'l.preview_file_id')
      .selectAll('f')
      .select('l.url as link_url')
      .where('l.url', 'in', urls),
  { memo: true },
);

/**
 * For messages without files: the preview image of the link of the first URL in each text
 * (docs/api §10.6), once the background fetch stored one. One query, none without URLs.
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
  const rows = await linkPreviewRows(db, [...new Set(firstUrls.values())]);
  const byUrl = new Map(rows.map(({ link_url: url, ...file }) => [url, file]));
  for (const [id, url] of firstUrls) {
    const file = byUrl.get(url);
    if (file !== undefined) result.set(id, presentFile(signer, file, 0));
  }
  return result;
}

const childrenRows = prepared(
  (db, parentIds: string[]) =>
    db
      .selectFrom('messages')
      .select(['id', 'parent_id'])
      .where('parent_id', 'in', parentIds)
      .orderBy('created_at')
      .orderBy('id'),
  { memo: true },
);

/** Direct replies of each message, oldest first, in one query. */
export async function childrenOf(db: Q, parentIds: string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(parentIds.map((id) => [id, []]));
  if (parentIds.length === 0) return result;
  const rows = await childrenRows(db, parentIds);
  for (const row of rows) if (row.parent_id !== null) result.get(row.parent_id)?.push(row.id);
  return result;
}

const childCountRows = prepared(
  (db, parentIds: string[]) =>
    db
      .selectFrom('messages')
      .select((eb) => ['parent_id', eb.fn.countAll<number>().as('n')])
      .where('parent_id', 'in', parentIds)
      .groupBy('parent_id'),
  { memo: true },
);

/** How many direct replies each message has, in one query. */
export async function childCounts(db: Q, parentIds: string[]): Promise<Map<string, number>> {
  const result = new Map<string, number>(parentIds.map((id) => [id, 0]));
  if (parentIds.length === 0) return result;
  const rows = await childCountRows(db, parentIds);
  for (const row of rows) if (row.parent_id !== null) result.set(row.parent_id, Number(row.n));
  return result;
}

/** The group page (docs/api §5.4): front messages, newest activity first, then highest id. */
export function frontMessagesQuery(db: Q, groupId: string) {
  return db
    .selectFrom('messages')
    .where('group_id', '=', groupId)
    .where('is_in_front', '=', 1)
    .orderBy('last_activity_date', 'desc')
    .orderBy('id', 'desc');
}

// The group's row with two scalar subqueries: the caller's membership and the pinned ids in pin
// order. SQLite ran a join of groups and memberships and the pins' own statement in about 18 µs, this
// in about 3 (benchmark's full data; the join's plan is the same, its cost not), and on PostgreSQL
// it is one round trip instead of two. Ids hold no commas. Kept until something changes (`memo`,
// db/prepared.ts), as the page's ids below.
const memberFrontPinsRow = prepared(
  (db, groupId: string, userId: string) =>
    db
      .selectFrom('groups as g')
      .select((eb) => [
        'g.front_count',
        eb
          .selectFrom('memberships as ms')
          .select('ms.user_id')
          .whereRef('ms.group_id', '=', 'g.id')
          .where('ms.user_id', '=', userId)
          .as('member_id'),
        eb
          .selectFrom('messages as p')
          .select(sql<string | null>`string_agg(p.id, ',' order by p.pin_order)`.as('ids'))
          .whereRef('p.group_id', '=', 'g.id')
          .where('p.pin_order', 'is not', null)
          .as('pinned'),
      ])
      .where('g.id', '=', groupId),
  { memo: true },
);

/**
 * What every group page and feed request reads first, in one statement: the user's membership of
 * the group, the number of its front messages (the count its triggers keep, migration 0009) and the ids of its pinned
 * messages in pin order (index messages_group_pins, at most LIMITS.pinsPerGroup); undefined when the
 * user is not a member.
 */
export async function memberFrontAndPins(
  db: Q,
  groupId: string,
  userId: string,
): Promise<{ membership: Membership; frontCount: number; pinned: string[] } | undefined> {
  const [row] = await memberFrontPinsRow(db, groupId, userId);
  if (row?.member_id === null || row?.member_id === undefined) return undefined;
  return {
    membership: { group_id: groupId, user_id: row.member_id },
    frontCount: Number(row.front_count),
    pinned: row.pinned === null || row.pinned === '' ? [] : row.pinned.split(','),
  };
}

// PostgreSQL, GET /api/groups/{id}/page/{page} (`withKey`): the user of the key, their membership,
// the group's front count and pins (`memberFrontAndPins`) and the page's other front messages in one
// round trip (issue 23); no row at all when no user has that key. The page's walk is a scalar
// subquery under `case`, so it runs only for a member. Its LIMIT is the page size written as a
// constant: PostgreSQL keeps a named statement's generic plan only when the limit is a constant and
// no offset is a parameter (with `limit $n`, or an offset, it plans the statement again at every
// call), so the first page, which almost every request asks for, has no offset and later pages one.
// The caller keeps as many of the ids as the pins leave room for.
const callerFrontPinsPage = prepared(
  (db, keyHash: string, groupId: string, start: number | null) => {
    const skip = start === null ? sql`` : sql`offset greatest(0, cast(${start} as bigint) - cardinality(h.pinned))`;
    const statement = sql<{
      x_caller: UserRow;
      front_count: number | null;
      member_id: string | null;
      pinned: string[] | null;
      others: string[] | null;
    }>`
    with k as (select u.id, to_json(u) as caller from users as u where u.api_key_hash = ${keyHash}),
    h as (
      select g.id, g.front_count,
        (select ms.user_id from memberships as ms where ms.group_id = g.id and ms.user_id = k.id) as member_id,
        array(select p.id from messages as p where p.group_id = g.id and p.pin_order is not null
          order by p.pin_order) as pinned
      from k join groups as g on g.id = ${groupId}
    )
    select k.caller as x_caller, h.front_count, h.member_id, h.pinned,
      case when h.member_id is not null then array(
        select m.id from messages as m
        where m.group_id = h.id and m.is_in_front = 1 and m.id <> all(h.pinned)
        order by m.last_activity_date desc, m.id desc
        limit ${sql.lit(LIMITS.groupPageSize)} ${skip}
      ) end as others
    from k left join h on true`;
    return { compile: () => statement.compile(db) };
  },
  { memo: true },
);

/** What `findCallerAndFrontPage` reads for a member. */
export interface FrontPinsAndPage {
  membership: Membership;
  frontCount: number;
  pinned: string[];
  others: string[];
}

/**
 * PostgreSQL only: the user of the API key whose hash is `keyHash` (undefined: none) and, when they
 * are a member of the group, `memberFrontAndPins` with the ids of the page starting at front
 * position `start` that are not pinned (at most a page, newest activity first, past the pins of
 * earlier pages), in one statement. `found` is undefined for a non-member.
 */
export async function findCallerAndFrontPage(
  db: Q,
  keyHash: string,
  groupId: string,
  start: number,
): Promise<{ caller: UserRow | undefined; found: FrontPinsAndPage | undefined }> {
  const [row] = await callerFrontPinsPage(db, keyHash, groupId, start === 0 ? null : start);
  if (row?.member_id === null || row?.member_id === undefined) return { caller: row?.x_caller, found: undefined };
  return {
    caller: row.x_caller,
    found: {
      membership: { group_id: groupId, user_id: row.member_id },
      frontCount: Number(row.front_count),
      pinned: row.pinned ?? [],
      others: row.others ?? [],
    },
  };
}

const frontPageRows = prepared(
  (db, groupId: string, limit: number, offset: number, exclude: string[]) =>
    frontMessagesQuery(db, groupId)
      .$if(exclude.length > 0, (q) => q.where('id', 'not in', exclude))
      .select('id')
      .limit(limit)
      .offset(offset),
  { memo: true },
);

/**
 * Ids of one page of the group page's front messages (docs/api §5.4), leaving out `exclude` (the
 * pinned ones, listed first by the caller). Excluding by id keeps the walk on the covering index.
 */
export async function frontPageIds(
  db: Q,
  groupId: string,
  limit: number,
  offset: number,
  exclude: string[] = [],
): Promise<string[]> {
  const rows = await frontPageRows(db, groupId, limit, offset, exclude);
  return rows.map((r) => r.id);
}

/**
 * How many messages of a group are pinned and the largest pin order, for the next pin. On
 * PostgreSQL the group row is locked first, so two members pinning at once cannot both take the
 * last place or the same order; SQLite runs one writing transaction at a time anyway.
 */
export async function lockPins(
  db: Q,
  groupId: string,
  postgres: boolean,
): Promise<{ count: number; maxOrder: number | null }> {
  if (postgres) await db.selectFrom('groups').select('id').where('id', '=', groupId).forUpdate().execute();
  const row = await db
    .selectFrom('messages')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max<number | null>('pin_order').as('max_order')])
    .where('group_id', '=', groupId)
    .where('pin_order', 'is not', null)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), maxOrder: row.max_order === null ? null : Number(row.max_order) };
}

// Prepared per shape: the feed's first screen (no cursor) and its later ones are two texts.
const frontRowsAfter = prepared(
  (db, groupId: string, afterAt: number | null, afterId: string | null, limit: number, exclude: string[]) => {
    let page = frontMessagesQuery(db, groupId)
      .$if(exclude.length > 0, (q) => q.where('id', 'not in', exclude))
      .select(['id', 'last_activity_date']);
    if (afterAt !== null && afterId !== null) {
      page = page.where((eb) =>
        eb.or([
          eb('last_activity_date', '<', afterAt),
          eb.and([eb('last_activity_date', '=', afterAt), eb('id', '<', afterId)]),
        ]),
      );
    }
    return page.limit(limit);
  },
);

/**
 * Up to `limit` front messages after the position `after` (all from the top when null), with the
 * activity date a feed cursor is made of, leaving out `exclude` (the pinned ones).
 */
export function frontMessagesAfter(
  db: Q,
  groupId: string,
  after: { at: number; id: string } | null,
  limit: number,
  exclude: string[] = [],
): Promise<{ id: string; last_activity_date: number }[]> {
  return frontRowsAfter(db, groupId, after?.at ?? null, after?.id ?? null, limit, exclude);
}

/** The id of the front message at position `offset` of the group page, if there is one. */
export async function frontMessageIdAt(db: Q, groupId: string, offset: number): Promise<string | undefined> {
  const row = await frontMessagesQuery(db, groupId).select('id').limit(1).offset(offset).executeTakeFirst();
  return row?.id;
}

const unreadTargetRows = prepared((db, userId: string, groupId: string, limit: number) =>
  // Only group events are new_message/new_comment (personal rows are mentions, reactions, global).
  eventsOf(db, userId, groupId)
    .innerJoin('messages as mm', 'mm.id', 'e.target')
    .select(['mm.id', 'mm.lineage'])
    .where('e.created_at', '>=', unreadSince(db, userId))
    .where(unreadEvent())
    .where('e.type', 'in', ['new_message', 'new_comment'])
    .orderBy('e.created_at', 'desc')
    .limit(limit),
);

/**
 * The latest unread new_message/new_comment notification targets of a user in a group (at most
 * `limit`, newest first), with their lineage.
 */
export function unreadTargets(
  db: Q,
  userId: string,
  groupId: string,
  limit: number,
): Promise<{ id: string; lineage: string }[]> {
  return unreadTargetRows(db, userId, groupId, limit);
}

/** Puts `ids` on a message in this order (`fileIndex` 0..n-1), replacing what it carried. */
export async function setMessageFiles(db: Q, messageId: string, ids: string[]): Promise<void> {
  await db.deleteFrom('message_files').where('message_id', '=', messageId).execute();
  if (ids.length === 0) return;
  await db
    .insertInto('message_files')
    .values(ids.map((fileId, position) => ({ message_id: messageId, file_id: fileId, position })))
    .execute();
}

/** How many files a stored message carries. */
export async function countMessageFiles(db: Q, messageId: string): Promise<number> {
  const row = await db
    .selectFrom('message_files')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('message_id', '=', messageId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The stored data (JSON text) of the link preview of `url`, if one was fetched. */
export function findLinkData(db: Q, url: string): Promise<{ data: string } | undefined> {
  return db.selectFrom('links').select('data').where('url', '=', url).executeTakeFirst();
}

/** What a notification title is made of, for the messages of `ids` (in no particular order). */
export function findTitleSources(
  db: Q,
  ids: string[],
): Promise<Pick<MessageRow, 'id' | 'title' | 'text' | 'is_in_front'>[]> {
  return db.selectFrom('messages').select(['id', 'title', 'text', 'is_in_front']).where('id', 'in', ids).execute();
}

/** The insert of a message row, for a chain of writes (db/postgres-chain.ts). */
export const insertMessageQuery = preparedInsert('messages', [
  'id',
  'group_id',
  'author_id',
  'parent_id',
  'root_id',
  'lineage',
  'title',
  'text',
  'no_embed',
  'created_at',
  'last_activity_date',
  'is_in_front',
  'is_deleted',
  'public_token',
  'pin_order',
]);

/**
 * The update of the last activity date of the messages of `ids` (a thread moving up, docs/api
 * §10.2), for a chain of writes.
 */
export function touchMessagesQuery(db: Q, ids: string[], now: number) {
  return db.updateTable('messages').set({ last_activity_date: now }).where('id', 'in', ids);
}

/** Sets the last activity date of a group (docs/api §10.2). */
export async function touchGroup(db: Q, groupId: string, now: number): Promise<void> {
  await db.updateTable('groups').set({ last_activity_date: now }).where('id', '=', groupId).execute();
}

/** Who is posting: their membership of the group, the group's name and their current name. */
export interface Poster {
  membership: Membership | undefined;
  /** Known on PostgreSQL only, where it comes with the rest (null: the group does not exist). */
  groupName?: string | null;
  /** null when the user no longer exists. */
  authorName: string | null;
}

/** What PostgreSQL reads of a poster (`posterRow`, `callerPosterRow`). */
interface PosterRow {
  group_id: string | null;
  user_id: string | null;
  group_name: string | null;
  author_name: string | null;
}

// The poster's name through `kith_author_name` (migration 0027): the author's lock, then the name.
const posterRow = prepared((db, groupId: string, userId: string) => {
  const query = sql<PosterRow>`
    select m.group_id, m.user_id, g.name as group_name, kith_author_name(${userId}) as author_name
    from (select 1) as one
    left join groups g on g.id = ${groupId}
    left join memberships m on m.group_id = ${groupId} and m.user_id = ${userId}`;
  return { compile: () => query.compile(db) };
});

// PostgreSQL, POST /api/messages (`withKey`): `posterRow` for the user of the API key, with that
// user, in one round trip (issue 23); no row when no user has the key, and then no lock taken.
const callerPosterRow = prepared((db, keyHash: string, groupId: string) => {
  const query = sql<PosterRow & { x_caller: UserRow }>`
    with k as (select u.id, to_json(u) as caller from users as u where u.api_key_hash = ${keyHash})
    select k.caller as x_caller, m.group_id, m.user_id, g.name as group_name, kith_author_name(k.id) as author_name
    from k
    left join groups g on g.id = ${groupId}
    left join memberships m on m.group_id = ${groupId} and m.user_id = k.id`;
  return { compile: () => query.compile(db) };
});

/** The `Poster` of what PostgreSQL read. */
function posterOfRow(row: PosterRow | undefined): Poster {
  const member = row?.group_id && row.user_id ? { group_id: row.group_id, user_id: row.user_id } : undefined;
  return { membership: member, groupName: row?.group_name ?? null, authorName: row?.author_name ?? null };
}

/**
 * PostgreSQL only: the user of the API key whose hash is `keyHash` (undefined: none) and, for that
 * user, what `findPoster` reads, in one statement. Call it first in the post's transaction, as
 * `findPoster`: it takes the author's lock when the key is someone's.
 */
export async function findCallerAndPoster(
  db: Q,
  keyHash: string,
  groupId: string,
): Promise<{ caller: UserRow | undefined; poster: Poster }> {
  const [row] = await callerPosterRow(db, keyHash, groupId);
  return { caller: row?.x_caller, poster: posterOfRow(row) };
}

/**
 * The poster's membership of `groupId` and current name, read as `currentAuthorName`
 * (search/reindex.ts) reads it, so call it before the transaction locks anything else. On
 * PostgreSQL one statement with the group's name instead of three round trips; on SQLite two
 * statements, as before.
 */
export async function findPoster(ctx: IndexContext, db: Q, groupId: string, userId: string): Promise<Poster> {
  if (ctx.db.dialect === 'postgres') {
    const [row] = await posterRow(db, groupId, userId);
    return posterOfRow(row);
  }
  const membership = await findMembership(db, groupId, userId);
  return { membership, authorName: await currentAuthorName(ctx, db, userId) };
}

/** Changes the given columns of one message. */
export async function updateMessageRow(db: Q, id: string, changes: Partial<MessageRow>): Promise<void> {
  await db.updateTable('messages').set(changes).where('id', '=', id).execute();
}

/** Ids of every message of the thread of the post `rootId`, the post included. */
export async function threadIds(db: Q, rootId: string): Promise<string[]> {
  const rows = await db.selectFrom('messages').select('id').where('root_id', '=', rootId).execute();
  return rows.map((m) => m.id);
}

/** Deletes the notifications about the messages of `ids`: as target, then as fromMessage. */
export async function deleteNotificationsOfMessages(db: Q, ids: string[]): Promise<void> {
  await db.deleteFrom('notifications').where('target', 'in', ids).execute();
  await db.deleteFrom('notifications').where('from_message_id', 'in', ids).execute();
  // Their members' states go with them (foreign key).
  await db.deleteFrom('notification_events').where('target', 'in', ids).execute();
  await db.deleteFrom('notification_events').where('from_message_id', 'in', ids).execute();
}

/** Deletes message rows (bookmarks, reactions and file attachments go by foreign key). */
export async function deleteMessageRows(db: Q, ids: string[]): Promise<void> {
  await db.deleteFrom('messages').where('id', 'in', ids).execute();
}

/**
 * Turns a message into a placeholder (docs/api §10.3): no content, author or link, off the group
 * page; its bookmarks, reactions, files and the notifications it is the target of go. Notifications about its
 * replies (fromMessage = this) stay: those replies still exist.
 */
export async function makePlaceholder(db: Q, id: string): Promise<void> {
  await db
    .updateTable('messages')
    .set({
      is_deleted: 1,
      title: null,
      text: null,
      no_embed: null,
      author_id: null,
      is_in_front: 0,
      public_token: null,
      pin_order: null,
    })
    .where('id', '=', id)
    .execute();
  await db.deleteFrom('bookmarks').where('message_id', '=', id).execute();
  await db.deleteFrom('reactions').where('message_id', '=', id).execute();
  await db.deleteFrom('mentions').where('message_id', '=', id).execute();
  await db.deleteFrom('message_files').where('message_id', '=', id).execute();
  await db.deleteFrom('notifications').where('target', '=', id).execute();
  await db.deleteFrom('notification_events').where('target', '=', id).execute();
}

/** Gives a message the public token `token` unless it already has one (the first writer wins). */
export async function setPublicTokenIfNone(db: Q, id: string, token: string): Promise<void> {
  await db
    .updateTable('messages')
    .set({ public_token: token })
    .where('id', '=', id)
    .where('public_token', 'is', null)
    .execute();
}

/** The public token a message has now (null without one), undefined when the message is gone. */
export async function findPublicToken(db: Q, id: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('messages').select('public_token').where('id', '=', id).executeTakeFirst();
  return row?.public_token;
}

/** Takes a message's public link away. */
export async function clearPublicToken(db: Q, id: string): Promise<void> {
  await db.updateTable('messages').set({ public_token: null }).where('id', '=', id).execute();
}

/**
 * The view (`findMessageViews`) of the message that is not deleted and has the public token
 * `token`, if any: one statement where the public page read the id, then the view.
 */
// The token is looked up in a subquery: SQLite joined the view's tables three times slower when the
// message itself was searched by token (25 µs against 6).
const viewByPublicToken = prepared(
  (db, token: string) =>
    selectViews(db).where('m.id', 'in', (eb) =>
      eb.selectFrom('messages').select('id').where('public_token', '=', token).where('is_deleted', '=', 0),
    ),
  { memo: true },
);

export async function findViewByPublicToken(db: Q, token: string): Promise<MessageView | undefined> {
  return (await viewByPublicToken(db, token))[0];
}

/** What the public answer shows beside its view: the message's files and reactions (`PublicExtras`). */
export interface PublicExtras {
  files: FileRow[];
  reactions: ReactionView[];
}

// PostgreSQL: `viewByPublicToken` with the message's files and, while reactions are on, its reactions,
// in one round trip instead of three (issue 23). Two statements, so that an instance with reactions
// off reads none, as the separate reads do (its `x_reactions` is a null constant); the token is
// their only parameter, so PostgreSQL keeps one generic plan for each.
const publicViewWith = (reactions: RawBuilder<ReactionView[] | null>) =>
  prepared(
    (db, token: string) =>
      selectViews(db)
        .select([FILES_OF_M.as('x_files'), reactions.as('x_reactions')])
        .where('m.id', 'in', (eb) =>
          eb.selectFrom('messages').select('id').where('public_token', '=', token).where('is_deleted', '=', 0),
        ),
    { memo: true },
  );
const publicViewWithReactions = publicViewWith(REACTIONS_OF_M);
const publicViewWithoutReactions = publicViewWith(sql<null>`null`);

/**
 * PostgreSQL only: `findViewByPublicToken` and the message's `PublicExtras` in one statement; the
 * reactions are empty unless `withReactions`.
 */
export async function findPublicViewAndExtras(
  db: Q,
  token: string,
  withReactions: boolean,
): Promise<{ view: MessageView; extras: PublicExtras } | undefined> {
  const [row] = await (withReactions ? publicViewWithReactions : publicViewWithoutReactions)(db, token);
  if (row === undefined) return undefined;
  const { x_files: files, x_reactions: reactions, ...view } = row;
  return { view, extras: { files: files ?? [], reactions: reactions ?? [] } };
}

/** Rows of several messages grouped by message, each group in the rows' order. */
function byMessage<T extends { message_id: string }>(rows: T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const list = grouped.get(row.message_id);
    if (list === undefined) grouped.set(row.message_id, [row]);
    else list.push(row);
  }
  return grouped;
}

/** One reaction with its user's name, for the summaries (issue 20). */
export interface ReactionView {
  id: string;
  message_id: string;
  user_id: string;
  user_name: string;
  emoji: string;
}

const reactionRows = prepared(
  (db, ids: string[]) =>
    db
      .selectFrom('reactions as r')
      .innerJoin('users as u', 'u.id', 'r.user_id')
      .select(['r.id', 'r.message_id', 'r.user_id', 'u.name as user_name', 'r.emoji'])
      .where('r.message_id', 'in', ids)
      .orderBy('r.created_at')
      .orderBy('r.id'),
  { memo: true },
);

/**
 * The reactions of each message, oldest first, in one query for any number of ids (a page of cards
 * included): the unique key (message, user, emoji) is its index. Reactions live in
 * features/reactions; their summaries are read here, below it, because the message and card
 * answers carry them (docs/decisions.md, "Reactions").
 */
export async function reactionViewsOf(db: Q, ids: string[]): Promise<Map<string, ReactionView[]>> {
  if (ids.length === 0) return new Map();
  return byMessage(await reactionRows(db, ids));
}

// Mentions (issue 21, docs/api §11.10).

/** One stored mention with the mentioned person's current name. */
export interface MentionView {
  message_id: string;
  user_id: string;
  user_name: string;
  written_name: string;
}

const mentionRows = prepared(
  (db, ids: string[]) =>
    db
      .selectFrom('mentions as x')
      .innerJoin('users as u', 'u.id', 'x.user_id')
      .select(['x.message_id', 'x.user_id', 'u.name as user_name', 'x.written_name'])
      .where('x.message_id', 'in', ids)
      .orderBy('x.message_id')
      .orderBy('x.position'),
  { memo: true },
);

/**
 * The mentions of each message, in the order first written, in one query for any number of ids (a
 * page of cards included): the primary key (message, user) is its index.
 */
export async function mentionViewsOf(db: Q, ids: string[]): Promise<Map<string, MentionView[]>> {
  if (ids.length === 0) return new Map();
  return byMessage(await mentionRows(db, ids));
}

/** Which of `userIds` are members of `groupId` now, with their current names (one query). */
export async function membersNamed(db: Q, groupId: string, userIds: string[]): Promise<{ id: string; name: string }[]> {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('memberships as ms')
    .innerJoin('users as u', 'u.id', 'ms.user_id')
    .select(['u.id', 'u.name'])
    .where('ms.group_id', '=', groupId)
    .where('ms.user_id', 'in', userIds)
    .execute();
}

/** Replaces the stored mentions of a message by `rows`, in their order. */
export async function replaceMentions(
  db: Q,
  messageId: string,
  rows: { userId: string; written: string }[],
): Promise<void> {
  await db.deleteFrom('mentions').where('message_id', '=', messageId).execute();
  if (rows.length === 0) return;
  await db
    .insertInto('mentions')
    .values(rows.map((r, i) => ({ message_id: messageId, user_id: r.userId, written_name: r.written, position: i })))
    .execute();
}

// The all-groups feed (docs/api §11.8, all-groups-feed.ts).

/**
 * The caller's memberships with each group's front message count (migration 0009), in one query:
 * the groups the all-groups feed reads and its `totalItems`.
 */
export async function membershipsWithFrontCount(
  db: Q,
  userId: string,
): Promise<{ membership: Membership; frontCount: number }[]> {
  const rows = await db
    .selectFrom('memberships as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .select(['m.group_id', 'm.user_id', 'g.front_count'])
    .where('m.user_id', '=', userId)
    .execute();
  return rows.map((r) => ({
    membership: { group_id: r.group_id, user_id: r.user_id },
    frontCount: Number(r.front_count),
  }));
}

/** Compound SELECTs are cut into nested ones of this many arms (SQLite allows 500 in one). */
const ARMS_PER_COMPOUND = 100;

/**
 * One page of the front messages of several groups, newest activity first, then highest id: the
 * first `limit` after skipping `offset`, all strictly after the position `after` when given. One
 * query, whatever the number of groups: each group's arm walks `messages_group_front` (migration
 * 0002) in the page's order and stops after `offset + limit` rows, and the arms are merged (SQLite:
 * MERGE (UNION ALL); PostgreSQL: Merge Append). No index over all groups by date is needed, and a
 * user in a small group among large ones reads no other group's rows.
 */
export async function frontMessagesOfGroups(
  db: Q,
  groupIds: string[],
  after: { at: number; id: string } | null,
  limit: number,
  offset = 0,
): Promise<{ id: string; group_id: string; last_activity_date: number }[]> {
  if (groupIds.length === 0) return [];
  const arms = groupIds.map((groupId) => {
    let arm = frontMessagesQuery(db, groupId).select(['id', 'group_id', 'last_activity_date']);
    // A row value, which both engines read as a range of the index, so a deep page starts where
    // the cursor points instead of walking down to it.
    if (after !== null) {
      arm = arm.where((eb) => eb(eb.refTuple('last_activity_date', 'id'), '<', eb.tuple(after.at, after.id)));
    }
    // Wrapped, because a member of a compound SELECT cannot carry its own ORDER BY and LIMIT. Each
    // wrapper is a scope of its own, so they can all be called `f`.
    return db.selectFrom(arm.limit(offset + limit).as('f')).selectAll();
  });
  const union = (parts: typeof arms) => parts.slice(1).reduce((all, part) => all.unionAll(part), parts[0]!);
  let merged = union(arms);
  if (arms.length > ARMS_PER_COMPOUND) {
    const chunks: (typeof arms)[] = [];
    for (let i = 0; i < arms.length; i += ARMS_PER_COMPOUND) chunks.push(arms.slice(i, i + ARMS_PER_COMPOUND));
    merged = union(chunks.map((chunk) => db.selectFrom(union(chunk).as('f')).selectAll()));
  }
  const rows = await merged
    .orderBy('last_activity_date', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({ id: r.id, group_id: r.group_id, last_activity_date: Number(r.last_activity_date) }));
}

/**
 * The latest unread new_message/new_comment notification targets of a user in the groups of
 * `groupIds` (at most `limit`, newest first), with their lineage: `unreadTargets` for several groups.
 */
export function unreadTargetsInGroups(
  db: Q,
  userId: string,
  groupIds: string[],
  limit: number,
): Promise<{ id: string; lineage: string }[]> {
  if (groupIds.length === 0) return Promise.resolve([]);
  return eventsOf(db, userId)
    .innerJoin('messages as mm', 'mm.id', 'e.target')
    .select(['mm.id', 'mm.lineage'])
    .where('e.group_id', 'in', groupIds)
    .where(unreadEvent())
    .where('e.type', 'in', ['new_message', 'new_comment'])
    .orderBy('e.created_at', 'desc')
    .limit(limit)
    .execute();
}
