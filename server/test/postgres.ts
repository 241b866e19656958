import pg from 'pg';

/** The PostgreSQL server the integration tests use (this machine's, trust auth). Override with TEST_POSTGRES_URL. */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Prefix of every database the tests create, so leftovers of a crashed run can be found and dropped. */
export const TEST_DB_PREFIX = 'kith_test_';

export function urlForDatabase(name: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` with a short-lived admin connection. */
export async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Drops a test database once nobody uses it. Never `WITH (FORCE)`: killing the sessions of a pool
 * that is still closing makes its clients throw "terminating connection due to administrator
 * command" into the test process. A pool that just ended may need a moment to let go.
 */
export async function dropDatabase(client: pg.Client, name: string, attempts = 50): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.query(`DROP DATABASE IF EXISTS "${name}"`);
      return;
    } catch (error) {
      // 55006: the database is being accessed by other users.
      if ((error as { code?: string }).code !== '55006' || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
