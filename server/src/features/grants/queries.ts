import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Q = Kysely<Database>;

/** Of the messages of `ids`, those not deleted that have a public token, with their text and token. */
export function findSharedMessages(
  db: Q,
  ids: string[],
): Promise<{ id: string; text: string | null; public_token: string | null }[]> {
  return db
    .selectFrom('messages')
    .select(['id', 'text', 'public_token'])
    .where('id', 'in', ids)
    .where('is_deleted', '=', 0)
    .where('public_token', 'is not', null)
    .execute();
}
