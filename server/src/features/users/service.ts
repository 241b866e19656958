import type { AppContext } from '../../context.js';
import type { UserRow } from '../../db/rows.js';
import { notFound } from '../../lib/errors.js';
import { presentMe, presentUser } from './presenter.js';
import { findUserById, isUserVisibleTo, listGroupsOfUser } from './queries.js';

/** The caller as the Me object (docs/api §2.1). */
export async function getMe(ctx: AppContext, user: UserRow) {
  return presentMe(user, await listGroupsOfUser(ctx.db.kysely, user.id));
}

/** GET /api/users/{id}: Me for the caller, a name-and-avatar profile for a visible user, else 404. */
export async function getUser(ctx: AppContext, caller: UserRow, targetId: string | null) {
  if (targetId === null) throw notFound();
  if (targetId === caller.id) return getMe(ctx, caller);
  const target = await findUserById(ctx.db.kysely, targetId);
  if (target === undefined || !(await isUserVisibleTo(ctx.db.kysely, caller.id, target.id))) throw notFound();
  return presentUser(target);
}
