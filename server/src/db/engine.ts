import { PostgresAdapter, SqliteAdapter, type Kysely } from 'kysely';

/**
 * The engine behind a Kysely instance, read from its dialect adapter (what Kysely's own Migrator
 * consults). Migrations that differ per engine use it: they receive a bare Kysely, not our `Db`.
 * No probe query: a failing statement would abort PostgreSQL's migration transaction.
 */
export function engineOf<DB>(db: Kysely<DB>): 'sqlite' | 'postgres' {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof SqliteAdapter) return 'sqlite';
  if (adapter instanceof PostgresAdapter) return 'postgres';
  // Another copy of kysely in node_modules would fail `instanceof`; the class name still tells.
  const name = adapter.constructor.name;
  if (name === 'SqliteAdapter') return 'sqlite';
  if (name === 'PostgresAdapter') return 'postgres';
  throw new Error(`Unsupported database adapter ${name}`);
}
