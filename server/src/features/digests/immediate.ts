import type { AppContext } from '../../context.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import { findMailChoices } from './queries.js';
import { sendDigest } from './service.js';

/**
 * The `send-immediate-mail` job (docs/api §10.8), queued by notifications/mailing.ts a short delay
 * after the first post or comment of a burst: one mail with everything not mailed yet, the digest's
 * selection and content. A user who meanwhile chose another frequency gets nothing from it (their
 * digest will list it); a second run, or a job recorded twice, finds nothing left and sends nothing.
 * A mention also starts it for a user whose `mention_emails` is `immediately` (docs/api §11.10):
 * then, unless their frequency is `immediately` too, it sends their mentions alone.
 */
export function registerImmediateMailHandler(ctx: AppContext, queue: JobQueue): void {
  queue.register('send-immediate-mail', {
    async run({ userId }) {
      if (!ctx.config.allowEmail) return;
      const user = await findMailChoices(ctx.db.kysely, userId);
      if (user === undefined) return;
      if (user.notification_emails === 'immediately') {
        await sendDigest(ctx, user, 'immediately');
      } else if (user.mention_emails === 'immediately') {
        await sendDigest(ctx, user, 'immediately', { mentionsOnly: true });
      }
    },
  });
}
