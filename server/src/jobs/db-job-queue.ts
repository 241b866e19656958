import { availableParallelism } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database, JobsTable } from '../db/schema.js';
import { systemClock, type Clock } from '../lib/clock.js';
import {
  PermanentJobError,
  type EnqueueOptions,
  type JobHandler,
  type JobQueue,
  type KithJobs,
  type RunningJob,
} from './job-queue.js';
import {
  dueJobIds,
  errorText,
  insertJob,
  insertJobs,
  pruneFinishedJobs,
  recoverExpiredLeases,
  retryDelay,
} from './job-rows.js';

type JobRow = Selectable<JobsTable>;

export interface DbJobQueueOptions {
  clock?: Clock;
  log?: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** How often the queue is polled (ms). Default 1 s. */
  pollMs?: number;
  /** How long a claim holds without renewal (ms); renewed every third of it while the job runs. Default 60 s. */
  leaseMs?: number;
  /** The first retry waits this long, each next one twice as long (ms). Default 10 s. */
  backoffMs?: number;
  /** Longest retry wait (ms). Default 10 min. */
  maxBackoffMs?: number;
  /** Heavy jobs (ffmpeg) at a time in this process. Default: the number of cores. */
  heavyConcurrency?: number;
  /** Light jobs at a time in this process. Default 4. */
  lightConcurrency?: number;
}

interface Running {
  name: string;
  promise: Promise<void>;
  controller: AbortController;
  heavy: boolean;
}

/**
 * The embedded job queue: jobs are rows of the `jobs` table in Kith's own database.
 *
 * - A runner claims a job atomically (one UPDATE of a queued, due row; `FOR UPDATE SKIP LOCKED` on
 *   PostgreSQL so several processes never take the same job) and holds it with a lease it renews.
 * - A runner that dies leaves a `running` row whose lease expires; any runner puts it back in the
 *   queue. A job claimed more often than allowed is then given up (its `onFailure` runs), so a job
 *   that crashes the process cannot loop for ever.
 * - A failed run is retried with exponential backoff; the last failure calls `onFailure`.
 * - Heavy jobs share a limit (one per core by default), light jobs another.
 */
export class DbJobQueue<P extends object = KithJobs> implements JobQueue<P> {
  private readonly handlers = new Map<string, JobHandler<unknown>>();
  private readonly running = new Map<string, Running>();
  private readonly clock: Clock;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  readonly heavyConcurrency: number;
  readonly lightConcurrency: number;
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;
  /** The fill under way, and the names it claims (undefined: all). */
  private filling: { names: readonly string[] | undefined; done: Promise<boolean> } | null = null;
  private lastPrune = 0;

  constructor(
    private readonly db: Db,
    private readonly options: DbJobQueueOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.pollMs = options.pollMs ?? 1000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.backoffMs = options.backoffMs ?? 10_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 10 * 60_000;
    this.heavyConcurrency = Math.max(1, options.heavyConcurrency ?? availableParallelism());
    this.lightConcurrency = Math.max(1, options.lightConcurrency ?? 4);
  }

  register<N extends keyof P & string>(name: N, handler: JobHandler<P[N]>): void {
    this.handlers.set(name, handler);
  }

  async enqueue<N extends keyof P & string>(
    db: Kysely<Database>,
    name: N,
    payload: P[N],
    options: EnqueueOptions = {},
  ): Promise<string> {
    return insertJob(db, this.clock.now(), name, payload, options);
  }

  enqueueMany<N extends keyof P & string>(
    db: Kysely<Database>,
    name: N,
    payloads: readonly P[N][],
    options: EnqueueOptions = {},
  ): Promise<string[]> {
    return insertJobs(db, this.clock.now(), name, payloads, options);
  }

  wake(): void {
    if (this.started && !this.stopped) void this.tick();
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.filling?.done.catch(() => undefined);
    for (const job of this.running.values()) job.controller.abort(new Error('The job runner is stopping'));
    await Promise.allSettled([...this.running.values()].map((r) => r.promise));
  }

  async drain(names?: readonly (keyof P & string)[]): Promise<void> {
    const only: readonly string[] | undefined = names;
    for (;;) {
      const claimed = await this.fill(only);
      const running = [...this.running.values()].filter((r) => only === undefined || only.includes(r.name));
      if (running.length === 0) {
        if (!claimed) return;
        continue;
      }
      await Promise.race(running.map((r) => r.promise));
    }
  }

  /** How many jobs this runner is running now (heavy and light). */
  get activeCount(): { heavy: number; light: number } {
    let heavy = 0;
    for (const r of this.running.values()) if (r.heavy) heavy += 1;
    return { heavy, light: this.running.size - heavy };
  }

  /** One poll: recover expired leases, claim what fits, and schedule the next poll. */
  private async tick(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    try {
      await this.fill();
      await this.prune();
    } catch (error) {
      this.options.log?.error({ err: error }, 'job queue poll failed');
    }
    if (this.started && !this.stopped && this.timer === null) {
      this.timer = setTimeout(() => void this.tick(), this.pollMs);
      this.timer.unref();
    }
  }

  /**
   * Claims and starts due jobs (of `names`, or any) while there is room; true when at least one was
   * started.
   */
  private async fill(names?: readonly string[]): Promise<boolean> {
    // One fill at a time: concurrent polls would otherwise overshoot the limits. Polls share the
    // fill under way; a fill limited to some names waits for it and then runs its own, so it never
    // takes "nothing claimed" from a fill that did not look at its names.
    while (this.filling !== null) {
      if (names === undefined && this.filling.names === undefined) return this.filling.done;
      await this.filling.done.catch(() => false);
    }
    const done = this.fillOnce(names).finally(() => {
      this.filling = null;
    });
    this.filling = { names, done };
    return done;
  }

  private async fillOnce(only?: readonly string[]): Promise<boolean> {
    if (this.stopped) return false;
    await recoverExpiredLeases(this.db, this.clock.now());
    let any = false;
    for (;;) {
      if (this.stopped) return any;
      const { heavy, light } = this.activeCount;
      const names = [...this.handlers.entries()]
        .filter(([name]) => only === undefined || only.includes(name))
        .filter(([, h]) => (h.heavy === true ? heavy < this.heavyConcurrency : light < this.lightConcurrency))
        .map(([name]) => name);
      if (names.length === 0) return any;
      const row = await this.claim(names);
      if (row === undefined) return any;
      any = true;
      this.launch(row);
    }
  }

  /** Takes the next due job among `names` in one statement, or undefined when none is due. */
  private async claim(names: string[]): Promise<JobRow | undefined> {
    const now = this.clock.now();
    return (
      this.db.kysely
        .updateTable('jobs')
        .set((eb) => ({
          status: 'running',
          attempts: eb('attempts', '+', 1),
          locked_until: now + this.leaseMs,
          updated_at: now,
        }))
        .where('id', '=', dueJobIds(this.db, names, now, 1))
        // Re-checked on the row itself: a concurrent claim that won makes this one match nothing.
        .where('status', '=', 'queued')
        .returningAll()
        .executeTakeFirst()
    );
  }

  private launch(row: JobRow): void {
    const handler = this.handlers.get(row.name);
    if (handler === undefined) return;
    const controller = new AbortController();
    const job: RunningJob = {
      id: row.id,
      name: row.name,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      signal: controller.signal,
    };
    const promise = this.execute(row, handler, job).finally(() => {
      this.running.delete(row.id);
      if (this.started && !this.stopped) this.wake();
    });
    this.running.set(row.id, { name: row.name, promise, controller, heavy: handler.heavy === true });
  }

  private async execute(row: JobRow, handler: JobHandler<unknown>, job: RunningJob): Promise<void> {
    let payload: unknown;
    try {
      payload = JSON.parse(row.payload);
    } catch (error) {
      await this.finish(row, handler, job, undefined, new PermanentJobError(`Unreadable payload: ${errorText(error)}`));
      return;
    }
    if (row.attempts > row.max_attempts) {
      // Claimed again after its runner died on the last attempt: give up rather than loop.
      await this.finish(row, handler, job, payload, new PermanentJobError('The job was interrupted too many times'));
      return;
    }
    const renew = setInterval(
      () => {
        const now = this.clock.now();
        this.db.kysely
          .updateTable('jobs')
          .set({ locked_until: now + this.leaseMs })
          .where('id', '=', row.id)
          .where('status', '=', 'running')
          .execute()
          .catch((error: unknown) => this.options.log?.warn({ err: error, job: row.id }, 'job lease renewal failed'));
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    renew.unref();
    let failure: unknown = undefined;
    let failed = false;
    try {
      await handler.run(payload, job);
    } catch (error) {
      failed = true;
      failure = error;
    } finally {
      clearInterval(renew);
    }
    if (failed && job.signal.aborted) {
      // Stopped, not failed: back to the queue, and this run does not count. A run that finished
      // despite the stop (a mail already handed to the SMTP server) is done, never run twice.
      const now = this.clock.now();
      await this.db.kysely
        .updateTable('jobs')
        .set((eb) => ({
          status: 'queued',
          attempts: eb('attempts', '-', 1),
          locked_until: null,
          run_after: now,
          updated_at: now,
        }))
        .where('id', '=', row.id)
        .where('status', '=', 'running')
        .execute()
        .catch((error: unknown) => this.options.log?.error({ err: error, job: row.id }, 'job release failed'));
      return;
    }
    await this.finish(row, handler, job, payload, failed ? failure : undefined, failed);
  }

  /** Records the end of a run: done, retry later, or given up (then `onFailure`). */
  private async finish(
    row: JobRow,
    handler: JobHandler<unknown>,
    job: RunningJob,
    payload: unknown,
    error: unknown,
    failed = error !== undefined,
  ): Promise<void> {
    const now = this.clock.now();
    const where = this.db.kysely.updateTable('jobs').where('id', '=', row.id);
    try {
      if (!failed) {
        await where.set({ status: 'done', locked_until: null, last_error: null, updated_at: now }).execute();
        return;
      }
      const message = errorText(error);
      const final = error instanceof PermanentJobError || row.attempts >= row.max_attempts;
      if (!final) {
        const wait = retryDelay(row.attempts, this.backoffMs, this.maxBackoffMs);
        this.options.log?.warn(
          { job: row.id, name: row.name, attempt: row.attempts, err: message },
          'job failed, will retry',
        );
        await where
          .set({ status: 'queued', locked_until: null, run_after: now + wait, last_error: message, updated_at: now })
          .execute();
        return;
      }
      this.options.log?.error({ job: row.id, name: row.name, attempt: row.attempts, err: message }, 'job failed');
      await where.set({ status: 'failed', locked_until: null, last_error: message, updated_at: now }).execute();
      if (handler.onFailure !== undefined) {
        try {
          await handler.onFailure(payload, error, job);
        } catch (failureError) {
          this.options.log?.error({ err: failureError, job: row.id }, 'job failure handler failed');
        }
      }
    } catch (dbError) {
      this.options.log?.error({ err: dbError, job: row.id }, 'recording the end of a job failed');
    }
  }

  /** Forgets finished jobs after a while (done after 7 days, failed after 30), once an hour. */
  private async prune(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastPrune < 60 * 60 * 1000 && this.lastPrune !== 0) return;
    this.lastPrune = now;
    await pruneFinishedJobs(this.db, now);
  }
}
