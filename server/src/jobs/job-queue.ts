import type { NotificationEmailFrequency } from '@kith/common';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The jobs Kith runs, by name, with their payload (what `enqueue` takes and the handler gets). */
export interface KithJobs {
  /** Convert or remux an uploaded video, take its poster (src/features/files/media-jobs.ts). */
  'process-video': { fileId: string };
  /** Convert or clean an uploaded audio file (src/features/files/media-jobs.ts). */
  'process-audio': { fileId: string };
  /** Send one queued e-mail, sealed with the server secret (src/mail/queue.ts). */
  'send-mail': { kind: string; sealed: string };
  /** Send the digests of one frequency's scheduled run (src/features/digests/service.ts). */
  'send-digests': { frequency: DigestFrequency; slot: number };
  /** Send one user on `immediately` the mail of their latest burst of activity (src/features/digests/immediate.ts). */
  'send-immediate-mail': { userId: string };
  /** Fetch and store the preview of a URL posted in a message (src/features/links/service.ts). */
  'link-preview': { url: string };
  /** Push one user what their latest burst of notifications says (src/features/push/jobs.ts). */
  'push-notifications': { userId: string };
  /** Send one push, sealed with the server secret, to one device (src/features/push/jobs.ts). */
  'send-push': { subscriptionId: string; sealed: string };
  /** Build one member's export zip into the FileStore (src/features/exports/service.ts). */
  'build-export': { exportId: string };
}

/**
 * The notification e-mail frequencies that have a schedule (`none` has none; `immediately` follows
 * the activity, by a job per user, instead of the clock).
 */
export type DigestFrequency = Exclude<NotificationEmailFrequency, 'none' | 'immediately'>;

export interface EnqueueOptions {
  /** Wait this long (ms) before the first run. Default 0. */
  delayMs?: number;
  /** Runs before the job is given up. Default 3. */
  maxAttempts?: number;
  /**
   * When a job of the same name and payload is still waiting (queued, not yet started), record
   * nothing and answer that job's id: what the caller wants done will be done by that run. Two
   * transactions that commit at the same time may still both record one, so the handler must be
   * one whose second run finds nothing left to do. Default false.
   */
  unique?: boolean;
}

/** What a handler learns about the run it is in. */
export interface RunningJob {
  id: string;
  name: string;
  /** 1 for the first run. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the runner stops: kill child processes and return. */
  signal: AbortSignal;
}

export interface JobHandler<T> {
  /** Does the work; throwing schedules a retry (unless the error is a `PermanentJobError`). */
  run(payload: T, job: RunningJob): Promise<void>;
  /** Called once when the job is given up (last attempt failed, or a permanent error). */
  onFailure?(payload: T, error: unknown, job: RunningJob): Promise<void>;
  /** Heavy jobs (ffmpeg) share a limit of one per core; light ones have their own. */
  heavy?: boolean;
}

/** Thrown by a handler when retrying cannot help (the input is unreadable): no further attempts. */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

/**
 * Background jobs (design: embedded mode keeps them in the database). Payloads are plain JSON
 * values: they round-trip through `JSON.stringify`/`JSON.parse`.
 */
export interface JobQueue<P extends object = KithJobs> {
  /** Names the handler of `name`; jobs of unregistered names are left for another runner. */
  register<N extends keyof P & string>(name: N, handler: JobHandler<P[N]>): void;
  /**
   * Records a job. Pass the caller's transaction as `db` so the job exists exactly when the
   * transaction commits; call `wake()` after the commit to start it without waiting for a poll.
   */
  enqueue<N extends keyof P & string>(
    db: Kysely<Database>,
    name: N,
    payload: P[N],
    options?: EnqueueOptions,
  ): Promise<string>;
  /** `enqueue` of several payloads of one name in a few statements; their ids, in order. */
  enqueueMany<N extends keyof P & string>(
    db: Kysely<Database>,
    name: N,
    payloads: readonly P[N][],
    options?: EnqueueOptions,
  ): Promise<string[]>;
  /** Looks for due jobs now (after an enqueue has committed). No-op unless started. */
  wake(): void;
  /** Starts polling and running jobs in the background. */
  start(): void;
  /** Stops polling, aborts running jobs and puts them back in the queue; resolves when they have returned. */
  stop(): Promise<void>;
  /**
   * Runs every due job (and what they enqueue) until none is left: for tests and the CLI. With
   * `names`, only jobs of those names are run and waited for.
   */
  drain(names?: readonly (keyof P & string)[]): Promise<void>;
}
