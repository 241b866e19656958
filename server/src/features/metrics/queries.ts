import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** Jobs still to run, running, or given up, counted by name and state (`jobs_next` starts with the state). */
export async function countUnfinishedJobs(
  db: Kysely<Database>,
): Promise<{ name: string; status: string; count: number }[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['name', 'status', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('status', 'in', ['queued', 'running', 'failed'])
    .groupBy(['name', 'status'])
    .execute();
  return rows.map((row) => ({ name: row.name, status: row.status, count: Number(row.count) }));
}

/** The size on disk of the PostgreSQL database the app uses, in bytes. */
export async function postgresDatabaseSize(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ size: number | string }>`select pg_database_size(current_database()) as size`.execute(
    db,
  );
  return Number(rows[0]?.size ?? 0);
}

/** How many files are stored and their bytes (originals; thumbnails and crops are not counted). */
export async function fileTotals(db: Kysely<Database>): Promise<{ count: number; bytes: number }> {
  const row = await db
    .selectFrom('files')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.coalesce(eb.fn.sum<number | string>('size'), eb.val(0)).as('bytes'),
    ])
    .executeTakeFirst();
  return { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) };
}
