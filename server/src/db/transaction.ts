import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { PendingEffects, type Effects } from './effects.js';
import type { Database } from './schema.js';

export type Tx = Kysely<Database>;
export type { Effects } from './effects.js';

/**
 * Runs `work` in one transaction (on SQLite it may share the commit with others: `write-batch.ts`;
 * it still succeeds or fails alone). What `work` asks of `effects` (live events, jobs to start)
 * happens only once its commit succeeded: `ctx.db.transaction` settles after the commit, and
 * rejects when this unit rolled back, alone in a shared batch or with the whole batch whose commit
 * failed. Jobs are rows written in the transaction, so they exist exactly when the change does.
 */
export async function transaction<T>(
  ctx: Pick<AppContext, 'db' | 'events' | 'jobs' | 'log'>,
  work: (tx: Tx, effects: Effects) => Promise<T>,
): Promise<T> {
  const runs: PendingEffects[] = [];
  const result = await ctx.db.transaction((tx) => {
    // A fresh set per run of `work`: only the run that committed has its effects run.
    const effects = new PendingEffects(tx, ctx.jobs);
    runs.push(effects);
    return work(tx, effects);
  });
  runs.at(-1)?.run(ctx);
  return result;
}
