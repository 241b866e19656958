import type { AppContext } from '../context.js';
import type { Effects } from '../db/transaction.js';
import { newId } from '../lib/ids.js';
import { PermanentJobError, type JobQueue } from '../jobs/job-queue.js';
import { MailRejected, type Mail } from './mailer.js';

/** A mail as a feature writes it; the queue adds the Message-ID and the date. */
export type MailDraft = Omit<Mail, 'messageId' | 'date'>;

/**
 * How often a mail is tried before it is given up. With the queue's backoff (10 s doubling, at
 * most 10 minutes apart) this is about a day, long enough for an SMTP server to come back.
 */
export const MAIL_MAX_ATTEMPTS = 150;

/**
 * Queues a mail inside the caller's transaction: it exists exactly when the change that caused it
 * commits, survives a restart, and is sent by the `send-mail` job, never inside a request. The job
 * row holds the mail sealed with the server secret, so the database never shows a reset link or an
 * address in clear. The queue is woken after the commit. Does nothing when e-mail is disabled.
 */
export async function queueMail(ctx: AppContext, effects: Effects, draft: MailDraft): Promise<void> {
  if (!ctx.config.allowEmail) return;
  const domain = /@([^>\s]+)/.exec(ctx.config.mailFrom)?.[1] ?? new URL(ctx.config.publicUrl).hostname;
  const mail: Mail = { ...draft, messageId: `<${newId()}@${domain}>`, date: ctx.clock.now() };
  await effects.enqueue(
    'send-mail',
    { kind: draft.kind, sealed: ctx.secretBox.seal(JSON.stringify(mail)) },
    { maxAttempts: MAIL_MAX_ATTEMPTS },
  );
}

/**
 * The `send-mail` job. A job is marked done right after the transport accepted the mail, and a
 * failed send is retried with the same Message-ID, so each mail goes out once. (A crash in the
 * instant between the SMTP server's "250 OK" and that mark is the one case that can repeat a mail;
 * mail programs fold such a copy into the first by its Message-ID.)
 */
export function registerMailHandler(ctx: Pick<AppContext, 'mailer' | 'secretBox' | 'log'>, queue: JobQueue): void {
  queue.register('send-mail', {
    async run({ sealed }) {
      let mail: Mail;
      try {
        mail = JSON.parse(ctx.secretBox.open(sealed)) as Mail;
      } catch {
        // Sealed with another SECRET_KEY: nobody can read it any more.
        throw new PermanentJobError('The queued mail cannot be opened with the current SECRET_KEY');
      }
      try {
        await ctx.mailer.send(mail);
      } catch (error) {
        if (error instanceof MailRejected) throw new PermanentJobError(error.message);
        throw error;
      }
    },
    onFailure({ kind }, error) {
      ctx.log.error({ kind, err: error instanceof Error ? error.message : String(error) }, 'a mail was given up');
      return Promise.resolve();
    },
  });
}
