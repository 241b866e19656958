import type { RateLimiter } from './rate-limiter.js';
import { tooManyRequests } from './errors.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The throttling table of the contract (§1.6), in one place. */
export const THROTTLES = {
  loginFailuresPerLoginAndIp: { limit: 10, windowMs: 15 * MINUTE },
  loginFailuresPerLogin: { limit: 50, windowMs: HOUR },
  loginAttemptsPerIp: { limit: 100, windowMs: 15 * MINUTE },
  signupPerIp: { limit: 10, windowMs: HOUR },
  resetMailPerIp: { limit: 10, windowMs: HOUR },
  resetMailsPerAccount: { limit: 3, windowMs: HOUR },
  newPasswordFailuresPerIp: { limit: 10, windowMs: 15 * MINUTE },
  unknownInvitationsPerUser: { limit: 20, windowMs: HOUR },
  // Opens of GET /api/events. A browser shares one stream among its tabs, and a sixth stream closes
  // the oldest rather than being refused, so this only stops a client reconnecting in a loop.
  streamsPerUser: { limit: 120, windowMs: 10 * MINUTE },
  uploadsPerUser: { limit: 300, windowMs: HOUR },
  linkPreviewsPerUser: { limit: 60, windowMs: 10 * MINUTE },
  // Fetches of one host (query strings varied, say) by one user: Kith's own addition to the table.
  // A member rarely previews more than a few new pages of one site in 10 minutes; the previews of
  // posted messages are fetched in the background and count against nobody.
  linkPreviewHostsPerUser: { limit: 10, windowMs: 10 * MINUTE },
  stopEmailsBadTokensPerIp: { limit: 20, windowMs: HOUR },
  // Mails to a user's reply addresses (issue 21): a person writes a few; a mail program or a script
  // in a loop is stopped here, each refusal answered by one short bounce. Counted in the database
  // (features/mail-replies), not by a Throttle: the pipe command is a new process for every mail.
  mailRepliesPerUser: { limit: 20, windowMs: HOUR },
} as const;

export type ThrottleName = keyof typeof THROTTLES;

/** A throttle counter: one rule of the table applied to one subject (an address, a login, a user). */
export class Throttle {
  private readonly key: string;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly name: ThrottleName,
    subject: string,
  ) {
    this.key = `${name}|${subject}`;
  }

  /** Throws 429 when the subject is already at its limit. */
  async check(): Promise<void> {
    const { limit, windowMs } = THROTTLES[this.name];
    const { count, retryAfterMs } = await this.limiter.count(this.key, windowMs, limit);
    if (count >= limit) throw tooManyRequests(retryAfterMs / 1000);
  }

  /** Checks and counts this attempt in one atomic step; throws 429 (counting nothing) at the limit. */
  async take(): Promise<void> {
    const { limit, windowMs } = THROTTLES[this.name];
    const { allowed, retryAfterMs } = await this.limiter.take(this.key, windowMs, limit);
    if (!allowed) throw tooManyRequests(retryAfterMs / 1000);
  }

  hit(): Promise<void> {
    return this.limiter.hit(this.key);
  }

  /** Takes back an attempt counted in advance, once it turned out to succeed. */
  undo(): Promise<void> {
    return this.limiter.undo(this.key);
  }

  reset(): Promise<void> {
    return this.limiter.reset(this.key);
  }
}
