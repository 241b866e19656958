import type { AppContext } from '../src/context.js';
import { transaction } from '../src/db/transaction.js';
import { newApiKey } from '../src/features/auth/api-keys.js';
import { insertUser } from '../src/features/auth/service.js';
import type { GroupRow, MessageRow, UserRow } from '../src/db/rows.js';
import { addMember, insertGroup } from '../src/features/groups/service.js';
import { newId } from '../src/lib/ids.js';
import { hashPassword } from '../src/lib/passwords.js';

/** The password every factory user has unless a test gives another. */
export const DEFAULT_PASSWORD = 'correct horse battery';

// argon2 is slow on purpose; hash the default password once per test file.
let defaultHash: Promise<string> | undefined;
let counter = 0;

export interface BuiltUser {
  user: UserRow;
  /** The API key, to send as X-AUTH-TOKEN. */
  key: string;
  password: string;
}

/** A user with defaults that can be overridden; each gets a unique login. */
export async function buildUser(
  ctx: AppContext,
  overrides: { name?: string; login?: string; password?: string; notificationEmails?: string | null } = {},
): Promise<BuiltUser> {
  counter += 1;
  const password = overrides.password ?? DEFAULT_PASSWORD;
  const passwordHash =
    password === DEFAULT_PASSWORD
      ? await (defaultHash ??= hashPassword(DEFAULT_PASSWORD))
      : await hashPassword(password);
  const apiKey = newApiKey(ctx);
  const user = await transaction(ctx, (tx) =>
    insertUser(tx, {
      login: overrides.login ?? `user${counter}-${Math.random().toString(36).slice(2, 8)}@example.org`,
      name: overrides.name ?? `User ${counter}`,
      passwordHash,
      apiKey,
      notificationEmails: overrides.notificationEmails ?? null,
      now: ctx.clock.now(),
    }),
  );
  return { user, key: apiKey.key, password };
}

/** A group whose members join in the given order (without join notifications unless asked). */
export async function buildGroup(
  ctx: AppContext,
  options: { name?: string; members?: (BuiltUser | UserRow)[]; notify?: boolean } = {},
): Promise<GroupRow> {
  counter += 1;
  return transaction(ctx, async (tx, effects) => {
    const group = await insertGroup(tx, options.name ?? `Group ${counter}`, ctx.clock.now());
    const members = options.members ?? [];
    for (const [index, member] of members.entries()) {
      const user = 'user' in member ? member.user : member;
      const fresh = await tx.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
      // Distinct join times, all before "now", keep "in the order they joined" deterministic, also
      // against joins the test makes next through the API.
      const joinedAt = ctx.clock.now() - members.length + index;
      await addMember(tx, effects, group, fresh, joinedAt, { notify: options.notify ?? false });
    }
    return group;
  });
}

/**
 * The row of a post (top level, on the group page) at `at`, for tests that write messages
 * themselves; `fields` overrides any column (a reply sets its parent, root, lineage and front).
 */
export function postRow(
  groupId: string,
  authorId: string | null,
  at: number,
  fields: Partial<MessageRow> = {},
): MessageRow {
  const id = fields.id ?? newId();
  return {
    id,
    group_id: groupId,
    author_id: authorId,
    parent_id: null,
    root_id: id,
    lineage: '[]',
    title: null,
    text: null,
    no_embed: null,
    created_at: at,
    last_activity_date: at,
    is_in_front: 1,
    is_deleted: 0,
    public_token: null,
    pin_order: null,
    ...fields,
  };
}

/** Reads a user row again (after the API changed it). */
export function reloadUser(ctx: AppContext, id: string): Promise<UserRow | undefined> {
  return ctx.db.kysely.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}
