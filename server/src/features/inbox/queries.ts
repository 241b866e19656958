import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { recipientId } from './ids.js';

type Q = Kysely<Database>;

/**
 * Where a user's notifications live (migration 0024, docs/decisions.md "Issue 23"): personal ones
 * (mentions, reactions, global) are rows of `notifications`; those sent to a whole group are one
 * `notification_events` row each, which reaches the members whose membership began at or before
 * it, but its actor, with the member's state (`notification_states`) only where it differs from
 * unread, listed and unmailed. Both read as one list here, in the columns of the old rows:
 * `kind` says which, `base_id` is the stored id (the event's for events, recipientId gives the
 * member's).
 */
export function personalBranch(db: Q, user: string | Expression<string>) {
  return db
    .selectFrom('notifications as p')
    .where('p.user_id', '=', user)
    .select([
      sql<string>`'p'`.as('kind'),
      'p.id as base_id',
      'p.user_id',
      'p.type',
      'p.created_at',
      'p.read',
      'p.emailed_at',
      'p.target',
      'p.data',
      'p.from_user_id',
      'p.from_group_id',
      'p.from_message_id',
      'p.title',
    ]);
}

/**
 * An event read by its member: explicitly (their state), else by their "mark all read" watermark.
 * SQL null (no watermark) compares as unknown, so the event stays unread.
 */
const EVENT_READ = sql<number>`case when s.read is not null then s.read when e.created_at <= me.notifications_read_until then 1 else 0 end`;

/** The events `user` receives, with their state (aliases e, m, me, s), optionally of one group. */
export function eventsOf(db: Q, user: string | Expression<string>, groupId?: string) {
  let query = db
    .selectFrom('notification_events as e')
    .innerJoin('memberships as m', (j) =>
      j.onRef('m.group_id', '=', 'e.group_id').onRef('m.joined_at', '<=', 'e.created_at'),
    )
    .innerJoin('users as me', 'me.id', 'm.user_id')
    .leftJoin('notification_states as s', (j) =>
      j.onRef('s.event_id', '=', 'e.id').onRef('s.user_id', '=', 'm.user_id'),
    )
    .where('m.user_id', '=', user)
    .where((eb) => eb.or([eb('e.actor_id', 'is', null), eb('e.actor_id', '!=', eb.ref('m.user_id'))]))
    .where((eb) => eb.or([eb('s.deleted', 'is', null), eb('s.deleted', '=', 0)]));
  if (groupId !== undefined) query = query.where('e.group_id', '=', groupId).where('m.group_id', '=', groupId);
  return query;
}

/** An event's columns in those of `personalBranch` (`e` the event, `s` the member's state, `m` the membership). */
const EVENT_COLUMNS = [
  sql<string>`'e'`.as('kind'),
  'e.id as base_id',
  'm.user_id',
  'e.type',
  'e.created_at',
  EVENT_READ.as('read'),
  's.emailed_at',
  'e.target',
  'e.data',
  'e.from_user_id',
  'e.from_group_id',
  'e.from_message_id',
  'e.title',
] as const;

/** `eventsOf` in the columns of `personalBranch`. */
export function eventBranch(db: Q, user: string | Expression<string>, groupId?: string) {
  return eventsOf(db, user, groupId).select(EVENT_COLUMNS);
}

/**
 * PostgreSQL only: the newest `limit` events of each group of `user`, in the columns of
 * `eventBranch` (`listNotifications`), one statement for all groups. Per group a LATERAL subquery
 * walks the (group, date) index backwards from the newest event and stops after `limit` listed
 * ones. The filters are `eventsOf`'s, with the member's deletions as an anti-join: written as
 * `eventsOf` does (`s.deleted is null or s.deleted = 0` after the left join), PostgreSQL estimated
 * that about 1 % of a group's events survive, fewer than `limit`, so it read every event since the
 * member joined (1,200 in an ordinary group, 52,000 in the benchmark's big one) to sort them,
 * 10 ms a list at full scale instead of 1. SQLite has no LATERAL.
 */
export function newestEventsOfEachGroup(db: Q, user: string, limit: number, exceptType?: string) {
  return db
    .selectFrom('memberships as m')
    .innerJoin('users as me', 'me.id', 'm.user_id')
    .innerJoinLateral(
      (eb) => {
        let events = eb
          .selectFrom('notification_events as e')
          .leftJoin('notification_states as s', (j) =>
            j.onRef('s.event_id', '=', 'e.id').onRef('s.user_id', '=', 'm.user_id'),
          )
          .whereRef('e.group_id', '=', 'm.group_id')
          .whereRef('e.created_at', '>=', 'm.joined_at')
          .where((w) => w.or([w('e.actor_id', 'is', null), w('e.actor_id', '!=', w.ref('m.user_id'))]))
          .where((w) =>
            w.not(
              w.exists(
                w
                  .selectFrom('notification_states as d')
                  .select('d.event_id')
                  .whereRef('d.user_id', '=', 'm.user_id')
                  .whereRef('d.event_id', '=', 'e.id')
                  .where('d.deleted', '!=', 0),
              ),
            ),
          );
        if (exceptType !== undefined) events = events.where('e.type', '!=', exceptType);
        return events
          .select(EVENT_COLUMNS)
          .orderBy('e.created_at', 'desc')
          .orderBy('e.id', 'desc')
          .limit(limit)
          .as('b');
      },
      (j) => j.onTrue(),
    )
    .where('m.user_id', '=', user)
    .selectAll('b');
}

/** A user's whole list (personal rows and events), as one derived table `n`. */
export function inboxOf(db: Q, userId: string) {
  return db.selectFrom(personalBranch(db, userId).unionAll(eventBranch(db, userId)).as('n'));
}

/** Unread conditions of an event, for queries on `eventsOf` (no derived table). */
export function unreadEvent(): Expression<SqlBool> {
  return sql<SqlBool>`(s.read = 0 or (s.read is null and (me.notifications_read_until is null or e.created_at > me.notifications_read_until)))`;
}

/**
 * For a query on `eventsOf(db, userId, …)`: the oldest time an unread event of `userId` can have.
 * That is after they joined the group (`m.joined_at`), and after their read-all watermark or at the
 * oldest event they marked unread one by one, if older (with no watermark, any time). It adds
 * nothing to `unreadEvent()`, but as `e.created_at >= unreadSince(…)` the index on (group_id,
 * created_at) starts there: `unreadEvent()` cannot bound the scan, so for a member who had read all
 * the feed walked every event of the group since they joined, looking for unread ones (60 ms a feed
 * in a group of 100,000 messages, benchmark at full scale; 0.1 ms with the bound). Join time and
 * watermark are one expression: given two lower bounds, SQLite's planner kept the join's.
 */
export function unreadSince(db: Q, userId: string): Expression<number> {
  const watermark = db.selectFrom('users').select('notifications_read_until').where('id', '=', userId);
  const oldestMarkedUnread = db
    .selectFrom('notification_states as s2')
    .innerJoin('notification_events as e2', 'e2.id', 's2.event_id')
    .select((eb) => eb.fn.min('e2.created_at').as('t'))
    .where('s2.user_id', '=', userId)
    .where('s2.read', '=', 0);
  const afterRead = sql<number>`(case when (${watermark}) is null then -1
    when (${oldestMarkedUnread}) <= (${watermark}) then (${oldestMarkedUnread})
    else (${watermark}) + 1 end)`;
  return sql<number>`(case when m.joined_at > ${afterRead} then m.joined_at else ${afterRead} end)`;
}

/** A stored row as its owner sees it: the member's own id for an event. */
export interface InboxRow {
  kind: string;
  base_id: string;
  user_id: string;
}

export function viewOf<T extends InboxRow>(
  row: T,
): Omit<T, 'kind' | 'base_id'> & { id: string; event_id: string | null } {
  const { kind, base_id, ...rest } = row;
  const isEvent = kind === 'e';
  return { ...rest, id: isEvent ? recipientId(base_id, row.user_id) : base_id, event_id: isEvent ? base_id : null };
}

/**
 * Notifications with everything the presenter needs, resolved in one query (names of the user and
 * group that caused them), so a list never costs one query per item. `from` is the rows to show.
 */
export function withNames(db: Q, from: ReturnType<typeof inboxOf>) {
  return (
    from
      .leftJoin('users as fu', 'fu.id', 'n.from_user_id')
      .leftJoin('groups as fg', 'fg.id', 'n.from_group_id')
      // The author of the replied-to message, for new_comment's parentAuthorName.
      .leftJoin('messages as fm', 'fm.id', 'n.from_message_id')
      .leftJoin('users as fma', 'fma.id', 'fm.author_id')
      .select([
        'n.kind',
        'n.base_id',
        'n.user_id',
        'n.type',
        'n.created_at',
        'n.read',
        'n.target',
        'n.data',
        'n.from_user_id',
        'n.from_group_id',
        'n.from_message_id',
        'n.title',
        'fu.name as from_user_name',
        'fu.avatar_id as from_user_avatar_id',
        'fg.name as from_group_name',
        'fma.name as parent_author_name',
      ])
  );
}
