import { sql } from 'kysely';
import type { AppContext } from './context.js';
import { transaction } from './db/transaction.js';
import { findGroupById } from './features/groups/queries.js';
import { insertGroup } from './features/groups/service.js';
import { serverText } from './mail/texts.js';

const SETUP_GROUP_KEY = 'setup_group_id';
/** PostgreSQL advisory lock of the first-run check ("kith_1" in ASCII; the instance lock is "kith"). */
const FIRST_RUN_LOCK_KEY = 0x6b697468_5f31;

/**
 * On an instance with no account yet, returns the invitation link of a first group (created once),
 * so the person who started the server can sign up without reading code. Returns null once anyone
 * has an account.
 */
export async function firstRunInvitation(ctx: AppContext): Promise<string | null> {
  return transaction(ctx, async (tx) => {
    // Several web processes start together on a new scale-out database: one at a time here, so the
    // others find the group the first one made instead of each making one (and all but one
    // failing on kith_meta). SQLite has one process and one writer.
    if (ctx.db.dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(${FIRST_RUN_LOCK_KEY})`.execute(tx);
    const anyUser = await tx.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (anyUser !== undefined) return null;
    const meta = await tx.selectFrom('kith_meta').select('value').where('key', '=', SETUP_GROUP_KEY).executeTakeFirst();
    let group = meta === undefined ? undefined : await findGroupById(tx, meta.value);
    if (group === undefined) {
      const now = ctx.clock.now();
      // Named in the instance's language: "Home", "Zuhause", "家"…
      group = await insertGroup(tx, serverText(ctx.config.defaultLang, 'first_group_name'), now);
      // Member-less from birth: if nobody ever joins (the first account was made with the CLI),
      // housekeeping purges it like any empty group; a later start makes a new one if still needed.
      await tx.updateTable('groups').set({ emptied_at: now }).where('id', '=', group.id).execute();
      await tx.deleteFrom('kith_meta').where('key', '=', SETUP_GROUP_KEY).execute();
      await tx.insertInto('kith_meta').values({ key: SETUP_GROUP_KEY, value: group.id }).execute();
    }
    return `${ctx.config.publicUrl}/invitation/${group.secret_key}`;
  });
}
