import type { Kysely } from 'kysely';

// @mentions (issue 21). A message's text keeps what was typed (`@Ana Silva, …`); these rows say
// whom it mentions, by user id, with the name as written then, so a rename shows the new name in
// place of the written one (docs/decisions.md, "Mentions"). One row per message and person; they go
// with their message or their user by foreign key, and a placeholder loses them
// (messages/queries.ts, makePlaceholder).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mentions')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('written_name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('mentions_pkey', ['message_id', 'user_id'])
    .execute();
  // The primary key starts with message_id: it is the index of a page of cards' mentions. Account
  // deletion finds a user's rows by this one.
  await db.schema.createIndex('mentions_user').on('mentions').column('user_id').execute();
  // How a user's mentions travel by e-mail (`data.mention_emails`): null means with_others.
  await db.schema.alterTable('users').addColumn('mention_emails', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
