import type { AppContext } from '../../context.js';
import type { JobQueue } from '../../jobs/job-queue.js';
import { findUserOnFrequency } from './queries.js';
import { sendDigest } from './service.js';

/**
 * The `send-immediate-mail` job (docs/api §10.8), queued by notifications/mailing.ts a short delay
 * after the first post or comment of a burst: one mail with everything not mailed yet, the digest's
 * selection and content. A user who meanwhile chose another frequency gets nothing from it (their
 * digest will list it); a second run, or a job recorded twice, finds nothing left and sends nothing.
 */
export function registerImmediateMailHandler(ctx: AppContext, queue: JobQueue): void {
  queue.register('send-immediate-mail', {
    async run({ userId }) {
      if (!ctx.config.allowEmail) return;
      const user = await findUserOnFrequency(ctx.db.kysely, userId, 'immediately');
      if (user !== undefined) await sendDigest(ctx, user, 'immediately');
    },
  });
}
