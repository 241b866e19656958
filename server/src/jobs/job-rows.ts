import type { Insertable, Kysely } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database, JobsTable } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import type { EnqueueOptions } from './job-queue.js';

// The rules on rows of the `jobs` table that every JobQueue shares: the embedded runner
// (db-job-queue.ts) runs the rows itself, the BullMQ queue (bull-job-queue.ts) hands them over to
// Redis. The table is the record either way: what exists, what is due, what was done or given up.

const DAY = 24 * 60 * 60 * 1000;

/** Error text kept on the job row and logged: short, one line. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, ' ').slice(0, 1000);
}

/** How long a job waits after its `attempt`-th run failed: `backoffMs`, doubling, at most `maxBackoffMs`. */
export function retryDelay(attempt: number, backoffMs: number, maxBackoffMs: number): number {
  return Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));
}

/** Job rows written per statement (11 columns each: well under both engines' parameter limits). */
const INSERT_CHUNK = 200;
/** Payloads looked up per statement by `unique`. */
const LOOKUP_CHUNK = 500;

/**
 * Writes a queued job. With the caller's transaction as `db`, the job exists exactly when that
 * transaction commits; `delayMs` is kept as the row's `run_after`, on the queue's clock. With
 * `unique`, a waiting job of the same name and payload stands for this one (its id is answered).
 */
export async function insertJob(
  db: Kysely<Database>,
  now: number,
  name: string,
  payload: unknown,
  options: EnqueueOptions = {},
): Promise<string> {
  const [id] = await insertJobs(db, now, name, [payload], options);
  return id ?? '';
}

/**
 * `insertJob` for several payloads of one name in a few statements: their ids, in order. With
 * `unique`, equal payloads in the list are one job too.
 */
export async function insertJobs(
  db: Kysely<Database>,
  now: number,
  name: string,
  payloads: readonly unknown[],
  options: EnqueueOptions = {},
): Promise<string[]> {
  const texts = payloads.map((payload) => JSON.stringify(payload));
  const waiting = new Map<string, string>();
  if (options.unique === true) {
    const distinct = [...new Set(texts)];
    for (let i = 0; i < distinct.length; i += LOOKUP_CHUNK) {
      // Few rows are queued at a time: `jobs_next` (status, run_after) narrows the look-up to them.
      const rows = await db
        .selectFrom('jobs')
        .select(['id', 'payload'])
        .where('status', '=', 'queued')
        .where('name', '=', name)
        .where('payload', 'in', distinct.slice(i, i + LOOKUP_CHUNK))
        .execute();
      for (const row of rows) waiting.set(row.payload, row.id);
    }
  }
  const rows: Insertable<JobsTable>[] = [];
  const ids = texts.map((text) => {
    const existing = waiting.get(text);
    if (existing !== undefined) return existing;
    const id = newId();
    if (options.unique === true) waiting.set(text, id);
    rows.push({
      id,
      name,
      payload: text,
      status: 'queued',
      attempts: 0,
      max_attempts: Math.max(1, options.maxAttempts ?? 3),
      run_after: now + Math.max(0, options.delayMs ?? 0),
      locked_until: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    });
    return id;
  });
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await db
      .insertInto('jobs')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
  return ids;
}

/**
 * The ids of the next due queued jobs among `names`, oldest due first: the sub-query of an atomic
 * claim. On PostgreSQL the rows are locked and rows another claim holds are skipped, so several
 * processes never claim the same job; SQLite has one writer at a time.
 */
export function dueJobIds(db: Db, names: readonly string[], now: number, limit: number) {
  return db.kysely
    .selectFrom('jobs')
    .select('id')
    .where('status', '=', 'queued')
    .where('run_after', '<=', now)
    .where('name', 'in', names)
    .orderBy('run_after')
    .orderBy('created_at')
    .limit(limit)
    .$if(db.dialect === 'postgres', (q) => q.forUpdate().skipLocked());
}

/** Jobs left `running` by a claimer that died (lease expired) go back to the queue. */
export async function recoverExpiredLeases(db: Db, now: number): Promise<void> {
  await db.kysely
    .updateTable('jobs')
    .set({ status: 'queued', locked_until: null, run_after: now, updated_at: now })
    .where('status', '=', 'running')
    .where('locked_until', '<', now)
    .execute();
}

/** Forgets finished jobs after a while: done after 7 days, failed after 30. */
export async function pruneFinishedJobs(db: Db, now: number): Promise<void> {
  await db.kysely
    .deleteFrom('jobs')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'done'), eb('updated_at', '<', now - 7 * DAY)]),
        eb.and([eb('status', '=', 'failed'), eb('updated_at', '<', now - 30 * DAY)]),
      ]),
    )
    .execute();
}
