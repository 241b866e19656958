import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// Storage quotas and account administration (issue 22, part 4).
//
// Usage is the bytes of the stored files a user uploaded (`files.size`, uploader_id = the user):
// kept on the user (`storage_bytes`) and for the whole instance (`instance_storage.bytes`) by
// triggers on `files`, in the transaction that changes the file rows, on every path (uploads,
// conversions that replace the bytes, clean-ups, cascades), so reading it is one row.
// `storage_reserved` holds the bytes of uploads still streaming, claimed step by step with a
// conditional UPDATE so that two uploads at once cannot both pass a limit only one fits under
// (features/files/quota.ts). Thumbnails, crops and previews are not counted (docs/decisions.md).
//
// `users.disabled_at`: an administrator disabled the account (`kith users disable`): its key,
// media cookie and sign-in are refused until it is enabled again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('storage_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('users')
    .addColumn('storage_reserved', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();

  await db.schema
    .createTable('instance_storage')
    // One row, id 1.
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('reserved', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`insert into instance_storage (id, bytes, reserved)
    values (1, (select coalesce(sum(size), 0) from files), 0)`.execute(db);
  // Existing users are counted once, through the files_uploader index.
  await sql`
    update users set storage_bytes =
      (select coalesce(sum(f.size), 0) from files f where f.uploader_id = users.id)`.execute(db);

  if (engineOf(db) === 'sqlite') await upSqlite(db);
  else await upPostgres(db);
}

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`
    create trigger files_storage_insert after insert on files
    begin
      update users set storage_bytes = storage_bytes + new.size where id = new.uploader_id;
      update instance_storage set bytes = bytes + new.size where id = 1;
    end`.execute(db);
  await sql`
    create trigger files_storage_delete after delete on files
    begin
      update users set storage_bytes = storage_bytes - old.size where id = old.uploader_id;
      update instance_storage set bytes = bytes - old.size where id = 1;
    end`.execute(db);
  await sql`
    create trigger files_storage_update after update of size, uploader_id on files
    when old.size <> new.size or old.uploader_id is not new.uploader_id
    begin
      update users set storage_bytes = storage_bytes - old.size where id = old.uploader_id;
      update users set storage_bytes = storage_bytes + new.size where id = new.uploader_id;
      update instance_storage set bytes = bytes - old.size + new.size where id = 1;
    end`.execute(db);
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function kith_files_storage() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.size = new.size and old.uploader_id is not distinct from new.uploader_id then
        return null;
      end if;
      if tg_op in ('UPDATE', 'DELETE') then
        update users set storage_bytes = storage_bytes - old.size where id = old.uploader_id;
        update instance_storage set bytes = bytes - old.size where id = 1;
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        update users set storage_bytes = storage_bytes + new.size where id = new.uploader_id;
        update instance_storage set bytes = bytes + new.size where id = 1;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger files_storage
    after insert or delete or update of size, uploader_id on files
    for each row execute function kith_files_storage()`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('Kith migrations are forward-only');
}
