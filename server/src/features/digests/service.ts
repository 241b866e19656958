import type { AppContext } from '../../context.js';
import { transaction, type Tx } from '../../db/transaction.js';
import type { DigestFrequency, JobQueue } from '../../jobs/job-queue.js';
import { queueMail } from '../../mail/queue.js';
import { signedImageUrl } from '../files/signing.js';
import { previewsOf } from '../messages/queries.js';
import type { UserRow } from '../../db/rows.js';
import { MAILED_NOTIFICATION_TYPES, mailedTypesFor } from '../notifications/mailing.js';
import { replyAddressFor } from '../mail-replies/addresses.js';
import { digestMail, type DigestItem, type MailFrequency } from './mail.js';
import {
  advanceDigestSlot,
  claimForMail,
  findDigestSlot,
  insertDigestSlot,
  turnOffNotificationEmails,
  unmailedNotifications,
  usersWithUnmailed,
} from './queries.js';
import { DIGEST_FREQUENCIES, latestSlot } from './schedule.js';
import { unsubscribeToken, unsubscribeUrls } from './unsubscribe.js';

/** The notifications a digest or an immediate mail lists (docs/api §10.8): one rule for both. */
const DIGEST_TYPES = MAILED_NOTIFICATION_TYPES;
/** Items written out in one mail; the rest are counted ("and 12 more"). */
export const DIGEST_LISTED = 50;
/** Notifications one digest takes at most; any beyond wait for the next one. */
const DIGEST_TAKEN = 1000;
/** Users read per query while a run goes through everyone due. */
const USER_BATCH = 200;
/** The digest picture: a crop of an allowed size (docs/api §7.4), shown at 64 px. */
const DIGEST_IMAGE = { type: 'crop', w: 160, h: 160 } as const;

/**
 * Looks for scheduled digest runs that are due and starts each one exactly once. Called every
 * minute and at start-up, by every process: a run is claimed by moving `digest_runs.slot` forward in
 * a conditional UPDATE, in the same transaction that queues its `send-digests` job, so only one
 * process wins it. A run missed while the server was down is due at the next start (one digest
 * covers the whole gap). The first time a frequency is seen, its schedule starts at the current
 * slot: nothing is owed from before digests existed. Returns the frequencies started.
 */
export async function runDigestSchedule(ctx: AppContext): Promise<DigestFrequency[]> {
  if (!ctx.config.allowEmail) return [];
  const now = ctx.clock.now();
  const started: DigestFrequency[] = [];
  for (const frequency of DIGEST_FREQUENCIES) {
    const slot = latestSlot(frequency, now, ctx.config.timeZone);
    const claimed = await transaction(ctx, async (tx, effects) => {
      const current = await findDigestSlot(tx, frequency);
      if (current === undefined) {
        await insertDigestSlot(tx, frequency, slot);
        return false;
      }
      if (current >= slot) return false;
      if (!(await advanceDigestSlot(tx, frequency, slot))) return false; // another process claimed it
      await effects.enqueue('send-digests', { frequency, slot }, { maxAttempts: 10 });
      return true;
    });
    if (claimed) started.push(frequency);
  }
  return started;
}

/**
 * The `send-digests` job: every user of the frequency with something to tell gets one digest, in
 * the same run. Each user's digest is one transaction that marks the notifications it lists and
 * queues the mail, so a run interrupted half-way and retried sends nobody a second digest.
 */
export function registerDigestHandler(ctx: AppContext, queue: JobQueue): void {
  queue.register('send-digests', {
    async run({ frequency }) {
      let after = '';
      for (;;) {
        const users = await dueUsers(ctx, frequency, after);
        for (const user of users) await sendDigest(ctx, user, frequency);
        const last = users.at(-1);
        if (last === undefined || users.length < USER_BATCH) return;
        after = last.id;
      }
    },
  });
}

export type Recipient = Pick<UserRow, 'id' | 'login' | 'name' | 'lang' | 'mention_emails'>;

/** Users of `frequency` with at least one unread, unmailed post or comment notification, by id. */
function dueUsers(ctx: AppContext, frequency: DigestFrequency, after: string): Promise<Recipient[]> {
  return usersWithUnmailed(ctx.db.kysely, frequency, DIGEST_TYPES, after, USER_BATCH);
}

/** Pending notifications of one user of `types`, newest first, with the names the mail shows. */
function pendingNotifications(tx: Tx, userId: string, types: readonly string[]) {
  return unmailedNotifications(tx, userId, types, DIGEST_TAKEN);
}

/**
 * Writes one user's mail of everything not mailed yet (a digest, or an immediate mail): one
 * transaction claims the notifications it lists and queues the mail, so a run interrupted half-way
 * and retried never mails them twice. Nothing left: no mail.
 */
export async function sendDigest(
  ctx: AppContext,
  user: Recipient,
  frequency: MailFrequency,
  options: { mentionsOnly?: boolean } = {},
): Promise<void> {
  const mentionsOnly = options.mentionsOnly ?? false;
  await transaction(ctx, async (tx, effects) => {
    const found = await pendingNotifications(tx, user.id, mailedTypesFor(user.mention_emails, mentionsOnly));
    if (found.length === 0) return;
    const now = ctx.clock.now();
    const claimed = new Set<string>();
    for (let i = 0; i < found.length; i += 500) {
      for (const id of await claimForMail(tx, found.slice(i, i + 500), now)) claimed.add(id);
    }
    // Another mail written at the same moment took the rest.
    const pending = found.filter((n) => claimed.has(n.id));
    if (pending.length === 0) return;

    const listed = pending.slice(0, DIGEST_LISTED);
    // A comment shows its own picture, else its parent's (the card the reader knows).
    const messageIds = [...new Set(listed.flatMap((n) => [n.target, n.from_message_id ?? n.target]))];
    const previews = await previewsOf(ctx, tx, messageIds);
    const pictureOf = (id: string): string | null => {
      const file = previews.get(id);
      if (file === undefined || file.type.startsWith('audio/')) return null;
      return signedImageUrl(ctx.config.secretKey, ctx.config.publicUrl, DIGEST_IMAGE, file.id, now);
    };
    // Reply by e-mail (issue 21): a reply comments on the message the item opens (a comment's
    // parent), as the comment box of that page does.
    const replyAddresses = new Map<string, string | null>();
    for (const n of listed) {
      const page = n.from_message_id ?? n.target;
      if (!replyAddresses.has(page)) replyAddresses.set(page, await replyAddressFor(ctx, tx, user.id, page));
    }
    const items: DigestItem[] = listed.map((n) => {
      // A mention in a reply links to the reply within its thread, as a comment does.
      const comment =
        (n.type === 'new_comment' || n.type === 'mention') &&
        n.from_message_id !== null &&
        n.from_message_id !== n.target;
      const parent = n.from_message_id ?? n.target;
      return {
        groupId: n.from_group_id ?? '',
        groupName: n.from_group_name ?? '',
        kind: n.type === 'mention' ? 'mention' : comment ? 'comment' : 'post',
        title: n.title,
        author: n.from_user_name,
        url: comment
          ? `${ctx.config.publicUrl}/messages/${parent}/${n.target}`
          : `${ctx.config.publicUrl}/messages/${n.target}`,
        imageUrl: (comment ? pictureOf(n.target) : null) ?? pictureOf(parent),
        replyAddress: replyAddresses.get(parent) ?? null,
      };
    });
    const token = unsubscribeToken(ctx.config.secretKey, user.id, now);
    const mail = digestMail(ctx.config, user, {
      frequency,
      mentionsOnly,
      items,
      total: pending.length,
      unsubscribe: unsubscribeUrls(ctx.config.publicUrl, user.id, token),
    });
    await queueMail(ctx, effects, mail);
  });
}

const MINUTE_MS = 60 * 1000;

/** Checks the digest schedule now and then every minute; returns a function that stops it. */
export function scheduleDigests(ctx: AppContext, everyMs = MINUTE_MS): () => void {
  const run = () => {
    runDigestSchedule(ctx)
      .then((started) => {
        if (started.length > 0) ctx.log.info({ frequencies: started }, 'digest run started');
      })
      .catch((error: unknown) => ctx.log.error({ err: error }, 'digest schedule failed'));
  };
  run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Turns a user's notification e-mails off (docs/api §3.6): the unsubscribe link, the one-click
 * POST, and the logged-in bare path all end here.
 */
export async function stopNotificationEmails(ctx: AppContext, userId: string): Promise<boolean> {
  return turnOffNotificationEmails(ctx.db.kysely, userId);
}
