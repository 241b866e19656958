import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** One round trip to the database: it answers queries. */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
