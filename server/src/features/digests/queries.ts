import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DigestFrequency } from '../../jobs/job-queue.js';
import { eventsOf, inboxOf, unreadEvent, viewOf, withNames } from '../inbox/queries.js';
import type { NotificationView } from '../notifications/queries.js';
import type { UserRow } from '../../db/rows.js';

type Q = Kysely<Database>;

/**
 * Notification types never sent by e-mail, whatever list of types a caller selects: a reaction
 * alone never sends mail (issue 20). Digests and immediate mails share these selections.
 */
const NEVER_MAILED = ['new_reaction'];

/** The slot (ms) a frequency's digests were last started for, undefined before its first check. */
export async function findDigestSlot(db: Q, frequency: DigestFrequency): Promise<number | undefined> {
  const row = await db.selectFrom('digest_runs').select('slot').where('frequency', '=', frequency).executeTakeFirst();
  return row === undefined ? undefined : Number(row.slot);
}

/** Starts a frequency's schedule at `slot`, unless another process just did. */
export async function insertDigestSlot(db: Q, frequency: DigestFrequency, slot: number): Promise<void> {
  await db
    .insertInto('digest_runs')
    .values({ frequency, slot })
    .onConflict((oc) => oc.column('frequency').doNothing())
    .execute();
}

/** Moves a frequency's slot forward to `slot` if it is still earlier; true when this call moved it. */
export async function advanceDigestSlot(db: Q, frequency: DigestFrequency, slot: number): Promise<boolean> {
  const moved = await db
    .updateTable('digest_runs')
    .set({ slot })
    .where('frequency', '=', frequency)
    .where('slot', '<', slot)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) !== 0;
}

/**
 * Up to `limit` users of `frequency` after id `after`, by id, with at least one unread, unmailed
 * notification of one of `types`.
 */
export function usersWithUnmailed(
  db: Q,
  frequency: DigestFrequency,
  types: readonly string[],
  after: string,
  limit: number,
): Promise<Pick<UserRow, 'id' | 'login' | 'name' | 'lang' | 'mention_emails'>[]> {
  return db
    .selectFrom('users as u')
    .select(['u.id', 'u.login', 'u.name', 'u.lang', 'u.mention_emails'])
    .where('u.notification_emails', '=', frequency)
    .where('u.id', '>', after)
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('notifications as n')
            .select('n.id')
            .whereRef('n.user_id', '=', 'u.id')
            .where('n.read', '=', 0)
            .where('n.emailed_at', 'is', null)
            .where('n.type', 'in', types)
            .where('n.type', 'not in', NEVER_MAILED)
            // Mentions are never mailed to someone who chose `mention_emails: none` (docs/api §11.10).
            .where((w) =>
              w.or([
                w('n.type', '!=', 'mention'),
                w('u.mention_emails', 'is', null),
                w('u.mention_emails', '!=', 'none'),
              ]),
            ),
        ),
        // Group events are never mentions.
        eb.exists(
          eventsOf(db, sql.ref<string>('u.id'))
            .select('e.id')
            .where(unreadEvent())
            .where('s.emailed_at', 'is', null)
            .where('e.type', 'in', types)
            .where('e.type', 'not in', NEVER_MAILED),
        ),
      ]),
    )
    .orderBy('u.id')
    .limit(limit)
    .execute();
}

/** A user's unread, unmailed notifications of `types`, newest first (at most `limit`), with the names the mail shows. */
export async function unmailedNotifications(
  db: Q,
  userId: string,
  types: readonly string[],
  limit: number,
): Promise<NotificationView[]> {
  const rows = await withNames(db, inboxOf(db, userId))
    .where('n.read', '=', 0)
    .where('n.emailed_at', 'is', null)
    .where('n.type', 'in', types)
    .where('n.type', 'not in', NEVER_MAILED)
    .orderBy('n.created_at', 'desc')
    .orderBy('n.base_id')
    .limit(limit)
    .execute();
  return rows.map(viewOf);
}

/**
 * Claims the notifications of `views` (one user's) that no mail has taken yet for the mail being
 * written at `now`, and answers their ids. A digest and an immediate mail written at the same time
 * for one user (two jobs, two processes) thus never list the same notification: on PostgreSQL the
 * second statement waits for the first's commit and then finds those rows taken (an event's state
 * row conflicts, and its update's condition no longer holds); SQLite has one writer at a time.
 */
export async function claimForMail(db: Q, views: readonly NotificationView[], now: number): Promise<string[]> {
  const claimed: string[] = [];
  const personal = views.filter((n) => n.event_id === null).map((n) => n.id);
  if (personal.length > 0) {
    const rows = await db
      .updateTable('notifications')
      .set({ emailed_at: now })
      .where('id', 'in', personal)
      .where('emailed_at', 'is', null)
      .returning('id')
      .execute();
    claimed.push(...rows.map((row) => row.id));
  }
  const events = views.filter((n) => n.event_id !== null);
  if (events.length > 0) {
    const idOf = new Map(events.map((n) => [n.event_id, n.id]));
    const rows = await db
      .insertInto('notification_states')
      .values(events.map((n) => ({ user_id: n.user_id, event_id: n.event_id ?? '', read: null, emailed_at: now })))
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'event_id'])
          .doUpdateSet({ emailed_at: now })
          .where('notification_states.emailed_at', 'is', null),
      )
      .returning('event_id')
      .execute();
    for (const row of rows) claimed.push(idOf.get(row.event_id) ?? row.event_id);
  }
  return claimed;
}

/** A user with their mail choices, for the immediate mail's job (docs/api §10.8, §11.10). */
export function findMailChoices(
  db: Q,
  userId: string,
): Promise<Pick<UserRow, 'id' | 'login' | 'name' | 'lang' | 'notification_emails' | 'mention_emails'> | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'login', 'name', 'lang', 'notification_emails', 'mention_emails'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/** Sets a user's notification e-mails to `none`; false when there is no such user. */
export async function turnOffNotificationEmails(db: Q, userId: string): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ notification_emails: 'none' })
    .where('id', '=', userId)
    .executeTakeFirst();
  // Mentions mailed on their own stop too: the link of such a mail must stop what it came with.
  await db
    .updateTable('users')
    .set({ mention_emails: 'none' })
    .where('id', '=', userId)
    .where('mention_emails', '=', 'immediately')
    .execute();
  return Number(result.numUpdatedRows) > 0;
}
