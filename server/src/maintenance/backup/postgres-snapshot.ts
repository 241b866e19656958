import { execFile, spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { loadPg } from '../../db/database.js';

// PostgreSQL's side of a backup. One REPEATABLE READ, READ ONLY transaction is the snapshot: the
// row counts of the manifest are read in it, and then either `pg_dump` dumps that very snapshot
// (`--snapshot`, exported from the transaction), or, without a usable pg_dump, every table is
// exported from it as JSON lines through a cursor, a batch at a time.

/** Rows fetched per round trip of the export, and inserted per statement when it is restored. */
const BATCH = 500;

/** Tables that are no data: each database's record of its migrations, which a restore makes anew. */
const SKIPPED = /^kith_migrations/;

export type PostgresMethod = 'pg_dump' | 'export';

/** A connection URL split into what the pg tools take: the URL without its password, and the password. */
function toolConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  // The password goes through the environment, never the command line (which `ps` shows).
  return { dbname: parsed.toString(), env: { ...process.env, ...(password === '' ? {} : { PGPASSWORD: password }) } };
}

/** The major version of a pg tool on PATH (`pg_dump`, `pg_restore`), or null when absent or broken. */
export function toolMajor(tool: string): Promise<number | null> {
  return new Promise((resolve) => {
    execFile(tool, ['--version'], { encoding: 'utf8', timeout: 10_000 }, (error, stdout) => {
      const match = error === null ? /\(PostgreSQL\)\s+(\d+)/.exec(stdout) : null;
      resolve(match === null ? null : Number(match[1]));
    });
  });
}

/**
 * Which method a backup of the server at `client` uses: pg_dump when it and pg_restore are on PATH
 * and at least as new as the server (an older pg_dump refuses a newer server, and the restore needs
 * pg_restore), else the export. Returns the reason when pg_dump is not used.
 */
export async function choosePostgresMethod(client: pg.Client): Promise<{ method: PostgresMethod; why: string | null }> {
  const { rows } = await client.query<{ v: string }>('show server_version_num');
  const server = Math.floor(Number(rows[0]?.v ?? 0) / 10000);
  const [dump, restore] = await Promise.all([toolMajor('pg_dump'), toolMajor('pg_restore')]);
  if (dump === null || restore === null) return { method: 'export', why: 'pg_dump or pg_restore is not on PATH' };
  if (dump < server || restore < server) {
    return { method: 'export', why: `pg_dump ${dump} is older than the server (${server})` };
  }
  return { method: 'pg_dump', why: null };
}

/** Opens a connection of its own (not the app's pool: the snapshot holds it for the whole backup). */
export async function connect(url: string): Promise<pg.Client> {
  // Through loadPg: BIGINTs read as numbers, as everywhere in the server.
  const client = new (loadPg().Client)({ connectionString: url });
  await client.connect();
  return client;
}

/** The base tables of the current schema that hold data, in name order. */
async function dataTables(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `select table_name as name from information_schema.tables
     where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
  );
  return rows.map((row) => row.name).filter((name) => !SKIPPED.test(name));
}

/** The row count of every data table, as `client` sees them. */
export async function countTables(client: pg.Client): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await dataTables(client)) {
    const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${pg.escapeIdentifier(table)}`);
    counts[table] = Number(rows[0]?.n ?? 0);
  }
  return counts;
}

/** The last migration applied, or null for a database Kith never migrated. */
export async function lastMigration(client: pg.Client): Promise<string | null> {
  const { rows } = await client.query<{ name: string | null }>(
    `select case when to_regclass('kith_migrations') is null then null
       else (select max(name) from kith_migrations) end as name`,
  );
  return rows[0]?.name ?? null;
}

/** Runs a pg tool to its end; rejects with its stderr's last lines when it fails. */
async function runTool(tool: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(tool, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-2000);
  });
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${tool} failed (exit ${code ?? 'signal'}): ${stderr.trim()}`);
}

export interface PostgresSnapshot {
  tables: Record<string, number>;
  migration: string | null;
  /** The file store keys the snapshot's `files` table names. */
  keys: string[];
}

/**
 * Takes the snapshot and writes it: `pg_dump` to `dumpFile`, or each table to `exportFile(table)`.
 * `onSnapshot` is called just before the snapshot's transaction begins (whatever committed before
 * is in the backup).
 */
export async function snapshotPostgres(
  client: pg.Client,
  url: string,
  method: PostgresMethod,
  out: { dumpFile: string; exportFile: (table: string) => string },
  onSnapshot?: () => void,
): Promise<PostgresSnapshot> {
  onSnapshot?.();
  await client.query('begin isolation level repeatable read, read only');
  try {
    // The first statement of the transaction fixes its snapshot; exported, pg_dump reads the same one.
    const { rows } = await client.query<{ id: string }>('select pg_export_snapshot() as id');
    const snapshotId = rows[0]?.id ?? '';
    const tables = await countTables(client);
    const migration = await lastMigration(client);
    const keys =
      tables.files === undefined
        ? []
        : (await client.query<{ k: string }>('select storage_key as k from files')).rows.map((row) => row.k);
    if (method === 'pg_dump') {
      const { dbname, env } = toolConnection(url);
      await runTool(
        'pg_dump',
        [
          '--format=custom',
          `--snapshot=${snapshotId}`,
          '--no-owner',
          '--no-privileges',
          `--file=${out.dumpFile}`,
          dbname,
        ],
        env,
      );
    } else {
      for (const table of Object.keys(tables)) await exportTable(client, table, out.exportFile(table));
    }
    return { tables, migration, keys };
  } finally {
    await client.query('rollback');
  }
}

/** Streams one table as JSON lines (one `to_jsonb` object a row) through a cursor, a batch at a time. */
async function exportTable(client: pg.Client, table: string, file: string): Promise<void> {
  const output = createWriteStream(file, { flags: 'wx' });
  const cursor = pg.escapeIdentifier(`kith_backup_${table}`);
  try {
    await client.query(
      `declare ${cursor} no scroll cursor for select to_jsonb(t)::text as j from ${pg.escapeIdentifier(table)} t`,
    );
    for (;;) {
      const { rows } = await client.query<{ j: string }>(`fetch ${BATCH} from ${cursor}`);
      if (rows.length === 0) break;
      // Waits when the disk is slower than the database, so a batch at most is in memory.
      if (!output.write(rows.map((row) => `${row.j}\n`).join(''))) await once(output, 'drain');
    }
    await client.query(`close ${cursor}`);
  } finally {
    output.end();
    await once(output, 'close');
  }
}

/** Counts the rows of each table in a pg_dump archive, reading its data back through pg_restore. */
export async function countDumpRows(dumpFile: string): Promise<Record<string, number>> {
  const child = spawn('pg_restore', ['--data-only', '--file=-', dumpFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-2000);
  });
  const closed = once(child, 'close') as Promise<[number | null]>;
  const counts: Record<string, number> = {};
  let current: string | null = null;
  // `COPY public.users (id, …) FROM stdin;` then one line a row, then `\.`.
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    if (current === null) {
      const match = /^COPY (?:(?:"[^"]+"|[^ ."]+)\.)?("(?:[^"]|"")+"|[^ ("]+) /.exec(line);
      if (match !== null) {
        const raw = match[1] ?? '';
        current = raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw;
        counts[current] = 0;
      }
    } else if (line === '\\.') {
      current = null;
    } else {
      counts[current] = (counts[current] ?? 0) + 1;
    }
  }
  const [code] = await closed;
  if (code !== 0) throw new Error(`pg_restore cannot read the dump (exit ${code ?? 'signal'}): ${stderr.trim()}`);
  for (const table of Object.keys(counts)) if (SKIPPED.test(table)) delete counts[table];
  return counts;
}

/** Counts the lines of an exported table, each parsed (a damaged line fails the count). */
export async function countExportRows(file: string): Promise<number> {
  let rows = 0;
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') continue;
    JSON.parse(line);
    rows += 1;
  }
  return rows;
}

/** Restores a pg_dump archive into the (empty) database at `url`, in one transaction. */
export async function restoreDump(dumpFile: string, url: string): Promise<void> {
  const { dbname, env } = toolConnection(url);
  await runTool(
    'pg_restore',
    [
      '--no-owner',
      '--no-privileges',
      '--no-comments',
      '--exit-on-error',
      '--single-transaction',
      `--dbname=${dbname}`,
      dumpFile,
    ],
    env,
  );
}

/**
 * Loads exported tables into a database migrated to the backup's schema: user triggers off while
 * the rows go in (the counters they keep arrive with the rows), rows the migrations seeded
 * replaced, tables in foreign-key order, each from its JSON lines a batch per statement, all in
 * one transaction.
 */
export async function importTables(
  client: pg.Client,
  tables: string[],
  fileOf: (table: string) => string,
): Promise<void> {
  const { rows: edges } = await client.query<{ child: string; parent: string }>(
    `select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
     from pg_constraint c join pg_namespace n on n.oid = c.connamespace
     where c.contype = 'f' and n.nspname = current_schema()`,
  );
  const order = foreignKeyOrder(tables, edges);
  await client.query('begin');
  try {
    for (const table of order) await client.query(`alter table ${pg.escapeIdentifier(table)} disable trigger user`);
    // The target holds no data but what its migrations seeded (such as the one row of
    // instance_storage, migration 0021): the backup's rows take their place.
    for (const table of [...order].reverse()) await client.query(`delete from ${pg.escapeIdentifier(table)}`);
    for (const table of order) {
      let batch: string[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await client.query(
          `insert into ${pg.escapeIdentifier(table)} select * from jsonb_populate_recordset(null::${pg.escapeIdentifier(table)}, $1::jsonb)`,
          [`[${batch.join(',')}]`],
        );
        batch = [];
      };
      for await (const line of createInterface({ input: createReadStream(fileOf(table)), crlfDelay: Infinity })) {
        if (line === '') continue;
        batch.push(line);
        if (batch.length >= BATCH) await flush();
      }
      await flush();
    }
    for (const table of order) await client.query(`alter table ${pg.escapeIdentifier(table)} enable trigger user`);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

/** `tables` ordered so that every table comes after those its foreign keys point at (self-references aside). */
function foreignKeyOrder(tables: string[], edges: { child: string; parent: string }[]): string[] {
  const unquote = (name: string) => (name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name);
  const parents = new Map<string, Set<string>>(tables.map((table) => [table, new Set<string>()]));
  for (const edge of edges) {
    const child = unquote(edge.child);
    const parent = unquote(edge.parent);
    if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child)?.add(parent);
  }
  const order: string[] = [];
  const placed = new Set<string>();
  while (order.length < tables.length) {
    const ready = tables.filter(
      (table) => !placed.has(table) && [...(parents.get(table) ?? [])].every((p) => placed.has(p)),
    );
    if (ready.length === 0) throw new Error('The tables reference each other in a cycle: no order to load them in');
    for (const table of ready) {
      placed.add(table);
      order.push(table);
    }
  }
  return order;
}

/** Whether the database at `client` has no table at all in its schema (a restore's target must be empty). */
export async function tablesIn(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `select table_name as name from information_schema.tables where table_schema = current_schema() order by 1`,
  );
  return rows.map((row) => row.name);
}
