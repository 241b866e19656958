import { availableParallelism } from 'node:os';
import { DelayedError, isNotConnectionError, Queue, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database, JobsTable } from '../db/schema.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { connectRedis } from '../lib/redis.js';
import type { DbJobQueueOptions } from './db-job-queue.js';
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

export interface BullJobQueueOptions extends DbJobQueueOptions {
  /** The Redis every server process shares (`REDIS_URL`). */
  redisUrl: string;
  /** What the BullMQ keys start with (`REDIS_KEY_PREFIX`): `<prefix>:jobs-heavy:…`, `<prefix>:jobs-light:…`. */
  prefix: string;
  /**
   * How often the workers look for jobs whose process died (ms). Default: the lease, at most 30 s
   * (JOB_LEASE_SECONDS shortens both). Every process of an instance must use the same: BullMQ
   * skips a check while the last one, by any process, is younger.
   */
  stalledCheckMs?: number;
  /**
   * How many times BullMQ takes a job up again after its process died before failing it itself.
   * Default 20: above any job's `maxAttempts`, so the row's own rule ("interrupted too many times")
   * gives up first, in the processor, as in the embedded queue; BullMQ's limit is the backstop.
   */
  maxStalledCount?: number;
}

type Lane = 'heavy' | 'light';
const LANES: readonly Lane[] = ['heavy', 'light'];

/** What a BullMQ job carries: the row it runs, never the payload (secrets stay in the database). */
interface HandOver {
  id: string;
  /** The row's `handovers` when it was handed over: only this BullMQ job may run or finish it. */
  handover: number;
  /** Set when the run ended but the database did not take the record: the next pick-up records it. */
  outcome?: Outcome;
}

/** How a run ended, as the row records it. */
type Outcome =
  { status: 'done' } | { status: 'failed'; error: string } | { status: 'queued'; runAfter: number; error: string };

type JobRow = Selectable<JobsTable>;

/** Rows claimed and handed over per statement. */
const RELAY_BATCH = 100;
/** How long a relay pass waits for Redis to answer before leaving the rows in the table (ms). */
const REDIS_WAIT_MS = 1_000;
/** When the database does not answer, a job waits this long in BullMQ's delayed set (ms). */
const DATABASE_RETRY_MS = 5_000;
/** `drain` looks again this often when no run of its own ended (jobs run by other processes) (ms). */
const DRAIN_RECHECK_MS = 100;
/** Why a run's signal was aborted. */
const STOPPING = 'The job runner is stopping';
const LEASE_LOST = 'The job was taken over by another process';

/** A run's failure that the processor has recorded on the row: BullMQ only lists it. */
class RecordedFailure extends Error {
  override readonly name = 'RecordedFailure';
}

/**
 * The job queue of several server processes: jobs run on BullMQ (Redis), the `jobs` table stays
 * their record.
 *
 * - **Outbox.** `enqueue` writes the row in the caller's transaction, exactly as the embedded queue
 *   does, so a job exists exactly when its transaction commits and a Redis that is away never fails
 *   a request. A relay (on `wake()` and every `pollMs`) claims due rows with a lease, adds each to
 *   BullMQ, then clears the lease: the row is `running` with no lease while BullMQ has it. When
 *   Redis is away the rows wait in the table; a relay that died leaves its lease to expire, and the
 *   row is claimed again.
 * - **One BullMQ job per hand-over**, `<id>.<handovers>`: every claim counts one more hand-over,
 *   and a run starts only while the row is `running` with that count. A BullMQ job left over from an
 *   earlier hand-over (the relay died between adding and clearing its lease, or a process died
 *   between recording a retry and telling BullMQ) finds the row moved on and does nothing. This is
 *   also why BullMQ's de-duplication by job id is not relied on: it would keep a finished job's id.
 * - **Due by the row.** The enqueue delay and the retry back-off live in `run_after`, on the queue's
 *   clock, and the relay hands a row over only once it is due: one rule for "when", the embedded
 *   queue's. So a failed run that will be retried goes back to the table (`queued`, `run_after`
 *   later; BullMQ lists the run as failed) and its retry is the next hand-over; a given-up job is
 *   recorded by the processor. Each BullMQ job is thus one attempt (BullMQ's `attempts`, `backoff`
 *   and `UnrecoverableError` are not used): BullMQ's delayed jobs become due by the time of the
 *   processes' clocks, which the injected clock does not move, so its back-off could neither follow
 *   the contract's tests nor keep the retry's time in the record.
 * - **Leases** are BullMQ's locks (`leaseMs`, renewed while the job runs). A process that dies
 *   leaves its jobs to BullMQ's stalled-job check, and another process runs them again; each run
 *   counts an attempt on the row, and a run that finds the attempts spent gives the job up
 *   (`onFailure`) instead of looping, as the embedded queue does. BullMQ's own stall limit, should it
 *   come first, fails the job without a run; the worker's `failed` event then records it and calls
 *   `onFailure`.
 * - **Limits.** Two BullMQ queues: heavy jobs (one per core by default) and light ones (4).
 * - `onFailure` runs inside the run, before the failure is recorded: a process that dies there
 *   leaves a job that runs again (and gives up again) rather than one whose `onFailure` never ran.
 * - **Stopping** aborts the runs; a run that then fails goes back to the table, its attempt taken
 *   back, as in the embedded queue (BullMQ's waiting list would keep it from an embedded runner
 *   after a stop of every process). A run that finished anyway is recorded done.
 * - **Sweep.** Once per lease, rows handed over long ago are checked against BullMQ: a job Redis
 *   lost (restarted without its data) goes back to the table, so a job is never lost with Redis.
 * - `drain` runs the jobs in this process too (the workers start if `start` was not called), and
 *   waits on the rows: until none of its names is due, handed over or running, in any process.
 */
export class BullJobQueue<P extends object = KithJobs> implements JobQueue<P> {
  private readonly handlers = new Map<string, JobHandler<unknown>>();
  /** The runs of this process (their signal's controller), by BullMQ job id. */
  private readonly running = new Map<string, AbortController>();
  /** The pick-ups under way in this process, settled when they return (`stop` waits for them). */
  private readonly pickUps = new Set<Promise<void>>();
  private readonly clock: Clock;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  readonly heavyConcurrency: number;
  readonly lightConcurrency: number;
  private bull: Bull | null = null;
  private workers: Record<Lane, Worker<HandOver, void>> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;
  private stopping: Promise<void> | null = null;
  /** The relay passes, one after the other. */
  private relaying: Promise<void> = Promise.resolve();
  /** The pass for every name that waits for the one under way. */
  private nextPass: Promise<void> | null = null;
  /** Called when a run of this process ends (`drain` waits on them). */
  private runEnded = new Set<() => void>();
  private redisAway = false;
  private lastSweep = 0;
  private lastPrune = 0;

  constructor(
    private readonly db: Db,
    private readonly options: BullJobQueueOptions,
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

  enqueue<N extends keyof P & string>(
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
    this.runWorkers();
    void this.tick();
  }

  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  async drain(names?: readonly (keyof P & string)[]): Promise<void> {
    const only: readonly string[] | undefined = names;
    // Jobs run in this process whether or not it was started, as in the embedded queue; the relay
    // hands over only the rows of `names`, so the other rows stay in the table.
    this.runWorkers();
    for (;;) {
      if (this.stopped) return;
      // Listening before looking, so a run that ends in between is not missed.
      const ended = this.nextRunEnd(DRAIN_RECHECK_MS);
      try {
        await this.relay(only);
        if (!(await this.hasPending(only))) return;
        await ended.promise;
      } finally {
        ended.cancel();
      }
    }
  }

  /**
   * For tests of crash recovery: drops the workers and the connections as a killed process would,
   * neither finishing nor handing back the jobs it runs.
   */
  async abandon(): Promise<void> {
    this.stopped = true;
    this.stopping ??= Promise.resolve();
    if (this.timer !== null) clearTimeout(this.timer);
    const workers = this.workers;
    if (workers !== null) await Promise.all(LANES.map((lane) => workers[lane].close(true)));
    this.bull?.consumer.disconnect();
    this.bull?.producer.disconnect();
  }

  /** The BullMQ connections and queues, made on first use (an enqueue needs none). */
  private connect(): Bull {
    if (this.bull !== null) return this.bull;
    const { redisUrl } = this.options;
    // Hand-overs fail at once while Redis is away (the rows wait in the table); the workers' commands
    // wait for the reconnection instead, as BullMQ requires of a blocking client.
    const producer = connectRedis(redisUrl);
    const consumer = new Redis(redisUrl, {
      maxRetriesPerRequest: null,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    consumer.on('error', () => undefined);
    this.bull = { producer, consumer, queues: null };
    return this.bull;
  }

  /** The queues hand-overs are added to, made once the producer is connected (it queues no command). */
  private queuesOf(bull: Bull): Record<Lane, Queue<HandOver, void>> {
    const queue = (lane: Lane) => {
      const q = new Queue<HandOver, void>(queueName(lane), { connection: bull.producer, prefix: this.options.prefix });
      q.on('error', (error) => this.bullError(error));
      return q;
    };
    bull.queues ??= { heavy: queue('heavy'), light: queue('light') };
    return bull.queues;
  }

  /** Starts this process's workers, once. */
  private runWorkers(): void {
    if (this.workers !== null || this.stopped) return;
    const { consumer } = this.connect();
    const worker = (lane: Lane) => {
      const w = new Worker<HandOver, void>(queueName(lane), (job, token) => this.follow(this.process(job, token)), {
        connection: consumer,
        prefix: this.options.prefix,
        concurrency: lane === 'heavy' ? this.heavyConcurrency : this.lightConcurrency,
        lockDuration: this.leaseMs,
        stalledInterval: this.options.stalledCheckMs ?? Math.min(30_000, this.leaseMs),
        maxStalledCount: this.options.maxStalledCount ?? 20,
        // The table is the record; BullMQ keeps a short history for its dashboards.
        removeOnComplete: { count: 1000, age: 24 * 60 * 60 },
        removeOnFail: { count: 1000, age: 7 * 24 * 60 * 60 },
      });
      w.on('error', (error) => this.bullError(error));
      w.on('failed', (job, error) => {
        if (job !== undefined && error.name === 'UnrecoverableError')
          void this.follow(this.failedByBull(job.name, job.data, 'The job was interrupted too many times'));
      });
      // Another process took the job over (this one lost its lock): stop working on it.
      w.on('lockRenewalFailed', (ids) => {
        for (const id of ids) this.running.get(id)?.abort(LEASE_LOST);
      });
      return w;
    };
    this.workers = { heavy: worker('heavy'), light: worker('light') };
  }

  /** One poll: hand over what is due, prune, and schedule the next poll. */
  private async tick(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    try {
      await this.relay();
      await this.sweep();
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
   * Hands the due rows (of `names`, or of every registered name) over to BullMQ. One pass at a time;
   * wake-ups that arrive while a pass for every name waits to start share it.
   */
  private relay(names?: readonly string[]): Promise<void> {
    if (names === undefined && this.nextPass !== null) return this.nextPass;
    const pass = this.relaying.then(() => {
      if (names === undefined) this.nextPass = null;
      return this.relayOnce(names);
    });
    if (names === undefined) this.nextPass = pass;
    this.relaying = pass.catch(() => undefined);
    return pass;
  }

  private async relayOnce(only?: readonly string[]): Promise<void> {
    if (this.stopped) return;
    const names = this.namesOf(only);
    if (names.length === 0) return;
    await recoverExpiredLeases(this.db, this.clock.now());
    const bull = this.connect();
    if (!(await answers(bull.producer, REDIS_WAIT_MS))) {
      if (!this.redisAway) this.options.log?.warn('Redis does not answer: jobs wait in the database');
      this.redisAway = true;
      return;
    }
    if (this.redisAway) this.options.log?.info('Redis answers again: jobs are handed over');
    this.redisAway = false;
    const queues = this.queuesOf(bull);
    for (;;) {
      if (this.stopped) return;
      const now = this.clock.now();
      const rows = await this.db.kysely
        .updateTable('jobs')
        .set((eb) => ({
          status: 'running',
          handovers: eb('handovers', '+', 1),
          locked_until: now + this.leaseMs,
          updated_at: now,
        }))
        .where('id', 'in', dueJobIds(this.db, names, now, RELAY_BATCH))
        // Re-checked on the row itself: a concurrent claim that won makes this one match nothing.
        .where('status', '=', 'queued')
        .returning(['id', 'name', 'handovers'])
        .execute();
      if (rows.length === 0) return;
      try {
        await Promise.all(
          LANES.map((lane) => {
            const jobs = rows
              .filter((row) => this.laneOf(row.name) === lane)
              .map((row) => ({
                name: row.name,
                data: { id: row.id, handover: row.handovers },
                opts: { jobId: `${row.id}.${row.handovers}` },
              }));
            return jobs.length === 0 ? Promise.resolve([]) : queues[lane].addBulk(jobs);
          }),
        );
      } catch (error) {
        // Back to the table for a later pass. A job that did reach BullMQ is not ours to run any
        // more: the next claim counts another hand-over.
        this.options.log?.warn({ err: error }, 'handing jobs over to BullMQ failed; they wait in the database');
        await this.claimed(rows).set({ status: 'queued', locked_until: null, updated_at: this.clock.now() }).execute();
        return;
      }
      await this.claimed(rows).set({ locked_until: null }).execute();
      if (rows.length < RELAY_BATCH) return;
    }
  }

  /** The rows of this relay's claim, as long as nothing else changed them. */
  private claimed(rows: readonly { id: string; handovers: number }[]) {
    return this.db.kysely
      .updateTable('jobs')
      .where('status', '=', 'running')
      .where('locked_until', 'is not', null)
      .where((eb) => eb.or(rows.map((row) => eb.and([eb('id', '=', row.id), eb('handovers', '=', row.handovers)]))));
  }

  /** True while a job of `names` is due, handed over, or running. */
  private async hasPending(only?: readonly string[]): Promise<boolean> {
    const names = this.namesOf(only);
    if (names.length === 0) return false;
    const now = this.clock.now();
    const row = await this.db.kysely
      .selectFrom('jobs')
      .select('id')
      .where('name', 'in', names)
      .where((eb) =>
        eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'queued'), eb('run_after', '<=', now)])]),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The registered names among `only` (all of them without it). */
  private namesOf(only?: readonly string[]): string[] {
    return [...this.handlers.keys()].filter((name) => only === undefined || only.includes(name));
  }

  private laneOf(name: string): Lane {
    return this.handlers.get(name)?.heavy === true ? 'heavy' : 'light';
  }

  /** Wakes the drains waiting for a run of this process to end. */
  private announceRunEnd(): void {
    for (const ended of [...this.runEnded]) ended();
  }

  /** A promise settled by the next end of a run here, or after `ms`. */
  private nextRunEnd(ms: number): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => undefined as void;
    const promise = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.runEnded.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.runEnded.add(done);
      cancel = done;
    });
    return { promise, cancel };
  }

  /** Keeps `promise` among the pick-ups under way until it settles, and returns it. */
  private follow<T>(promise: Promise<T>): Promise<T> {
    const returned = promise.then(
      () => undefined,
      () => undefined,
    );
    this.pickUps.add(returned);
    void returned.then(() => this.pickUps.delete(returned));
    return promise;
  }

  private async process(job: Job<HandOver, void>, token: string | undefined): Promise<void> {
    try {
      const handler = this.handlers.get(job.name);
      // Every process registers the same handlers; one that lacks it leaves the job to another.
      if (handler === undefined) return await this.later(job, token);
      if (job.data.outcome !== undefined) return await this.settle(job, token, job.data.outcome);
      let row: JobRow | undefined;
      try {
        row = await this.startRun(job.data);
      } catch (error) {
        this.options.log?.error({ err: error, job: job.data.id }, 'starting a job failed');
        return await this.later(job, token);
      }
      // The row moved on (finished, retried, handed over again): this BullMQ job is a leftover.
      if (row === undefined) return;
      await this.run(job, token, row, handler);
    } finally {
      this.announceRunEnd();
    }
  }

  /** Counts the run on the row, if this hand-over still owns it. */
  private startRun({ id, handover }: HandOver): Promise<JobRow | undefined> {
    return this.db.kysely
      .updateTable('jobs')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), locked_until: null, updated_at: this.clock.now() }))
      .where('id', '=', id)
      .where('handovers', '=', handover)
      .where('status', '=', 'running')
      .returningAll()
      .executeTakeFirst();
  }

  private async run(job: Job<HandOver, void>, token: string | undefined, row: JobRow, handler: JobHandler<unknown>) {
    const controller = new AbortController();
    const running: RunningJob = {
      id: row.id,
      name: row.name,
      attempt: row.attempts,
      maxAttempts: row.max_attempts,
      signal: controller.signal,
    };
    if (this.stopped) return this.handBack(job, token);
    let payload: unknown;
    try {
      payload = JSON.parse(row.payload);
    } catch (error) {
      return this.giveUp(
        job,
        token,
        handler,
        undefined,
        running,
        new PermanentJobError(`Unreadable payload: ${errorText(error)}`),
      );
    }
    if (row.attempts > row.max_attempts) {
      // Taken up again after its process died on the last attempt: give up rather than loop.
      return this.giveUp(
        job,
        token,
        handler,
        payload,
        running,
        new PermanentJobError('The job was interrupted too many times'),
      );
    }
    const bullId = job.id ?? '';
    this.running.set(bullId, controller);
    try {
      await handler.run(payload, running);
    } catch (error) {
      if (controller.signal.reason === STOPPING) return this.handBack(job, token);
      // Another process runs it now; the row is its to record.
      if (controller.signal.reason === LEASE_LOST) throw error;
      return this.fail(job, token, handler, payload, running, error);
    } finally {
      this.running.delete(bullId);
    }
    // Done, also when the runner was stopping meanwhile (a mail handed to the SMTP server): never
    // run twice.
    return this.settle(job, token, { status: 'done' });
  }

  /** A failed run: retried later by the row's back-off, or given up. */
  private fail(
    job: Job<HandOver, void>,
    token: string | undefined,
    handler: JobHandler<unknown>,
    payload: unknown,
    running: RunningJob,
    error: unknown,
  ): Promise<void> {
    const message = errorText(error);
    if (error instanceof PermanentJobError || running.attempt >= running.maxAttempts) {
      return this.giveUp(job, token, handler, payload, running, error);
    }
    this.options.log?.warn(
      { job: running.id, name: running.name, attempt: running.attempt, err: message },
      'job failed, will retry',
    );
    const runAfter = this.clock.now() + retryDelay(running.attempt, this.backoffMs, this.maxBackoffMs);
    return this.settle(job, token, { status: 'queued', runAfter, error: message });
  }

  private async giveUp(
    job: Job<HandOver, void>,
    token: string | undefined,
    handler: JobHandler<unknown>,
    payload: unknown,
    running: RunningJob,
    error: unknown,
  ): Promise<void> {
    const message = errorText(error);
    this.options.log?.error(
      { job: running.id, name: running.name, attempt: running.attempt, err: message },
      'job failed',
    );
    await this.onFailure(handler, payload, error, running);
    return this.settle(job, token, { status: 'failed', error: message });
  }

  private async onFailure(handler: JobHandler<unknown>, payload: unknown, error: unknown, running: RunningJob) {
    if (handler.onFailure === undefined) return;
    try {
      await handler.onFailure(payload, error, running);
    } catch (failureError) {
      this.options.log?.error({ err: failureError, job: running.id }, 'job failure handler failed');
    }
  }

  /**
   * Records how the run ended on the row (if this hand-over still owns it), then tells BullMQ.
   * When the database does not answer, BullMQ keeps the job, with the outcome, and a later pick-up
   * records it: the run is not repeated, and the row does not stay `running` for ever.
   */
  private async settle(job: Job<HandOver, void>, token: string | undefined, outcome: Outcome): Promise<void> {
    const now = this.clock.now();
    const set =
      outcome.status === 'done'
        ? { status: 'done' as const, last_error: null }
        : outcome.status === 'failed'
          ? { status: 'failed' as const, last_error: outcome.error }
          : { status: 'queued' as const, last_error: outcome.error, run_after: outcome.runAfter };
    try {
      await this.db.kysely
        .updateTable('jobs')
        .set({ ...set, locked_until: null, updated_at: now })
        .where('id', '=', job.data.id)
        .where('handovers', '=', job.data.handover)
        .where('status', '=', 'running')
        .execute();
    } catch (error) {
      this.options.log?.error(
        { err: error, job: job.data.id },
        'recording the end of a job failed; kept to record later',
      );
      await job.updateData({ ...job.data, outcome });
      return this.later(job, token);
    }
    if (outcome.status !== 'done') throw new RecordedFailure(outcome.error);
  }

  /**
   * Stopping: the job goes back to the table, due now, and this run does not count (the next one
   * is the same attempt again), exactly as in the embedded queue; another process's relay hands it
   * over again. In the table, it also outlives a stop of every process, whichever queue runs next.
   */
  private async handBack(job: Job<HandOver, void>, token: string | undefined): Promise<never> {
    const now = this.clock.now();
    try {
      await this.db.kysely
        .updateTable('jobs')
        .set((eb) => ({
          status: 'queued',
          attempts: eb('attempts', '-', 1),
          locked_until: null,
          run_after: now,
          updated_at: now,
        }))
        .where('id', '=', job.data.id)
        .where('handovers', '=', job.data.handover)
        .where('status', '=', 'running')
        .execute();
    } catch (error) {
      // The database is away: the job goes back to BullMQ's waiting list instead (this run then
      // counts). Should Redis be away too, the lock expires and the stalled check does the same.
      this.options.log?.warn({ err: error, job: job.data.id }, 'handing a job back to the database failed');
      await job.moveToWait(token).catch(() => undefined);
      throw new WaitingError();
    }
    // BullMQ lists this pick-up as failed, with the reason; the next hand-over is a new BullMQ job.
    throw new RecordedFailure(STOPPING);
  }

  /** Leaves the job in BullMQ for a later pick-up (database away, handler missing). */
  private async later(job: Job<HandOver, void>, token: string | undefined): Promise<never> {
    await job.moveToDelayed(Date.now() + DATABASE_RETRY_MS, token);
    throw new DelayedError();
  }

  /**
   * BullMQ failed a job without running it: taken up after its process died more often than
   * `maxStalledCount` allows (`reason` says so). Recorded as given up, and `onFailure` called, by
   * the process that saw it.
   */
  private async failedByBull(name: string, { id, handover }: HandOver, reason: string): Promise<void> {
    const handler = this.handlers.get(name);
    if (handler === undefined) return;
    const error = new PermanentJobError(reason);
    try {
      const row = await this.db.kysely
        .updateTable('jobs')
        .set({ status: 'failed', locked_until: null, last_error: errorText(error), updated_at: this.clock.now() })
        .where('id', '=', id)
        .where('handovers', '=', handover)
        .where('status', '=', 'running')
        .returningAll()
        .executeTakeFirst();
      if (row === undefined) return;
      this.options.log?.error({ job: row.id, name: row.name, attempt: row.attempts, err: reason }, 'job failed');
      let payload: unknown;
      try {
        payload = JSON.parse(row.payload);
      } catch {
        payload = undefined;
      }
      const running = { id: row.id, name: row.name, attempt: row.attempts, maxAttempts: row.max_attempts };
      await this.onFailure(handler, payload, error, { ...running, signal: new AbortController().signal });
    } catch (dbError) {
      this.options.log?.error({ err: dbError, job: id }, 'recording the end of a job failed');
    } finally {
      this.announceRunEnd();
    }
  }

  /**
   * Rows handed over more than a lease ago are checked against BullMQ, once per lease: a BullMQ job
   * that Redis no longer has (a Redis restarted without its data) goes back to the table, and one
   * that BullMQ failed while the database did not take the record is recorded now. Without this,
   * such a row would stay `running` for ever.
   */
  private async sweep(): Promise<void> {
    const now = this.clock.now();
    const bull = this.bull;
    if (now - this.lastSweep < this.leaseMs || bull?.producer.status !== 'ready') return;
    this.lastSweep = now;
    const names = this.namesOf();
    if (names.length === 0) return;
    const queues = this.queuesOf(bull);
    const rows = await this.db.kysely
      .selectFrom('jobs')
      .select(['id', 'name', 'handovers'])
      .where('status', '=', 'running')
      .where('locked_until', 'is', null)
      .where('updated_at', '<', now - this.leaseMs)
      .where('name', 'in', names)
      .limit(RELAY_BATCH)
      .execute();
    for (const row of rows) {
      const handOver = { id: row.id, handover: row.handovers };
      const job = await queues[this.laneOf(row.name)].getJob(`${row.id}.${row.handovers}`);
      if (job === undefined) {
        this.options.log?.warn({ job: row.id, name: row.name }, 'Redis lost a job: it goes back to the queue');
        await this.db.kysely
          .updateTable('jobs')
          .set({ status: 'queued', run_after: now, updated_at: now })
          .where('id', '=', row.id)
          .where('handovers', '=', row.handovers)
          .where('status', '=', 'running')
          .where('locked_until', 'is', null)
          .execute();
      } else if ((await job.getState()) === 'failed') {
        await this.failedByBull(row.name, handOver, job.failedReason);
      }
    }
  }

  private bullError(error: Error): void {
    // Connection errors repeat at every reconnection attempt; the relay says once that Redis is away.
    if (isNotConnectionError(error)) this.options.log?.error({ err: error }, 'job queue error');
  }

  private async shutDown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.relaying;
    for (const controller of this.running.values()) controller.abort(STOPPING);
    const bull = this.bull;
    if (bull === null) return;
    // The workers' commands wait for Redis. While it is away, their connection is ended: the runs'
    // hand-backs then fail at once (their locks expire and another process takes the jobs up), and
    // closing does not wait for a Redis that may not come back.
    const away = bull.consumer.status !== 'ready';
    if (away) bull.consumer.disconnect();
    // The runs return: each hands its job back, or records it if it finished anyway.
    await Promise.all(this.pickUps);
    const workers = this.workers;
    if (workers !== null) await Promise.all(LANES.map((lane) => workers[lane].close(away)));
    const queues = bull.queues;
    if (queues !== null) await Promise.all(LANES.map((lane) => queues[lane].close()));
    await Promise.all([quit(bull.consumer), quit(bull.producer)]);
  }

  /** Forgets finished jobs after a while (done after 7 days, failed after 30), once an hour. */
  private async prune(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastPrune < 60 * 60 * 1000 && this.lastPrune !== 0) return;
    this.lastPrune = now;
    await pruneFinishedJobs(this.db, now);
  }
}

interface Bull {
  /** Adds the hand-overs; fails at once while Redis is away. */
  producer: Redis;
  /** The workers' connection (BullMQ adds a blocking one per worker). */
  consumer: Redis;
  /** Made once the producer is connected. */
  queues: Record<Lane, Queue<HandOver, void>> | null;
}

function queueName(lane: Lane): string {
  return `jobs-${lane}`;
}

/** True once `redis` is connected, false if it is not within `ms`. */
function answers(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const ready = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      redis.off('ready', ready);
      resolve(false);
    }, ms);
    redis.once('ready', ready);
  });
}

/** Closes a connection, at once if it is not connected. */
async function quit(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
