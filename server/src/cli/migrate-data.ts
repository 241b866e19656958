import { existsSync } from 'node:fs';
import path from 'node:path';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Config } from '../config.js';
import { openDatabase, type Db } from '../db/database.js';
import { acquireInstanceLock, InstanceLockedError, type InstanceLock } from '../db/instance-lock.js';
import { migrateToLatest } from '../db/migrate.js';
import type { Database } from '../db/schema.js';
import { newId } from '../lib/ids.js';
import { PostgresFtsIndex, renumberSearchSlices } from '../search/postgres-fts.js';
import { S3FileStore } from '../storage/s3-file-store.js';
import { CliError } from './cli-error.js';
import { copyFiles, type FileCopyReport } from './migrate-files.js';

// `npm run kith -- migrate-data --to postgres://… [--files-to s3]` (docs/scale-out.md, "Moving an instance"):
// copies a stopped embedded instance (SQLite in DATA_DIR, files in DATA_DIR/files) into the
// scale-out stores, checks the copy, and may be run again after any interruption. Every batch of
// rows is its own transaction of INSERT … ON CONFLICT DO NOTHING, so a run cut anywhere leaves whole
// batches behind and the next run adds exactly what is missing. Nothing needs PostgreSQL superuser
// rights (no session_replication_role): counters and the search index are handled below.

/** The `kith_meta` key of the instance's identity, created in the source by the first run and copied with it. */
const INSTANCE_ID_KEY = 'instance_id';

/** PostgreSQL takes at most 65535 bound parameters in one statement. */
const MAX_PARAMETERS = 65_535;

/** Messages indexed per transaction when the search index is built. */
const SEARCH_BATCH = 500;

/** The least time between two progress lines of one step (ms). */
const PROGRESS_EVERY_MS = 2000;

type Row = Record<string, unknown>;

interface TableCopy {
  name: keyof Database;
  /** The primary key: batches are read in its order. */
  key: string[];
  /** The rows to copy, when not all of them. */
  only?: RawBuilder<unknown>;
  /** What a row becomes in the target. */
  adapt?: (row: Row) => Row;
}

/**
 * Kith's tables in an order where every row's foreign keys point at rows copied before (users and
 * groups, then what hangs off them). Columns without a foreign key (users.avatar_id, parent_id,
 * links.preview_file_id, notifications.from_message_id) may point anywhere.
 */
const TABLES: TableCopy[] = [
  { name: 'kith_meta', key: ['key'] },
  // Storage use arrives at zero too: the triggers of migration 0021 count each file as it is
  // inserted (uploads in flight are none, the server being stopped).
  { name: 'users', key: ['id'], adapt: (row) => ({ ...row, storage_bytes: 0, storage_reserved: 0 }) },
  // Arrives at zero: the trigger of migration 0009 counts each front message as it is inserted,
  // and the count is checked against the copied rows at the end (recountFrontMessages).
  // So does the count of messages posted (migration 0030), which the search index's slices follow
  // (renumberSearchSlices).
  { name: 'groups', key: ['id'], adapt: (row) => ({ ...row, front_count: 0, messages_posted: 0 }) },
  { name: 'memberships', key: ['group_id', 'user_id'] },
  { name: 'messages', key: ['id'] },
  { name: 'notifications', key: ['id'] },
  { name: 'notification_events', key: ['id'] },
  { name: 'notification_states', key: ['user_id', 'event_id'] },
  { name: 'password_reset_keys', key: ['id'] },
  { name: 'bookmarks', key: ['id'] },
  { name: 'reactions', key: ['id'] },
  { name: 'push_subscriptions', key: ['id'] },
  { name: 'push_presence', key: ['user_id', 'device'] },
  { name: 'mentions', key: ['message_id', 'user_id'] },
  { name: 'files', key: ['id'] },
  { name: 'message_files', key: ['message_id', 'position'] },
  { name: 'links', key: ['id'] },
  // Only the work still to do. Done and failed jobs are the queue's history, which housekeeping
  // deletes anyway; a job left `running` belonged to a process of the stopped server, so it is
  // queued again at once, as the queue itself does when a runner's lease expires (jobs/db-job-queue.ts).
  {
    name: 'jobs',
    key: ['id'],
    only: sql`status in ('queued', 'running')`,
    adapt: (row) => (row.status === 'running' ? { ...row, status: 'queued', locked_until: null } : row),
  },
  { name: 'digest_runs', key: ['frequency'] },
  // Reply by e-mail (issue 21): the addresses already mailed keep working on the new database.
  { name: 'reply_addresses', key: ['id'] },
  { name: 'received_replies', key: ['key'] },
  // Members' exports (issue 22): their zips are files of the store, moved with the others.
  { name: 'exports', key: ['id'] },
  // Moving in from Zusam (issue 22): what was imported, so an import can go on after the move.
  { name: 'zusam_imports', key: ['kind', 'zusam_id'] },
];

/**
 * Source tables not copied: each database's record of its own migrations (the target ran the same
 * ones), SQLite's search index (FTS5 and its shadow tables), which the target rebuilds in its
 * own form from the copied messages (indexMessages), and the instance's storage counter, which the
 * target's triggers fill as the files arrive (migration 0021).
 */
const NOT_COPIED = /^(kith_migrations|kith_migrations_lock|message_search.*|sqlite_.*|instance_storage)$/;

export interface MigrateDataRequest {
  /** The target PostgreSQL database, `postgres://…`. */
  to: string;
  /** Copy the files into the configured S3 bucket (`--files-to s3`). */
  filesToS3: boolean;
  /** Rows per batch (per transaction). */
  batchSize: number;
}

/** One committed step: a batch of rows or of the search index, or one file. */
export type MigrationStep =
  | { phase: 'rows'; table: string; rows: number }
  | { phase: 'search'; rows: number }
  | { phase: 'files'; files: number };

export interface MigrateDataIo {
  /** Progress lines, for stderr. */
  progress(line: string): void;
  /**
   * Called after each committed step. Tests throw from it to cut a run where a crash would (the
   * step is kept, nothing after it is done).
   */
  afterStep?(step: MigrationStep): Promise<void> | void;
}

interface TableReport {
  /** Rows in the source and, verified, in the target. */
  rows: number;
  /** Rows this run inserted (the others came from an earlier run). */
  copied: number;
  /** Jobs only: done or failed jobs left behind. */
  notCopied?: number;
}

/** Where the files are after a run without `--files-to s3`. */
interface FilesLeft {
  moved: false;
  location: string;
  note: string;
}

/** The command's answer (stdout): what was copied, all of it verified. */
export interface MigrateDataReport {
  source: { database: string; files: string; instanceId: string };
  target: { database: string; files: string | null };
  tables: Record<string, TableReport>;
  /** Messages this run indexed for search, and the index's rows (every message but placeholders). */
  search: { indexed: number; rows: number };
  /** Groups whose count of front messages had to be set (normally none). */
  groupsCorrected: number;
  /** Sequences moved past the copied ids. */
  sequences: string[];
  files: FileCopyReport | FilesLeft;
  seconds: number;
  /** What the operator does next. */
  next: string;
}

/**
 * A step's progress printer: a line every PROGRESS_EVERY_MS while it runs, and its last line, so a
 * short step prints one line and a long one shows it moving.
 */
function progressLine(io: MigrateDataIo): (line: string, last?: boolean) => void {
  let printed = Date.now();
  return (line, last = false) => {
    const now = Date.now();
    if (!last && now - printed < PROGRESS_EVERY_MS) return;
    printed = now;
    io.progress(`migrate-data: ${line}\n`);
  };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The target's URL as the report shows it: without its password. */
function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

/** Takes an instance lock, turning "locked" into the refusal `why` explains. */
async function lockOrRefuse(database: Config['database'], why: string): Promise<InstanceLock> {
  try {
    return await acquireInstanceLock(database);
  } catch (error) {
    if (error instanceof InstanceLockedError) throw new CliError(why);
    throw error;
  }
}

/** The source's identity, created by the first run (the one write this command makes to the source). */
async function sourceInstanceId(source: Db): Promise<string> {
  await source.transaction((tx) =>
    tx
      .insertInto('kith_meta')
      .values({ key: INSTANCE_ID_KEY, value: newId() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute(),
  );
  const row = await source.kysely
    .selectFrom('kith_meta')
    .select('value')
    .where('key', '=', INSTANCE_ID_KEY)
    .executeTakeFirstOrThrow();
  return row.value;
}

/**
 * Makes sure the target is this instance's: an empty Kith database, which is then marked with the
 * source's identity before any other row goes in, or one an earlier run marked so.
 */
async function claimTarget(target: Db, instanceId: string): Promise<void> {
  const mark = () =>
    target.kysely.selectFrom('kith_meta').select('value').where('key', '=', INSTANCE_ID_KEY).executeTakeFirst();
  let found = await mark();
  if (found === undefined) {
    const held: string[] = [];
    for (const table of TABLES) {
      const rows = await countRows(target.kysely, table.name);
      if (rows > 0) held.push(`${table.name}: ${rows}`);
    }
    if (held.length > 0) {
      throw new CliError(
        `The target database already holds Kith data that was not copied from this instance (${held.join(', ')}). ` +
          'Copy into an empty database (created and left empty, or only migrated), or into the one an earlier run from this instance filled.',
      );
    }
    await target.kysely
      .insertInto('kith_meta')
      .values({ key: INSTANCE_ID_KEY, value: instanceId })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    // Read again: another run into the same database may have marked it first.
    found = await mark();
  }
  if (found?.value !== instanceId) {
    throw new CliError(
      `The target database holds the data of another Kith instance (instance ${found?.value ?? '?'}, this one is ${instanceId}). ` +
        'Copy into an empty database, or into the one an earlier run from this instance filled.',
    );
  }
}

function countRows(db: Kysely<Database>, table: string, only?: RawBuilder<unknown>): Promise<number> {
  return sql<{
    n: number | string;
  }>`select count(*) as n from ${sql.table(table)} ${only === undefined ? sql`` : sql`where ${only}`}`
    .execute(db)
    .then((result) => Number(result.rows[0]?.n ?? 0));
}

/** Column names of a table in each database; they must be the same set (both are migrated to the latest). */
async function columnsOf(source: Db, target: Db, table: string): Promise<string[]> {
  const { rows: inSource } = await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(
    source.kysely,
  );
  const { rows: inTarget } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = current_schema() and table_name = ${table}
    order by ordinal_position`.execute(target.kysely);
  const columns = inTarget.map((row) => row.column_name);
  const sourceColumns = inSource.map((row) => row.name);
  if (columns.length !== sourceColumns.length || sourceColumns.some((name) => !columns.includes(name))) {
    throw new CliError(
      `The table ${table} has other columns in the source (${sourceColumns.join(', ')}) than in the target (${columns.join(', ')})`,
    );
  }
  return columns;
}

/** Refuses a source with a table this command does not know: a later migration must be taught here first. */
async function checkSourceTables(source: Db): Promise<void> {
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
    source.kysely,
  );
  const known = new Set<string>(TABLES.map((table) => table.name));
  const unknown = rows.map((row) => row.name).filter((name) => !known.has(name) && !NOT_COPIED.test(name));
  if (unknown.length > 0) {
    throw new CliError(
      `The source has tables migrate-data does not know how to copy: ${unknown.join(', ')} (server/src/cli/migrate-data.ts, TABLES)`,
    );
  }
}

/** Copies one table in batches ordered by its primary key; rows already in the target are left alone. */
async function copyTable(
  source: Db,
  target: Db,
  table: TableCopy,
  batchSize: number,
  io: MigrateDataIo,
): Promise<TableReport> {
  const columns = await columnsOf(source, target, table.name);
  const size = Math.max(1, Math.min(batchSize, Math.floor(MAX_PARAMETERS / columns.length)));
  const total = await countRows(source.kysely, table.name, table.only);
  const show = progressLine(io);
  const report: TableReport = { rows: total, copied: 0 };
  let read = 0;
  let last: unknown[] | null = null;
  const keys = sql.join(table.key.map((column) => sql.ref(column)));
  for (;;) {
    const conditions = [
      ...(table.only === undefined ? [] : [table.only]),
      ...(last === null ? [] : [sql`(${keys}) > (${sql.join(last)})`]),
    ];
    const { rows } = await sql<Row>`
      select ${sql.join(columns.map((column) => sql.ref(column)))} from ${sql.table(table.name)}
      ${conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`}
      order by ${keys} limit ${size}`.execute(source.kysely);
    if (rows.length === 0) break;
    const values = rows.map((row) => {
      const adapted = table.adapt?.(row) ?? row;
      return sql`(${sql.join(columns.map((column) => adapted[column]))})`;
    });
    const inserted = await target.transaction((tx) =>
      sql`insert into ${sql.table(table.name)} (${sql.join(columns.map((column) => sql.ref(column)))})
        values ${sql.join(values)} on conflict do nothing`.execute(tx),
    );
    report.copied += Number(inserted.numAffectedRows ?? 0);
    read += rows.length;
    const lastRow = rows[rows.length - 1] as Row;
    last = table.key.map((column) => lastRow[column]);
    show(`${table.name} ${read}/${total} rows (${report.copied} new)`);
    await io.afterStep?.({ phase: 'rows', table: table.name, rows: read });
  }
  show(`${table.name} ${read}/${total} rows (${report.copied} new)`, true);
  if (table.only !== undefined) report.notCopied = (await countRows(source.kysely, table.name)) - total;
  return report;
}

/**
 * Fills the target's search index (PostgreSQL full text, migration 0003) from the copied messages:
 * every message that is not a placeholder, under its author's current name, as the messages
 * service indexes it. Only messages missing from the index are read, so a second run does the rest.
 */
async function indexMessages(target: Db, io: MigrateDataIo): Promise<{ indexed: number; rows: number }> {
  const index = new PostgresFtsIndex();
  const missing = sql`m.is_deleted = 0 and not exists (select 1 from message_search s where s.message_id = m.id)`;
  const { rows: counted } = await sql<{ n: number }>`select count(*) as n from messages m where ${missing}`.execute(
    target.kysely,
  );
  const total = Number(counted[0]?.n ?? 0);
  const show = progressLine(io);
  let indexed = 0;
  let last = '';
  for (;;) {
    const { rows } = await sql<{
      id: string;
      group_id: string;
      title: string | null;
      text: string | null;
      author: string | null;
    }>`
      select m.id, m.group_id, m.title, m.text, u.name as author
      from messages m left join users u on u.id = m.author_id
      where ${missing} and m.id > ${last}
      order by m.id limit ${SEARCH_BATCH}`.execute(target.kysely);
    if (rows.length === 0) break;
    await target.transaction((tx) =>
      index.upsert(
        tx,
        rows.map((row) => ({
          id: row.id,
          groupId: row.group_id,
          title: row.title,
          text: row.text,
          authorName: row.author,
        })),
      ),
    );
    indexed += rows.length;
    last = (rows[rows.length - 1] as { id: string }).id;
    show(`search index ${indexed}/${total} messages`);
    await io.afterStep?.({ phase: 'search', rows: indexed });
  }
  show(`search index ${indexed}/${total} messages`, true);
  return { indexed, rows: await countRows(target.kysely, 'message_search') };
}

/**
 * Sets each group's count of front messages (migration 0009) from the copied messages. The trigger
 * has counted them as they arrived, so this normally changes nothing; it makes the result not
 * depend on that. Returns the number of groups corrected.
 */
async function recountFrontMessages(target: Db): Promise<number> {
  const result = await sql`
    update groups set front_count = c.n
    from (
      select g.id, count(m.id) as n
      from groups g left join messages m on m.group_id = g.id and m.is_in_front = 1
      group by g.id
    ) c
    where c.id = groups.id and groups.front_count <> c.n`.execute(target.kysely);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Moves every sequence behind a copied table's serial or identity column past the copied values, so
 * the target's next insert does not collide. Kith's tables use UUIDs and have none today; a later
 * migration that adds one is covered. Returns the sequences set.
 */
async function advanceSequences(target: Db): Promise<string[]> {
  const { rows } = await sql<{ table_name: string; column_name: string; sequence: string | null }>`
    select table_name, column_name, pg_get_serial_sequence(format('%I', table_name), column_name) as sequence
    from information_schema.columns
    where table_schema = current_schema() and (column_default like 'nextval(%' or is_identity = 'YES')`.execute(
    target.kysely,
  );
  const copied = new Set<string>(TABLES.map((table) => table.name));
  const set: string[] = [];
  for (const row of rows) {
    if (row.sequence === null || !copied.has(row.table_name)) continue;
    await sql`select setval(${row.sequence}, coalesce((select max(${sql.ref(row.column_name)}) from ${sql.table(row.table_name)}), 0) + 1, false)`.execute(
      target.kysely,
    );
    set.push(row.sequence);
  }
  return set;
}

/** What differs between the source and the target once everything is copied; empty when nothing does. */
async function differences(source: Db, target: Db, tables: Record<string, TableReport>): Promise<string[]> {
  const found: string[] = [];
  for (const table of TABLES) {
    const inTarget = await countRows(target.kysely, table.name);
    const inSource = tables[table.name]?.rows ?? 0;
    if (inTarget !== inSource) found.push(`${table.name}: ${inSource} rows in the source, ${inTarget} in the target`);
  }
  // Each group's counter against the front messages the source holds.
  const { rows: sourceFront } = await sql<{ group_id: string; n: number }>`
    select group_id, count(*) as n from messages where is_in_front = 1 group by group_id`.execute(source.kysely);
  const expected = new Map(sourceFront.map((row) => [row.group_id, Number(row.n)]));
  const groups = await target.kysely.selectFrom('groups').select(['id', 'front_count']).execute();
  for (const group of groups) {
    const wanted = expected.get(group.id) ?? 0;
    if (group.front_count !== wanted) {
      found.push(
        `groups.front_count of ${group.id}: ${wanted} front messages in the source, ${group.front_count} counted in the target`,
      );
    }
  }
  const searchable = await countRows(target.kysely, 'messages', sql`is_deleted = 0`);
  const indexed = await countRows(target.kysely, 'message_search');
  if (indexed !== searchable) found.push(`search index: ${searchable} messages to index, ${indexed} indexed`);
  return found;
}

/**
 * Copies the embedded instance `config` describes into the PostgreSQL database `request.to` and,
 * with `filesToS3`, its files into the configured bucket; verifies the copy and returns the report.
 * Refuses (CliError) a running server, a source that is not embedded, a target holding another
 * instance's data, and `filesToS3` without S3 settings.
 */
export async function migrateData(
  config: Config,
  request: MigrateDataRequest,
  io: MigrateDataIo,
): Promise<MigrateDataReport> {
  const started = Date.now();
  if (config.database.kind !== 'sqlite') {
    throw new CliError(
      'migrate-data copies an embedded instance (SQLite in DATA_DIR), but DATABASE_URL already points at PostgreSQL: run it with the configuration of the embedded server',
    );
  }
  const file = config.database.file;
  if (file === ':memory:' || !existsSync(file)) throw new CliError(`No embedded instance at ${file} (check DATA_DIR)`);
  if (!/^postgres(ql)?:\/\//.test(request.to)) throw new CliError('--to must be a PostgreSQL URL, postgres://…');
  if (request.filesToS3 && config.s3 === null) {
    throw new CliError(
      '--files-to s3 needs the bucket: set S3_BUCKET and the other S3_* settings (see .env.example) in the configuration this command runs with',
    );
  }
  const filesRoot = path.join(config.dataDir, 'files');
  const bucket = request.filesToS3 && config.s3 !== null ? new S3FileStore(config.s3) : null;
  // Before anything is copied: a bucket that does not answer would fail the run at its very end.
  await bucket?.ready();

  const locks: InstanceLock[] = [];
  const open: Db[] = [];
  try {
    // Held until the end, so that no server starts on the source while it is copied.
    locks.push(
      await lockOrRefuse(
        config.database,
        `A Kith server is running on ${file}: stop the server first (the copy must see the data as it will stay).`,
      ),
    );
    const source = openDatabase(config.database);
    open.push(source);
    await migrateToLatest(source);
    await checkSourceTables(source);
    const instanceId = await sourceInstanceId(source);

    const targetDatabase = { kind: 'postgres', url: request.to } as const;
    locks.push(
      await lockOrRefuse(
        targetDatabase,
        'A Kith server (or another migrate-data) is using the target database: stop it first.',
      ),
    );
    const target = openDatabase(targetDatabase);
    open.push(target);
    await migrateToLatest(target);
    await claimTarget(target, instanceId);

    const tables: Record<string, TableReport> = {};
    for (const table of TABLES) tables[table.name] = await copyTable(source, target, table, request.batchSize, io);
    const search = await indexMessages(target, io);
    await renumberSearchSlices(target.kysely);
    const groupsCorrected = await recountFrontMessages(target);
    const sequences = await advanceSequences(target);

    let files: FileCopyReport | FilesLeft;
    if (bucket !== null && config.s3 !== null) {
      const show = progressLine(io);
      files = await copyFiles(filesRoot, bucket, {
        onFile: async (done) => {
          show(`files ${done.count}/${done.totalCount}, ${mib(done.bytes)}/${mib(done.totalBytes)}`);
          await io.afterStep?.({ phase: 'files', files: done.count });
        },
      });
      show(
        `files ${files.count}, ${mib(files.bytes)}, verified (${files.copied} copied, ${files.alreadyThere} already there)`,
        true,
      );
    } else {
      files =
        config.s3 === null
          ? {
              moved: false,
              location: filesRoot,
              note: 'The files stay in DATA_DIR/files: every server process must see this folder, or run again with --files-to s3',
            }
          : { moved: false, location: `s3://${config.s3.bucket}`, note: 'The files are in the S3 bucket already' };
    }

    const found = await differences(source, target, tables);
    if (found.length > 0) throw new CliError(`The copy differs from the source:\n  ${found.join('\n  ')}`);
    return {
      source: { database: file, files: filesRoot, instanceId },
      target: {
        database: withoutPassword(request.to),
        files: bucket !== null && config.s3 !== null ? `s3://${config.s3.bucket}` : null,
      },
      tables,
      search,
      groupsCorrected,
      sequences,
      files,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      next: 'Run the scale-out processes with DATABASE_URL set to the target, the same SECRET_KEY as this instance (API keys and signed links depend on it), and S3_* for the files; keep the embedded server stopped.',
    };
  } finally {
    for (const db of open.reverse()) await db.close();
    for (const lock of locks.reverse()) await lock.release();
  }
}
