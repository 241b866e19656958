import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// PostgreSQL: `kith_author_name(user_id)` takes the author's advisory lock in shared mode, then reads
// their current name (search/reindex.ts, `currentAuthorName`), in one round trip instead of two
// (issue 23, posting on PostgreSQL). A rename takes the same lock exclusively. The read must come
// after the lock is granted and see what committed meanwhile: a statement that read the name beside
// the lock would read it as of its start, before the wait. A volatile function's statements each take
// a snapshot of their own (READ COMMITTED), so the select below sees the rename that held the lock.
// 24942 is search/reindex.ts's AUTHOR_LOCK_SPACE (0x616e); both must stay the same. SQLite runs one
// write transaction at a time and reads the name as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (engineOf(db) === 'sqlite') return;
  await sql`
    create function kith_author_name(author text) returns text
    language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock_shared(24942, hashtext(author));
      return (select name from users where id = author);
    end
    $$`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
