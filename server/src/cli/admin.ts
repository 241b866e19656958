import { normalizeEmail } from '@kith/common';
import type { AppContext } from '../context.js';
import { transaction } from '../db/transaction.js';
import type { UserRow } from '../db/rows.js';
import { deleteAccount } from '../features/account/service.js';
import { findGroupById } from '../features/groups/queries.js';
import { findUserById, findUserByLogin } from '../features/users/queries.js';
import { parseId } from '../lib/ids.js';
import { CliError } from './cli-error.js';

// The administration commands of issue 22, part 4 (`stats`, `users …`, `groups …`): each answers
// one JSON object, which runCli prints on stdout. Lists come in pages along their primary key.

type Options = Map<string, string | true>;

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;
/** Messages deleted per transaction when a group goes, so the writer is never held for long. */
const DELETE_BATCH = 500;

function value(options: Options, name: string): string | undefined {
  const given = options.get(name);
  if (given === true) throw new CliError(`--${name} needs a value`);
  return given;
}

/** `--limit N` (1 to 1000) and `--after ID`, the id the previous page answered as `next`. */
function pageOptions(options: Options): { limit: number; after: string | null } {
  for (const name of options.keys()) {
    if (name !== 'limit' && name !== 'after') throw new CliError(`Unknown option --${name}`);
  }
  const rawLimit = value(options, 'limit');
  const limit = rawLimit === undefined ? DEFAULT_PAGE : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new CliError(`--limit must be a whole number from 1 to ${MAX_PAGE}`);
  const rawAfter = value(options, 'after');
  const after = rawAfter === undefined ? null : parseId(rawAfter);
  if (after === null && rawAfter !== undefined)
    throw new CliError('--after must be an id a previous page gave as next');
  return { limit, after };
}

/** The account named by `--user`, an id or an e-mail address. */
async function targetUser(ctx: AppContext, options: Options): Promise<UserRow> {
  for (const name of options.keys()) if (name !== 'user') throw new CliError(`Unknown option --${name}`);
  const raw = value(options, 'user')?.trim();
  if (raw === undefined || raw === '') throw new CliError('Missing --user (an account id or e-mail address)');
  const id = parseId(raw);
  const login = id === null ? normalizeEmail(raw) : null;
  if (id === null && login === null) throw new CliError('--user must be an account id or an e-mail address');
  const user = id !== null ? await findUserById(ctx.db.kysely, id) : await findUserByLogin(ctx.db.kysely, login ?? '');
  if (user === undefined) throw new CliError(`No account is ${raw}`);
  return user;
}

function userOut(user: UserRow) {
  return {
    id: user.id,
    login: user.login,
    name: user.name,
    createdAt: Math.floor(user.created_at / 1000),
    lastActivityDate: Math.floor(user.last_activity_date / 1000),
    disabled: user.disabled_at !== null,
    storageBytes: user.storage_bytes,
  };
}

const count = (n: unknown): number => Number(n ?? 0);

/** `stats`: the instance at a glance. */
export async function stats(ctx: AppContext, options: Options) {
  if (options.size > 0) throw new CliError(`Unknown option --${[...options.keys()][0] ?? ''}`);
  const db = ctx.db.kysely;
  const [users, disabled, groups, messages, comments, storage, jobs, mails] = await Promise.all([
    db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('disabled_at', 'is not', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('groups')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('parent_id', 'is', null)
      .where('is_deleted', '=', 0)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('parent_id', 'is not', null)
      .where('is_deleted', '=', 0)
      .executeTakeFirstOrThrow(),
    db.selectFrom('instance_storage').select(['bytes', 'reserved']).where('id', '=', 1).executeTakeFirst(),
    db
      .selectFrom('jobs')
      .select(['status', (eb) => eb.fn.countAll().as('n')])
      .groupBy('status')
      .execute(),
    db
      .selectFrom('jobs')
      .select(['status', (eb) => eb.fn.countAll().as('n')])
      .where('name', '=', 'send-mail')
      .groupBy('status')
      .execute(),
  ]);
  const byState = (rows: { status: string; n: unknown }[]) => {
    const out: Record<string, number> = { queued: 0, running: 0, done: 0, failed: 0 };
    for (const row of rows) out[row.status] = count(row.n);
    return out;
  };
  return {
    users: count(users.n),
    disabledUsers: count(disabled.n),
    groups: count(groups.n),
    messages: count(messages.n),
    comments: count(comments.n),
    storage: {
      bytes: storage?.bytes ?? 0,
      uploadingBytes: storage?.reserved ?? 0,
      userLimitBytes: ctx.config.quota.userBytes,
      instanceLimitBytes: ctx.config.quota.instanceBytes,
    },
    jobs: byState(jobs),
    mailQueue: byState(mails),
  };
}

/** `users list [--limit N] [--after ID]`: one page of accounts, by id. */
async function listUsers(ctx: AppContext, options: Options) {
  const { limit, after } = pageOptions(options);
  const rows = await ctx.db.kysely
    .selectFrom('users')
    .selectAll()
    .$if(after !== null, (q) => q.where('id', '>', after ?? ''))
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return { users: page.map(userOut), next: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}

/**
 * `users disable --user …`: the key stops working on the next request (the account is read with
 * the key on every request; SQLite's memo of that read ends with any commit, this one included),
 * sign-in is refused and the open live streams close.
 */
async function disableUser(ctx: AppContext, options: Options) {
  const user = await targetUser(ctx, options);
  const updated = await transaction(ctx, async (tx, effects) => {
    await tx
      .updateTable('users')
      .set({ disabled_at: ctx.clock.now() })
      .where('id', '=', user.id)
      .where('disabled_at', 'is', null)
      .execute();
    // Every process closes this account's streams (through Redis in scale-out mode).
    effects.publish({ type: 'disconnect', userId: user.id });
    return tx.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
  });
  return { user: userOut(updated) };
}

/** `users enable --user …`: the same key and password work again. */
async function enableUser(ctx: AppContext, options: Options) {
  const user = await targetUser(ctx, options);
  const updated = await transaction(ctx, async (tx) => {
    await tx.updateTable('users').set({ disabled_at: null }).where('id', '=', user.id).execute();
    return tx.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
  });
  return { user: userOut(updated) };
}

/** `users delete --user …`: what DELETE /api/users/{id} does when the account deletes itself. */
async function deleteUserCommand(ctx: AppContext, options: Options) {
  const user = await targetUser(ctx, options);
  await deleteAccount(ctx, user);
  return { deleted: { id: user.id, login: user.login } };
}

/** `groups list [--limit N] [--after ID]`: one page of groups, by id, with their member counts. */
async function listGroups(ctx: AppContext, options: Options) {
  const { limit, after } = pageOptions(options);
  const db = ctx.db.kysely;
  const rows = await db
    .selectFrom('groups')
    .select(['id', 'name', 'created_at', 'last_activity_date', 'front_count', 'emptied_at'])
    .$if(after !== null, (q) => q.where('id', '>', after ?? ''))
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  // The page's member counts in one query.
  const members = new Map<string, number>();
  if (page.length > 0) {
    const counted = await db
      .selectFrom('memberships')
      .select(['group_id', (eb) => eb.fn.countAll().as('n')])
      .where(
        'group_id',
        'in',
        page.map((g) => g.id),
      )
      .groupBy('group_id')
      .execute();
    for (const row of counted) members.set(row.group_id, count(row.n));
  }
  return {
    groups: page.map((group) => ({
      id: group.id,
      name: group.name,
      createdAt: Math.floor(group.created_at / 1000),
      lastActivityDate: Math.floor(group.last_activity_date / 1000),
      members: members.get(group.id) ?? 0,
      frontMessages: group.front_count,
    })),
    next: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
}

/**
 * `groups delete --group ID`: the group and all it holds (messages, comments, memberships, its
 * notifications) go at once for its members; the messages go in batches first, so one large group
 * never holds the database writer for long. Files its messages carried are then unattached, and
 * the hourly clean-up removes them (and gives their space back) a day later, as for any message.
 */
async function deleteGroup(ctx: AppContext, options: Options) {
  for (const name of options.keys()) if (name !== 'group') throw new CliError(`Unknown option --${name}`);
  const raw = value(options, 'group');
  if (raw === undefined) throw new CliError('Missing --group (a group id)');
  const id = parseId(raw.trim());
  if (id === null) throw new CliError('--group must be a group id');
  const group = await findGroupById(ctx.db.kysely, id);
  if (group === undefined) throw new CliError(`No group has the id ${id}`);
  let messages = 0;
  for (;;) {
    const deleted = await transaction(ctx, async (tx) => {
      const batch = await tx
        .selectFrom('messages')
        .select('id')
        .where('group_id', '=', id)
        .orderBy('id')
        .limit(DELETE_BATCH)
        .execute();
      if (batch.length === 0) return 0;
      await tx
        .deleteFrom('messages')
        .where(
          'id',
          'in',
          batch.map((m) => m.id),
        )
        .execute();
      return batch.length;
    });
    if (deleted === 0) break;
    messages += deleted;
  }
  const members = await transaction(ctx, async (tx) => {
    const memberIds = await tx.selectFrom('memberships').select('user_id').where('group_id', '=', id).execute();
    await tx.deleteFrom('groups').where('id', '=', id).execute();
    // A member whose landing group this was lands on their first group again (docs/api §2.1).
    await tx.updateTable('users').set({ default_group_id: null }).where('default_group_id', '=', id).execute();
    return memberIds.length;
  });
  return { deleted: { id, name: group.name, messages, members } };
}

const SUBCOMMANDS: Record<string, Record<string, (ctx: AppContext, options: Options) => Promise<unknown>>> = {
  users: { list: listUsers, disable: disableUser, enable: enableUser, delete: deleteUserCommand },
  groups: { list: listGroups, delete: deleteGroup },
};

/** The sub-command of `users` or `groups` named by the first argument, or a CliError naming the choices. */
export function adminSubcommand(
  command: 'users' | 'groups',
  argv: string[],
): { run: (ctx: AppContext, options: Options) => Promise<unknown>; rest: string[] } {
  const [name, ...rest] = argv;
  const table = SUBCOMMANDS[command] ?? {};
  const run = name === undefined ? undefined : table[name];
  if (run === undefined) {
    throw new CliError(`${command} needs one of ${Object.keys(table).join(', ')} (got ${name ?? 'nothing'})`);
  }
  return { run, rest };
}
