import { setImmediate as nextTurn } from 'node:timers/promises';
import { CompiledQuery, type Kysely } from 'kysely';
import { forgetTransaction, runCompiled, runTransactionDirectly, type DirectWrite } from './prepared.js';
import type { Database } from './schema.js';

type Work = (tx: Kysely<Database>) => Promise<unknown>;

interface Pending {
  work: Work;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Most transactions in one SQLite transaction. Past about 16, longer batches gave no more posts per
 * second on the bench machine, only later answers for the first units of each batch.
 */
export const MAX_BATCH = 16;

/**
 * Work a unit of a shared batch leaves for the batch's end (`deferToBatchEnd`): `flush` runs once,
 * after every unit and outside their savepoints, in the same transaction before its commit, with the
 * items of the units that succeeded, in their order. If it throws, the whole batch fails.
 */
export interface BatchEndWork<T> {
  flush(tx: Kysely<Database>, items: T[]): Promise<void>;
}

interface OpenBatch {
  /** The unit now running, by its place in the batch. */
  unit: number;
  deferred: Map<BatchEndWork<never>, { unit: number; item: unknown }[]>;
}

// Around each unit of a shared batch.
const SAVEPOINT = CompiledQuery.raw('savepoint kith_unit');
const RELEASE = CompiledQuery.raw('release savepoint kith_unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint kith_unit');

/** The shared batches whose units are running, by their transaction. */
const openBatches = new WeakMap<Kysely<Database>, OpenBatch>();

/**
 * Leaves `item` to `work.flush` at the end of the shared batch that `tx` runs, and answers true; false
 * when `tx` is no shared batch (a transaction of its own, PostgreSQL, the command line), and the
 * caller then writes at once.
 *
 * Why: a virtual table written in a transaction takes part in every savepoint that follows, and
 * SQLite's FTS5 writes its pending terms out as a new segment of the index at each one, so a batch
 * of 16 posts wrote 16 small segments and the merges they call for (about 0.7 ms a post at the
 * bench's full scale, most of a post's cost; issue 23). Written at the batch's end, the terms of
 * all its units make one segment.
 */
export function deferToBatchEnd<T>(tx: Kysely<Database>, work: BatchEndWork<T>, item: T): boolean {
  const open = openBatches.get(tx);
  if (open === undefined) return false;
  const key = work as BatchEndWork<never>;
  const entries = open.deferred.get(key) ?? [];
  entries.push({ unit: open.unit, item });
  open.deferred.set(key, entries);
  return true;
}

/** Forgets what a unit that rolled back to its savepoint left for the batch's end. */
function dropUnit(open: OpenBatch, unit: number): void {
  for (const [work, entries] of open.deferred) {
    open.deferred.set(
      work,
      entries.filter((entry) => entry.unit !== unit),
    );
  }
}

/**
 * Group commit for SQLite (embedded mode). SQLite has one writer, and a commit's cost is mostly the
 * pages it writes: a post to a 50-member group dirties about 300 index pages, chiefly for its
 * notifications, and the same ones again for the next post to that group (bench/README.md).
 * Transactions that arrive while one is running wait, then run together in one SQLite transaction,
 * each inside its own savepoint: a unit that throws rolls back to its savepoint alone, and every
 * unit learns its outcome only after the one commit, so nobody is answered before their writes are
 * durable. A lone transaction waits only for the end of the event loop's current I/O phase.
 *
 * PostgreSQL needs none of this: it has its own group commit and many connections.
 */
export class SqliteWriteBatcher {
  private readonly queue: Pending[] = [];
  private running = false;

  /**
   * `pause`, asked before each batch and on `wake()`, may hand back a promise to wait for with no
   * write transaction open: the background checkpointer emptying the WAL (checkpointer.ts). Reads
   * go on meanwhile.
   */
  constructor(
    private readonly kysely: Kysely<Database>,
    private readonly pause: () => Promise<void> | null = () => null,
    /** Runs a statement on the connection of the open transaction, synchronously (prepared.ts). */
    private readonly direct: DirectWrite | null = null,
  ) {}

  /** `kysely.transaction()` running `work`, its statements direct while it is open (`direct`). */
  private async inTransaction<T>(work: (tx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.kysely.transaction().execute(async (tx) => {
      if (this.direct !== null) runTransactionDirectly(tx, this.direct);
      try {
        return await work(tx);
      } finally {
        forgetTransaction(tx);
      }
    });
  }

  run<T>(work: (tx: Kysely<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.wake();
    });
  }

  /** Asks `pause` now if no batch is running (else it is asked before the next one). */
  wake(): void {
    if (this.running) return;
    this.running = true;
    // better-sqlite3 answers synchronously, so a transaction runs start to end without giving the
    // event loop a turn: requests that arrived with this one are only read afterwards. Waiting for
    // the end of the current I/O phase lets them reach the queue and share this commit.
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        await this.pause();
        if (this.queue.length === 0) break;
        await this.runBatch(this.queue.splice(0, MAX_BATCH));
        // A turn of the event loop between batches. Without it, a writer that queues its next
        // transaction as soon as one ends keeps this loop in microtasks: no request is read, and
        // the checkpointer's messages never arrive.
        await nextTurn();
      }
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    // A single unit needs no savepoint: the transaction is its own.
    if (batch.length === 1) {
      const [only] = batch as [Pending];
      try {
        only.resolve(await this.inTransaction(only.work));
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    const outcomes: Outcome[] = [];
    try {
      await this.inTransaction(async (tx) => {
        const open: OpenBatch = { unit: 0, deferred: new Map() };
        openBatches.set(tx, open);
        try {
          for (const [i, unit] of batch.entries()) {
            // Between units the event loop gets a turn, so reads (on their own connection) are not
            // held up for the whole batch.
            if (i > 0) await nextTurn();
            open.unit = i;
            await runCompiled(tx, SAVEPOINT);
            try {
              const value = await unit.work(tx);
              await runCompiled(tx, RELEASE);
              outcomes.push({ ok: true, value });
            } catch (error) {
              await runCompiled(tx, ROLLBACK_TO);
              await runCompiled(tx, RELEASE);
              dropUnit(open, i);
              outcomes.push({ ok: false, error });
            }
          }
        } finally {
          openBatches.delete(tx);
        }
        for (const [work, entries] of open.deferred) {
          if (entries.length > 0)
            await work.flush(
              tx,
              entries.map((entry) => entry.item as never),
            );
        }
      });
    } catch (error) {
      // The commit (or a rollback) itself failed: nothing of the batch was written.
      for (const unit of batch) unit.reject(error);
      return;
    }
    batch.forEach((unit, i) => {
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }
}
