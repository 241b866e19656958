import type { CompiledQuery, QueryResult } from 'kysely';
import type pg from 'pg';
import { ReadMemo, valuesKey } from './read-memo.js';

/** The channel on which every Kith process on a database says that it committed a change. */
export const CHANGE_CHANNEL = 'kith_changed';

/** How an operator (and a test) tells the connection that listens apart in pg_stat_activity. */
export const NOTICES_APPLICATION_NAME = 'kith-notices';

/**
 * The longest a kept result is used. Notices make every change known within about a round trip;
 * this bounds what a notice that never came could leave: a process killed between its commit and
 * its notice, a notice lost with a connection. Short enough that nobody waits on it, long enough
 * that a hot read runs once a second, not thousands of times.
 */
export const POSTGRES_MEMO_MS = 1000;

/**
 * The results of the reads a request makes most (`prepared`'s `memo`), on PostgreSQL, where other
 * processes commit unseen: another server of a scale-out set, the admin CLI. Every process says
 * after each commit of a change, on a connection of its own, `notify kith_changed`, and listens on
 * it; a notice from any other process empties the memo, and so does each change of this process,
 * as its commit returns (`changed`), before the request that made it reads again. While the
 * listening connection is down nothing is kept or used, as notices may be missed.
 *
 * So a process reads its own writes at once, and another process's writes once their notice has
 * arrived: about a round trip after the commit, sooner than the writer's answer can reach a client
 * and come back as a new request through the load balancer. `POSTGRES_MEMO_MS` bounds the rest.
 *
 * A read that was running when something changed may have read the data before the change: its
 * result is answered but not kept (`generation`).
 */
export class PostgresReadMemo {
  private readonly memo = new ReadMemo();
  private generation = 0;
  private live = false;
  /** When the oldest kept result was read (`now`); every result is forgotten `POSTGRES_MEMO_MS` later. */
  private since = 0;

  constructor(
    private readonly keepMs = POSTGRES_MEMO_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** `query`'s result: the one kept for it, or `run`'s, kept when nothing changed meanwhile. */
  async read<R>(query: CompiledQuery, run: () => Promise<QueryResult<R>>): Promise<QueryResult<R>> {
    if (!this.live) return run();
    if (this.memo.size > 0 && this.now() - this.since >= this.keepMs) this.memo.clear();
    const key = valuesKey(query);
    const known = this.memo.get<R>(query, key);
    if (known !== undefined) return known;
    const generation = this.generation;
    const result = await run();
    if (generation === this.generation && this.live) {
      if (this.memo.size === 0) this.since = this.now();
      this.memo.set(query, result, key);
    }
    return result;
  }

  /** Something changed (a commit of this process, a notice of another): nothing kept is used again. */
  changed(): void {
    this.generation++;
    this.memo.clear();
  }

  /** Whether notices arrive: results are kept only while they do. */
  listening(live: boolean): void {
    this.live = live;
    this.changed();
  }

  /** How many results are kept (tests). */
  get size(): number {
    return this.memo.size;
  }
}

// Command tags of statements that change no data. A SELECT may still change some through a
// data-modifying CTE (postgres-chain.ts sends writes that way), which its text shows.
const READING_COMMANDS = new Set([
  'SELECT',
  'SHOW',
  'SET',
  'RESET',
  'BEGIN',
  'START',
  'SAVEPOINT',
  'RELEASE',
  'ROLLBACK',
  'LISTEN',
  'UNLISTEN',
  'DISCARD',
  'EXPLAIN',
]);
const ROW_WRITES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const WRITING_WORDS = /\b(insert|update|delete|merge|truncate)\b/i;

/**
 * Whether a statement may have changed data, from its text and the command tag PostgreSQL answered.
 * Errs towards yes (`select … for update` says yes): a yes only empties memos.
 */
export function mayChange(sqlText: string, result: { command?: unknown; rowCount?: unknown } | unknown[]): boolean {
  // Several statements in one text answer one result each.
  if (Array.isArray(result)) return true;
  const command = typeof result.command === 'string' ? result.command : '';
  // A write that found no row changed nothing: the job queue's polls of an idle server, say.
  if (ROW_WRITES.has(command) && result.rowCount === 0) return false;
  if (!READING_COMMANDS.has(command)) return true;
  return command === 'SELECT' && WRITING_WORDS.test(sqlText);
}

/**
 * Says what changes a connection's statements make, as they answer: a change outside a transaction
 * at once, those of a transaction when it commits (`onChange`). One per pooled connection.
 */
export class ChangeTracker {
  private inTransaction = false;
  private wrote = false;

  constructor(private readonly onChange: () => void) {}

  /** After `sqlText` answered `result` (or failed: `result` undefined). */
  answered(sqlText: string, result: { command?: unknown; rowCount?: unknown } | unknown[] | undefined): void {
    const head = /^\s*(\w+)/.exec(sqlText)?.[1]?.toLowerCase();
    if (head === 'begin' || head === 'start') {
      this.inTransaction = true;
      this.wrote = false;
      return;
    }
    if (head === 'commit' || head === 'rollback') {
      // A failed commit rolled back; a commit that may have succeeded counts.
      const changed = this.inTransaction && this.wrote && head === 'commit';
      this.inTransaction = false;
      this.wrote = false;
      if (changed) this.onChange();
      return;
    }
    // A failed statement changed nothing: outside a transaction it rolled back, inside the whole
    // transaction will.
    if (result === undefined || !mayChange(sqlText, result)) return;
    if (this.inTransaction) this.wrote = true;
    else this.onChange();
  }
}

/**
 * The connection that listens on `CHANGE_CHANNEL` and sends this process's notices: one per
 * process, outside the pool, so that a notice never waits for a pooled connection and a commit
 * never waits for a notice (PostgreSQL serializes the commits of notifying transactions, which
 * would have serialized every post). Notices of many commits in a row go as one.
 *
 * A notice costs about 0.2 ms of the machine's CPU, a tenth of a post's, so none is sent while no
 * other process listens (a single server, the common case): that is asked at connection and every
 * `othersMs`, and learnt at once from any other process's notice. A process that starts listening
 * tells at once, so the others start telling it; a change committed in the moment between is
 * bounded by `POSTGRES_MEMO_MS`.
 */
export class ChangeNotices {
  private client: pg.Client | null = null;
  private sending: Promise<void> | null = null;
  private pending = false;
  /** Whether another process listens; until asked, it may. */
  private others = true;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly asking: NodeJS.Timeout;
  private opening: Promise<void>;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly memo: PostgresReadMemo,
    private readonly retryMs = 1000,
    othersMs = 1000,
  ) {
    this.opening = this.open();
    this.asking = setInterval(() => void this.askOthers(), othersMs);
    this.asking.unref();
  }

  /** A change of this process committed: forget now, and tell the others. */
  changed(): void {
    this.memo.changed();
    this.pending = true;
    this.send();
  }

  private send(): void {
    const client = this.client;
    if (this.sending !== null || !this.pending || client === null) return;
    this.pending = false;
    if (!this.others) return;
    this.sending = client
      .query(`select pg_notify('${CHANGE_CHANNEL}', '')`)
      .then(
        () => undefined,
        // The connection is gone ('error' below opens another, which sends what is pending).
        () => {
          this.pending = true;
        },
      )
      .finally(() => {
        this.sending = null;
        this.send();
      });
  }

  /** Asks PostgreSQL whether another process listens on this database. */
  private async askOthers(client = this.client): Promise<void> {
    if (client === null) return;
    try {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::integer as n from pg_stat_activity
         where datname = current_database() and application_name = $1 and pid <> pg_backend_pid()`,
        [NOTICES_APPLICATION_NAME],
      );
      this.others = (rows[0]?.n ?? 1) > 0;
    } catch {
      // A lost connection is handled where it is seen ('error', 'end').
    }
  }

  private async open(): Promise<void> {
    this.retry = null;
    const client = this.connect();
    let lost = false;
    const onLost = (): void => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      this.memo.listening(false);
      client.end().catch(() => undefined);
      if (!this.closed) {
        this.retry = setTimeout(() => {
          this.opening = this.open();
        }, this.retryMs);
        this.retry.unref();
      }
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      // This process's own notices come back too: it forgot at its commit already.
      // (`processID` is the backend's, which the driver keeps but does not declare.)
      const own = (client as unknown as { processID?: number }).processID;
      if (message.channel !== CHANGE_CHANNEL || message.processId === own) return;
      this.others = true;
      this.memo.changed();
    });
    try {
      await client.connect();
      // A notice is a commit of its own: it need not wait for the disk (nothing is lost with it
      // that a restart would not forget anyway).
      await client.query(`set synchronous_commit = off; listen ${CHANGE_CHANNEL}`);
    } catch {
      onLost();
      return;
    }
    if (lost) return;
    // Never keeps a process alive by itself: the server's pool and HTTP socket do.
    keepsAlive(client, false);
    await this.askOthers(client);
    if (lost) return;
    this.client = client;
    this.memo.listening(true);
    // Changes made while no connection listened were not told (and others' not heard), and the
    // others learn that this process listens: tell now.
    this.pending = true;
    this.send();
  }

  /** Sends what is pending, then closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry !== null) clearTimeout(this.retry);
    clearInterval(this.asking);
    // A CLI may have written before the connection was up: its notice goes once it is.
    await this.opening;
    const client = this.client;
    // The process waits for the last notice, even when nothing else is left to keep it running.
    if (client !== null) keepsAlive(client, true);
    while (this.sending !== null) await this.sending;
    this.client = null;
    this.memo.listening(false);
    await client?.end().catch(() => undefined);
  }
}

/** Whether the connection's socket keeps the process running (the driver keeps it as `connection.stream`). */
function keepsAlive(client: pg.Client, on: boolean): void {
  const stream = (client as unknown as { connection?: { stream?: { ref?: () => void; unref?: () => void } } })
    .connection?.stream;
  if (on) stream?.ref?.();
  else stream?.unref?.();
}
