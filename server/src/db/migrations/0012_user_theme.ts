import type { Kysely } from 'kysely';

// The colour scheme a user chose in the account settings (`data.theme`: system, light or dark), kept
// in the account so it follows them to every device. NULL: never chosen, which the client shows
// as "follow the system".
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('theme', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
