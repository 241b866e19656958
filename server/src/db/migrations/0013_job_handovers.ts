import type { Kysely } from 'kysely';

// Jobs on BullMQ (src/jobs/bull-job-queue.ts): how many times a row was handed over to a BullMQ
// queue. Each hand-over is its own BullMQ job, `<id>.<handovers>`, and only that one may run or
// finish the row: a BullMQ job left over from an earlier hand-over (a process that died between
// recording a retry and telling BullMQ) finds the number changed and does nothing. The embedded
// runner never hands over and leaves it at 0.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('handovers', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
