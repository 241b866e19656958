import type { Kysely } from 'kysely';

// The embedded job queue (src/jobs/): background work such as video and audio conversion, kept in
// the same database so a job exists exactly when the transaction that enqueued it committed, and
// survives a restart.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The handler's name, e.g. `process-video`.
    .addColumn('name', 'text', (c) => c.notNull())
    // The handler's input as JSON text.
    .addColumn('payload', 'text', (c) => c.notNull().defaultTo('{}'))
    // queued | running | done | failed
    .addColumn('status', 'text', (c) => c.notNull())
    // Runs started so far (a run counts when it is claimed).
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    // Not run before this time (ms): the enqueue delay, then the retry backoff.
    .addColumn('run_after', 'bigint', (c) => c.notNull())
    // While running: the lease (ms). A runner that died leaves it to expire; the job is then queued again.
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Picking the next job: `status = 'queued' AND run_after <= now ORDER BY run_after`, and finding
  // expired leases (`status = 'running' AND locked_until < now`).
  await db.schema.createIndex('jobs_next').on('jobs').columns(['status', 'run_after']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
