import type { NotificationType } from '@kith/common';
import type { AppContext } from '../../context.js';
import type { Effects, Tx } from '../../db/transaction.js';
import { hasUnmailedNotification, usersMailedMentionsNow, usersWithFrequency } from './queries.js';
import type { CreatedNotification } from './service.js';

/**
 * The notifications that go out by e-mail, in digests and immediate mails alike (docs/api §10.8):
 * new posts and comments, and mentions (§11.10) unless the user chose `mention_emails: none`.
 * Every other type (joins, renames, reactions…) stays in the app.
 */
export const MAILED_NOTIFICATION_TYPES: readonly NotificationType[] = ['new_message', 'new_comment', 'mention'];

/**
 * The types one user's mails may list (docs/api §11.10): `mentionsOnly`, the mail a mention sends
 * on its own to someone whose other notifications are not mailed immediately.
 */
export function mailedTypesFor(mentionEmails: string | null, mentionsOnly = false): readonly NotificationType[] {
  if (mentionsOnly) return ['mention'];
  return mentionEmails === 'none'
    ? MAILED_NOTIFICATION_TYPES.filter((t) => t !== 'mention')
    : MAILED_NOTIFICATION_TYPES;
}

/** A user's mail waits for the delay; while it waits, it is the one job of that user. */
function immediateJobOptions(ctx: Pick<AppContext, 'config'>) {
  return { delayMs: ctx.config.immediateMailDelayMs, unique: true, maxAttempts: 10 };
}

/** Recipients looked up per query (well under both engines' bound-parameter limits). */
const LOOKUP_CHUNK = 500;

/**
 * Starts the mail of the recipients on `immediately` (docs/api §10.8), in the transaction that
 * created their notifications, so the job exists exactly when they do and survives a crash. Each
 * user's mail leaves `IMMEDIATE_MAIL_DELAY_SECONDS` after the first of a burst: while their job
 * waits, further activity joins it (the job is recorded once per user), and the job sends all that
 * is unmailed when it runs. Activity after it ran starts the next one.
 */
export async function queueImmediateMails(
  ctx: Pick<AppContext, 'config'>,
  tx: Tx,
  effects: Effects,
  type: NotificationType,
  created: readonly CreatedNotification[],
): Promise<void> {
  if (!ctx.config.allowEmail || !MAILED_NOTIFICATION_TYPES.includes(type)) return;
  if (type !== 'mention' && created.every((n) => n.recipient !== undefined)) {
    // A group-wide notification's recipients come once each, with their settings: no look-up, and
    // no copies of the list (every post runs this for each member of its group).
    const immediate: { userId: string }[] = [];
    for (const n of created)
      if (n.recipient?.notification_emails === 'immediately') immediate.push({ userId: n.userId });
    await effects.enqueueMany('send-immediate-mail', immediate, immediateJobOptions(ctx));
    return;
  }
  const recipients = [...new Set(created.map((n) => n.userId))];
  for (let i = 0; i < recipients.length; i += LOOKUP_CHUNK) {
    const chunk = recipients.slice(i, i + LOOKUP_CHUNK);
    // A mention mails within the delay for users on `immediately` (unless they turned mention mails
    // off) and for those whose mention_emails is `immediately`, whatever their frequency.
    const immediate =
      type === 'mention' ? await usersMailedMentionsNow(tx, chunk) : await usersWithFrequency(tx, chunk, 'immediately');
    await effects.enqueueMany(
      'send-immediate-mail',
      immediate.map((userId) => ({ userId })),
      immediateJobOptions(ctx),
    );
  }
}

/**
 * A user who has just chosen `immediately` gets what is already waiting for a mail (say the
 * morning's posts, unmailed while on `daily`) a delay later, rather than with the next activity.
 * With nothing waiting no job starts: an empty one would open a window that the next burst could
 * straddle, splitting it into two mails.
 */
export async function queueImmediateMailOf(
  ctx: Pick<AppContext, 'config'>,
  tx: Tx,
  effects: Effects,
  userId: string,
): Promise<void> {
  if (!ctx.config.allowEmail) return;
  if (!(await hasUnmailedNotification(tx, userId, MAILED_NOTIFICATION_TYPES))) return;
  await effects.enqueue('send-immediate-mail', { userId }, immediateJobOptions(ctx));
}
