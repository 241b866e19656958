import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { KithEvent } from '../events/event-bus.js';
import type { EnqueueOptions, JobQueue, KithJobs } from '../jobs/job-queue.js';
import type { Database } from './schema.js';

/**
 * What one transaction asks to happen once it has committed: live events to publish, and jobs to
 * start. `transaction()` (transaction.ts) hands one to its work and runs it only after that work's
 * commit: never after a rollback, and on SQLite never for a unit that failed inside a shared batch
 * (write-batch.ts), whose fellow units still run theirs. So nobody hears of a row that does not exist.
 */
export interface Effects {
  /** Publishes `event` on the live streams once the transaction has committed. */
  publish(event: KithEvent): void;
  /**
   * Writes a job row in the transaction itself, so the job exists exactly when the transaction's
   * other writes do (and survives a crash right after the commit); the queue is woken after the
   * commit to start it without waiting for a poll.
   */
  enqueue<N extends keyof KithJobs>(name: N, payload: KithJobs[N], options?: EnqueueOptions): Promise<string>;
  /** `enqueue` of several payloads of one name, in a few statements. */
  enqueueMany<N extends keyof KithJobs>(
    name: N,
    payloads: readonly KithJobs[N][],
    options?: EnqueueOptions,
  ): Promise<string[]>;
}

/** The parts of the context that effects run with. */
export type EffectsContext = Pick<AppContext, 'events' | 'jobs' | 'log'>;

/**
 * Publishes events about writes that committed on their own (a single statement outside any
 * transaction, as the media jobs write their progress). Every live event leaves through here;
 * inside a transaction, use `Effects.publish` instead. Never throws into the caller.
 */
export function publishCommitted(ctx: Pick<AppContext, 'events' | 'log'>, ...events: KithEvent[]): void {
  for (const event of events) {
    try {
      ctx.events.publish(event);
    } catch (error) {
      ctx.log.error({ err: error, event: event.type }, 'publishing a live event failed');
    }
  }
}

/** The effects of one transaction while it runs; `run` once it has committed. */
export class PendingEffects implements Effects {
  private readonly events: KithEvent[] = [];
  private wakeJobs = false;
  private done = false;

  constructor(
    private readonly tx: Kysely<Database>,
    private readonly jobs: Pick<JobQueue, 'enqueue' | 'enqueueMany'>,
  ) {}

  publish(event: KithEvent): void {
    this.events.push(event);
  }

  async enqueue<N extends keyof KithJobs>(name: N, payload: KithJobs[N], options?: EnqueueOptions): Promise<string> {
    const id = await this.jobs.enqueue(this.tx, name, payload, options);
    // One wake per commit is enough, however many jobs it wrote.
    this.wakeJobs = true;
    return id;
  }

  async enqueueMany<N extends keyof KithJobs>(
    name: N,
    payloads: readonly KithJobs[N][],
    options?: EnqueueOptions,
  ): Promise<string[]> {
    if (payloads.length === 0) return [];
    const ids = await this.jobs.enqueueMany(this.tx, name, payloads, options);
    this.wakeJobs = true;
    return ids;
  }

  /**
   * Runs the effects, in the order they were asked for (a post's notifications before its
   * `message` event), at most once. Call it only after the commit. A failing effect is logged,
   * never turned into a failed request: the transaction's writes are already durable.
   */
  run(ctx: EffectsContext): void {
    if (this.done) return;
    this.done = true;
    publishCommitted(ctx, ...this.events);
    if (this.wakeJobs) {
      try {
        ctx.jobs.wake();
      } catch (error) {
        ctx.log.error({ err: error }, 'waking the job queue failed');
      }
    }
  }
}
