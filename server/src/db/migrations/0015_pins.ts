import type { Kysely } from 'kysely';

// Pinned messages (issue 20): a message's place among its group's pinned ones, as Zusam 0.6 keeps
// it in `message.sort_order`. NULL is not pinned; pinned messages come first on the group page and
// feed, smaller first, and a new pin takes the group's largest plus one. Only front messages carry
// one (the service clears it when a message leaves the group page).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('pin_order', 'integer').execute();
  // The pinned messages of a group in pin order, read by every group page and feed request: a
  // partial index holds only the few pinned rows, so it costs nothing for the others.
  await db.schema
    .createIndex('messages_group_pins')
    .on('messages')
    .columns(['group_id', 'pin_order'])
    .where('pin_order', 'is not', null)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
