import type { Db } from '../../db/database.js';
import { recordActivityQuery } from './queries.js';

/** The whole second of a time in ms, as `lastActivityDate` shows it (docs/api §1.4). */
export const activitySecond = (ms: number): number => Math.floor(ms / 1000);

/**
 * Records callers' activity (docs/api §1.11) at most once per user and second in this process.
 * The hook skips a caller whose row, as read with their key, already shows this second; but writes
 * by one user that run at the same time all read the row before the first of them recorded it, and
 * each sent its own update (a bench post scenario's 770 posts made 770, each a transaction of three
 * round trips on PostgreSQL that found the row already moved). The later ones now wait for the
 * first one's update, so each answer still leaves after its caller's activity is written.
 *
 * What it remembers is only this second's users: the first record of a new second forgets the
 * previous one's. Another process may record the same user in the same second: the update's own
 * condition leaves the row alone then.
 */
export class ActivityRecorder {
  private second = Number.NaN;
  private readonly recording = new Map<string, Promise<void>>();

  constructor(private readonly db: Pick<Db, 'kysely' | 'writeAlone'>) {}

  /** Records `userId` as active at `now`; settles once it is written (or was by another call). */
  record(userId: string, now: number): Promise<void> {
    const second = activitySecond(now);
    if (second !== this.second) {
      this.second = second;
      this.recording.clear();
    }
    const running = this.recording.get(userId);
    if (running !== undefined) return running;
    const written = this.db.writeAlone(recordActivityQuery(this.db.kysely, userId, now)).catch((error: unknown) => {
      // A failed write is tried again by the user's next write, not answered by this failure.
      if (this.recording.get(userId) === written) this.recording.delete(userId);
      throw error;
    });
    this.recording.set(userId, written);
    return written;
  }
}
