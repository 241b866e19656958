import path from 'node:path';
import type { Readable } from 'node:stream';
import { isValidNewPassword, nameFromEmail, normalizeEmail, normalizeName } from '@kith/common';
import { pino } from 'pino';
import { loadConfig, type Config } from '../config.js';
import type { AppContext } from '../context.js';
import { transaction } from '../db/transaction.js';
import { newApiKey } from '../features/auth/api-keys.js';
import { insertUser } from '../features/auth/service.js';
import { exportGroupToFile } from '../features/exports/service.js';
import { findGroupById, findGroupByName } from '../features/groups/queries.js';
import type { GroupRow } from '../db/rows.js';
import { addMember, insertGroup } from '../features/groups/service.js';
import { notifyUsers } from '../features/notifications/service.js';
import { findUserByLogin } from '../features/users/queries.js';
import { newId, parseId } from '../lib/ids.js';
import { hashPassword } from '../lib/passwords.js';
import { closeContext, createContext } from '../setup.js';
import { backupCommand, restoreCommand } from './backup.js';
import { CliError, CliFailure } from './cli-error.js';
import { importZusam } from './import-zusam.js';
import { parseOptions } from './options.js';
import { migrateData } from './migrate-data.js';
import { receiveMailCli } from './receive-mail.js';
import { adminSubcommand, stats } from './admin.js';

const USAGE = `Usage: npm run kith -- <command> [options]

Commands:
  serve [--role web|worker|all]
      Run the server: web answers HTTP, worker runs background jobs and scheduled work, all (the
      default, as npm start) does both. web and worker need DATABASE_URL and REDIS_URL.
  create-user --email E --password P [--name N] [--group NAME]
      Create an account. With --group, the user joins the group of that name (created if none has it).
  create-group --name NAME --owner E
      Create a group whose first member is the account with e-mail E.
  invite-link --group ID [--reset]
      Print the invitation link of a group; --reset makes a new one (the old one stops working).
  notify --text TEXT [--target URL_OR_PATH]
      Send an announcement (a global notification) to every account.
  migrate-data --to postgres://… [--files-to s3] [--batch-size N]
      Copy this embedded instance (the SQLite database and, with --files-to s3, the files of DATA_DIR)
      into an empty PostgreSQL database and the S3 bucket of the S3_* settings, then verify the copy.
      The server must be stopped. Safe to run again after an interruption: it finishes the copy.
      Progress goes to stderr (docs/scale-out.md, "Moving an instance").
  backup [--to DIR] [--method auto|pg_dump|export]
      Back up the database and the files into a new folder of DIR (default BACKUP_DIR) while the
      server runs, then verify it. Files unchanged since the previous backup in DIR are hard links
      to its copy. PostgreSQL: pg_dump when usable (auto), else an export of every table (JSON lines).
      Prints the report; exit code 1 when the backup failed its verification (folder *.failed).
  restore BACKUP_FOLDER [--to DIR | --to postgres://…]
      Verify a backup, then restore it into an EMPTY data folder (SQLite backup) or database
      (PostgreSQL backup); default: DATA_DIR / DATABASE_URL. Files go to S3_BUCKET when set, else
      to DIR/files. Refuses a non-empty target without changing it (docs/operations.md).
  export-group --group ID [--to FILE]
      Export a whole group (every member's messages, comments and files, and the members' names)
      as the zip of a member's export (docs/operations.md, "Exports"), written to FILE (default
      kith-group-<ID>.zip in the current folder). Progress goes to stderr.
  import-zusam --db ZUSAM_DATA_DB --files ZUSAM_FILES_FOLDER [--batch-size N]
      Bring a Zusam 0.5 or 0.6 instance into this one: accounts (old passwords and API keys keep
      working), groups (old invitation links too), memberships, messages and comments, files,
      bookmarks, reactions and pins. Zusam's files are read-only to it. Run it again to bring what
      is new since; items already imported are left alone. Progress goes to stderr, the report
      (counts, and every item left out with why) to stdout (docs/operations.md, "Moving in from Zusam").
  receive-mail [--sender S] [--recipient R] < mail.eml
      Take in one reply to a notification e-mail (reply by e-mail, docs/mail-replies.md), for a mail
      server's pipe transport. Exit codes: 0 taken in (or refused with Kith's own bounce), 75 try
      again later, 78 reply by e-mail is off.
  stats
      Counts of users (and disabled ones), groups, messages, comments; stored bytes (and the bytes of
      uploads under way) with the quotas; jobs and queued e-mails by state.
  users list [--limit N] [--after ID]
      One page of accounts by id (100 by default, at most 1000), with their stored bytes. When more
      follow, "next" is the id to pass as --after for the next page.
  users disable --user ID|EMAIL
      Disable an account: its API key is refused from the next request (401 account_disabled), its
      live streams close, sign-in and password reset are refused. Its content stays.
  users enable --user ID|EMAIL
      Let a disabled account in again, with the same key and password.
  users delete --user ID|EMAIL
      Delete an account exactly as the person can from their settings (DELETE /api/users/{id}).
  groups list [--limit N] [--after ID]
      One page of groups by id, with member counts; "next" as for users list.
  groups delete --group ID
      Delete a group with its messages, comments and memberships. Files only its messages carried
      are removed by the hourly clean-up a day later.

Output is JSON on stdout; errors go to stderr with a non-zero exit code.`;

function required(options: Map<string, string | true>, name: string): string {
  const value = options.get(name);
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`Missing --${name}`);
  return value;
}

function optional(options: Map<string, string | true>, name: string): string | undefined {
  const value = options.get(name);
  if (value === true) throw new CliError(`--${name} needs a value`);
  return value;
}

function groupOut(group: GroupRow) {
  return { id: group.id, name: group.name, inviteKey: group.secret_key };
}

async function createUser(ctx: AppContext, options: Map<string, string | true>) {
  const login = normalizeEmail(required(options, 'email'));
  if (login === null) throw new CliError('--email is not a valid e-mail address');
  const password = required(options, 'password');
  if (!isValidNewPassword(password)) throw new CliError('--password must be 8 to 128 characters');
  const rawName = optional(options, 'name');
  const name = rawName === undefined ? nameFromEmail(login) : normalizeName(rawName);
  if (name === null) throw new CliError('--name must be 1 to 128 characters, without < > or control characters');
  const rawGroup = optional(options, 'group');
  const groupName = rawGroup === undefined ? undefined : normalizeName(rawGroup);
  if (groupName === null) throw new CliError('--group must be 1 to 128 characters, without < > or control characters');

  const passwordHash = await hashPassword(password);
  const apiKey = newApiKey(ctx);
  return transaction(ctx, async (tx, effects) => {
    if ((await findUserByLogin(tx, login)) !== undefined) throw new CliError(`An account already uses ${login}`);
    const now = ctx.clock.now();
    const user = await insertUser(tx, {
      login,
      name,
      passwordHash,
      apiKey,
      notificationEmails: ctx.config.defaultNotificationEmails,
      now,
    });
    const out: Record<string, unknown> = {
      user: { id: user.id, login: user.login, name: user.name },
      apiKey: apiKey.key,
    };
    if (groupName !== undefined) {
      const group = (await findGroupByName(tx, groupName)) ?? (await insertGroup(tx, groupName, now));
      await addMember(tx, effects, group, user, now, { notify: true });
      out.group = groupOut(group);
    }
    return out;
  });
}

async function createGroup(ctx: AppContext, options: Map<string, string | true>) {
  const name = normalizeName(required(options, 'name'));
  if (name === null) throw new CliError('--name must be 1 to 128 characters, without < > or control characters');
  const login = normalizeEmail(required(options, 'owner'));
  if (login === null) throw new CliError('--owner must be the e-mail address of an account');
  return transaction(ctx, async (tx, effects) => {
    const owner = await findUserByLogin(tx, login);
    if (owner === undefined) throw new CliError(`No account uses ${login}`);
    const now = ctx.clock.now();
    const group = await insertGroup(tx, name, now);
    await addMember(tx, effects, group, owner, now, { notify: false });
    return { group: groupOut(group) };
  });
}

async function inviteLink(ctx: AppContext, options: Map<string, string | true>) {
  const id = parseId(required(options, 'group'));
  if (id === null) throw new CliError('--group must be a group id');
  const reset = options.get('reset') === true;
  return transaction(ctx, async (tx) => {
    let group = await findGroupById(tx, id);
    if (group === undefined) throw new CliError(`No group has the id ${id}`);
    if (reset) {
      group = { ...group, secret_key: newId() };
      await tx.updateTable('groups').set({ secret_key: group.secret_key }).where('id', '=', id).execute();
    }
    return { group: groupOut(group), url: `${ctx.config.publicUrl}/invitation/${group.secret_key}` };
  });
}

// Announcements are short; the notification list shows them whole.
const MAX_ANNOUNCEMENT = 1000;

async function notify(ctx: AppContext, options: Map<string, string | true>) {
  const text = required(options, 'text').trim();
  if (text.length > MAX_ANNOUNCEMENT) throw new CliError(`--text must be at most ${MAX_ANNOUNCEMENT} characters`);
  const target = optional(options, 'target')?.trim() ?? '/';
  if (!/^(\/|https?:\/\/)\S*$/.test(target))
    throw new CliError('--target must be a path starting with / or an http(s) URL');
  return transaction(ctx, async (tx, effects) => {
    const users = await tx.selectFrom('users').select('id').execute();
    const created = await notifyUsers(
      tx,
      effects,
      users.map((u) => u.id),
      { type: 'global_notification', target, fromUserId: null, fromGroupId: null, fromMessageId: null, data: { text } },
      ctx.clock.now(),
    );
    return { notified: created.length };
  });
}

// Rows per transaction: enough that round trips do not dominate, few enough that each transaction
// stays short and a batch of rows small in memory.
const DEFAULT_BATCH_SIZE = 1000;
const MAX_BATCH_SIZE = 10_000;

async function migrateDataCommand(config: Config, options: Map<string, string | true>, io: CliIo) {
  const to = required(options, 'to');
  const filesTo = optional(options, 'files-to');
  if (filesTo !== undefined && filesTo !== 's3') throw new CliError('--files-to must be s3');
  const rawBatch = optional(options, 'batch-size');
  const batchSize = rawBatch === undefined ? DEFAULT_BATCH_SIZE : Number(rawBatch);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE)
    throw new CliError(`--batch-size must be a whole number from 1 to ${MAX_BATCH_SIZE}`);
  return migrateData(config, { to, filesToS3: filesTo === 's3', batchSize }, { progress: io.stderr });
}

async function exportGroup(ctx: AppContext, options: Map<string, string | true>, io: CliIo) {
  const id = parseId(required(options, 'group'));
  if (id === null) throw new CliError('--group must be a group id');
  const to = path.resolve(optional(options, 'to') ?? `kith-group-${id}.zip`);
  let reported = 0;
  const summary = await exportGroupToFile(ctx, id, to, (written) => {
    // A line every 1000 messages (and the first page): enough to see it move, few enough to read.
    if (written - reported >= 1000 || reported === 0) {
      reported = written;
      io.stderr(`export-group: ${written} messages and comments written\n`);
    }
  });
  if (summary === null) throw new CliError(`No group has the id ${id}`);
  io.stderr(`export-group: done, ${summary.size} bytes in ${summary.file}\n`);
  return summary;
}

const COMMANDS: Record<string, (ctx: AppContext, options: Map<string, string | true>, io: CliIo) => Promise<unknown>> =
  {
    'create-user': createUser,
    'create-group': createGroup,
    'invite-link': inviteLink,
    notify,
    stats,
    'export-group': exportGroup,
  };

// Small batches: every message of a batch may carry files, streamed through the upload pipeline.
const DEFAULT_IMPORT_BATCH = 200;

async function importZusamCommand(config: Config, options: Map<string, string | true>, io: CliIo) {
  const dbPath = path.resolve(required(options, 'db'));
  const filesDir = path.resolve(required(options, 'files'));
  const rawBatch = optional(options, 'batch-size');
  const batchSize = rawBatch === undefined ? DEFAULT_IMPORT_BATCH : Number(rawBatch);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE)
    throw new CliError(`--batch-size must be a whole number from 1 to ${MAX_BATCH_SIZE}`);
  const unknown = [...options.keys()].filter((name) => !['db', 'files', 'batch-size'].includes(name));
  if (unknown.length > 0) throw new CliError(`Unknown option --${unknown[0]}`);
  const ctx = await createContext(config, { log: pino({ level: 'warn' }, pino.destination(2)) });
  try {
    return await importZusam(ctx, { dbPath, filesDir, batchSize }, io.stderr);
  } finally {
    await closeContext(ctx);
  }
}

/** Commands that open the stores themselves rather than through the app's context. */
const STANDALONE_COMMANDS: Record<
  string,
  (config: Config, options: Map<string, string | true>, io: CliIo) => Promise<unknown>
> = {
  'migrate-data': migrateDataCommand,
  backup: backupCommand,
  'import-zusam': importZusamCommand,
};

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: Record<string, string | undefined>;
  /** What `receive-mail` reads (default: the process's stdin). */
  stdin?: Readable;
}

/**
 * Runs one admin command against the configured database (the same `DATA_DIR`/`DATABASE_URL` as
 * the server, also while it runs; migrate-data refuses to run beside it). Returns the exit code.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help') {
    io.stderr(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  // A pipe transport's command, with the exit codes mail servers understand (not 0/1).
  if (command === 'receive-mail') return receiveMailCli(rest, { ...io, stdin: io.stdin ?? process.stdin });
  if (command === 'restore') return restoreCommand(rest, io);
  // `users …` and `groups …` name a sub-command first, then its options.
  let run = COMMANDS[command];
  if (command === 'users' || command === 'groups') {
    try {
      const sub = adminSubcommand(command, rest);
      run = sub.run;
      rest.splice(0, rest.length, ...sub.rest);
    } catch (error) {
      io.stderr(`kith ${command}: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
      return 2;
    }
  }
  const standalone = STANDALONE_COMMANDS[command];
  if (run === undefined && standalone === undefined) {
    io.stderr(`Unknown command "${command}".\n\n${USAGE}\n`);
    return 2;
  }
  let ctx: AppContext | undefined;
  try {
    const options = parseOptions(rest);
    const config = loadConfig(io.env ?? process.env);
    let result: unknown;
    if (standalone !== undefined) {
      result = await standalone(config, options, io);
    } else if (run !== undefined) {
      // Logs go to stderr so that stdout carries only the JSON answer.
      ctx = await createContext(config, { log: pino({ level: 'warn' }, pino.destination(2)) });
      result = await run(ctx, options, io);
    }
    io.stdout(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CliFailure) io.stdout(`${JSON.stringify(error.output)}\n`);
    io.stderr(`kith ${command}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    if (ctx !== undefined) await closeContext(ctx);
  }
}
