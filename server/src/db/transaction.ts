import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from './schema.js';

export type Tx = Kysely<Database>;
/** Registers work to run once the transaction has committed (mail, live events, jobs). */
export type AfterCommit = (work: () => void | Promise<void>) => void;

/**
 * Runs `work` in one transaction (on SQLite it may share the commit with others: `write-batch.ts`;
 * it still succeeds or fails alone). Side effects registered with `afterCommit` run only after the
 * commit, so nobody hears of a row that was rolled back; a failing side effect is logged, never
 * turned into a failed request.
 */
export async function transaction<T>(
  ctx: AppContext,
  work: (tx: Tx, afterCommit: AfterCommit) => Promise<T>,
): Promise<T> {
  const pending: (() => void | Promise<void>)[] = [];
  const result = await ctx.db.transaction((tx) => work(tx, (fn) => pending.push(fn)));
  for (const fn of pending) {
    try {
      await fn();
    } catch (error) {
      ctx.log.error({ err: error }, 'after-commit work failed');
    }
  }
  return result;
}
