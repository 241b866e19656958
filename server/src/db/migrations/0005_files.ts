import type { Kysely } from 'kysely';

// Files (uploads) and their attachment to messages (docs/api §2.6, §6.1, §7). The bytes live in the
// FileStore (src/storage/); a row names them by `storage_key`.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Cleared when the uploader deletes their account; files attached to kept messages stay (§10.4).
    .addColumn('uploader_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    // MIME type of the stored bytes, detected from their content.
    .addColumn('type', 'text', (c) => c.notNull())
    // image | video | audio | pdf
    .addColumn('kind', 'text', (c) => c.notNull())
    // raw (stored, being processed) | ready (final)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    // The original file name, cleaned (§2.6).
    .addColumn('name', 'text', (c) => c.notNull())
    // Where the bytes are in the FileStore, and the extension of the signed name (`<id>.<ext>`).
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('ext', 'text', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    // 0–100 while a raw video or audio file is converted, else null.
    .addColumn('progress', 'integer')
    // Why processing failed (the original is then kept and the file is ready).
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // "Uploaded by the caller" checks and the cleanup of unattached uploads.
  await db.schema.createIndex('files_uploader').on('files').columns(['uploader_id', 'created_at']).execute();
  await db.schema.createIndex('files_status').on('files').columns(['status', 'created_at']).execute();

  await db.schema
    .createTable('message_files')
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    // The file's place in the message, 0..n-1 (`fileIndex`).
    .addColumn('position', 'integer', (c) => c.notNull())
    // A message's files in order, in one index walk.
    .addPrimaryKeyConstraint('message_files_pk', ['message_id', 'position'])
    .execute();
  // "Attached to a message the caller can read": from a file to its messages.
  await db.schema.createIndex('message_files_file').on('message_files').columns(['file_id', 'message_id']).execute();
  // "Avatar of a visible user": from a file to the users showing it.
  await db.schema.createIndex('users_avatar').on('users').column('avatar_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
