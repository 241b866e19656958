import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  NOTIFICATION_EMAIL_FREQUENCIES,
  isValidLangCode,
  nameFromEmail,
  normalizeEmail,
  normalizeName,
} from '@kith/common';
import Database from 'better-sqlite3';
import type { AppContext } from '../context.js';
import type { UserRow } from '../db/rows.js';
import { transaction, type Tx } from '../db/transaction.js';
import { apiKeyHash } from '../features/auth/api-keys.js';
import { insertUserRow } from '../features/auth/queries.js';
import { insertFile } from '../features/files/queries.js';
import { discardUpload, receiveUpload } from '../features/files/service.js';
import { newId } from '../lib/ids.js';
import { CliError } from './cli-error.js';

// `npm run kith -- import-zusam --db data.db --files files/` (docs/operations.md, "Moving in from
// Zusam"): brings a Zusam 0.5.6 or 0.6.x instance (/work/shared/spec/zusam-data.md) into this one.
// The Zusam database is only read. Every batch of items is one Kith transaction that also records,
// in `zusam_imports` (migration 0023), what each Zusam id became, so a run cut anywhere, or run
// again later, adds exactly what is not there yet. Rows are read a batch at a time (keyset pages,
// or an iterator on a second connection), files are streamed through the upload pipeline.

/** The kinds of items imported, in the order they are imported. */
const KINDS = ['users', 'files', 'groups', 'memberships', 'messages', 'bookmarks', 'reactions'] as const;
type Kind = (typeof KINDS)[number];

/** The `zusam_imports.kind` of each kind of item. */
const MAP_KIND: Record<Kind, string> = {
  users: 'user',
  files: 'file',
  groups: 'group',
  memberships: 'membership',
  messages: 'message',
  bookmarks: 'bookmark',
  reactions: 'reaction',
};

/** One item not imported, or imported with a change, and why. */
export interface ImportNote {
  kind: Kind;
  zusamId: string;
  reason: string;
}

/** What `import-zusam` prints on stdout. */
export interface ImportReport {
  zusamVersion: '0.5' | '0.6';
  counts: Record<Kind, { imported: number; alreadyThere: number; skipped: number }>;
  /** Every item not imported, with why. */
  skipped: ImportNote[];
  /** Items imported with a change (an author gone, a new id or key because the old one was taken…). */
  adjusted: ImportNote[];
}

export interface ImportZusamRequest {
  dbPath: string;
  filesDir: string;
  batchSize: number;
}

type ZusamRow = Record<string, unknown>;

/** Zusam times are Unix seconds; Kith's are milliseconds. */
function ms(seconds: unknown, fallback: number): number {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? Math.trunc(seconds * 1000) : fallback;
}

/** A text column's value, or '' when it is NULL or not text. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A Zusam JSON column as an object: `[]`, null, NULL and unreadable text are all `{}` (§2). */
function jsonObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

interface QuillOp {
  insert?: unknown;
  attributes?: Record<string, unknown>;
}

/**
 * A message text of Zusam as Kith's plain text (§5.1): plain text as it is; a 0.6.1 Quill text
 * (a JSON string with `delta` and `textOnly`) rebuilt from its delta, list lines marked with
 * "• " or "1. ", a link whose words are not its URL followed by the URL in parentheses, embeds
 * dropped, and Quill's final newline removed.
 */
export function zusamTextToKith(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  type Quill = { delta?: { ops?: unknown }; textOnly?: unknown };
  let quill: Quill | null = null;
  if (text.trimStart().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && 'textOnly' in parsed) quill = parsed;
    } catch {
      quill = null;
    }
  }
  if (quill === null) return text;
  const ops = Array.isArray(quill.delta?.ops) ? (quill.delta.ops as QuillOp[]) : null;
  let out: string;
  if (ops === null) {
    out = typeof quill.textOnly === 'string' ? quill.textOnly : '';
  } else {
    const lines: string[] = [];
    let line = '';
    let ordered = 0;
    for (const op of ops) {
      if (typeof op.insert !== 'string') continue;
      const link = op.attributes?.link;
      const parts = op.insert.split('\n');
      parts.forEach((part, index) => {
        if (index > 0) {
          // Quill puts a line's block format (a list) on the newline that ends it.
          const list = op.attributes?.list;
          if (list === 'ordered') {
            ordered += 1;
            line = `${ordered}. ${line}`;
          } else {
            if (list === 'bullet' || list === 'checked' || list === 'unchecked') line = `• ${line}`;
            ordered = 0;
          }
          lines.push(line);
          line = '';
        }
        line += part;
        if (typeof link === 'string' && part !== '' && part.trim() !== link) line += ` (${link})`;
      });
    }
    if (line !== '') lines.push(line);
    out = lines.join('\n');
  }
  return out.replace(/\n$/, '');
}

/** The file store key of a Zusam disk name, or null when it is not a plain name of that folder. */
function safeDiskName(contentUrl: unknown): string | null {
  return typeof contentUrl === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(contentUrl) ? contentUrl : null;
}

class Importer {
  private readonly report: ImportReport;
  /** Users made by this run whose Zusam `default_group` is applied once memberships are in. */
  private readonly defaultGroups = new Map<string, string>();
  /** (user, message) pairs bookmarked by this run: a second row of a pair is a duplicate (§4.8). */
  private readonly bookmarkedNow = new Set<string>();
  private lastProgress = '';

  constructor(
    private readonly ctx: AppContext,
    private readonly source: Database.Database,
    private readonly request: ImportZusamRequest,
    private readonly progress: (line: string) => void,
    private readonly version: '0.5' | '0.6',
  ) {
    const counts = Object.fromEntries(KINDS.map((k) => [k, { imported: 0, alreadyThere: 0, skipped: 0 }]));
    this.report = { zusamVersion: version, counts: counts as ImportReport['counts'], skipped: [], adjusted: [] };
  }

  private skip(kind: Kind, zusamId: string, reason: string): void {
    this.report.counts[kind].skipped += 1;
    this.report.skipped.push({ kind, zusamId, reason });
  }

  private adjust(kind: Kind, zusamId: string, reason: string): void {
    this.report.adjusted.push({ kind, zusamId, reason });
  }

  private tell(kind: Kind, done: boolean): void {
    const c = this.report.counts[kind];
    const line = `${kind}: ${c.imported} imported, ${c.alreadyThere} already there, ${c.skipped} skipped${done ? ' (done)' : ''}`;
    if (line !== this.lastProgress) this.progress(`${line}\n`);
    this.lastProgress = line;
  }

  /** What the Zusam ids of one kind became in earlier runs (or earlier batches of this one). */
  private async mapped(kind: Kind, zusamIds: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const unique = [...new Set(zusamIds)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = await this.ctx.db.kysely
        .selectFrom('zusam_imports')
        .select(['zusam_id', 'kith_id'])
        .where('kind', '=', MAP_KIND[kind])
        .where('zusam_id', 'in', unique.slice(i, i + 500))
        .execute();
      for (const row of rows) found.set(row.zusam_id, row.kith_id);
    }
    return found;
  }

  private async remember(tx: Tx, kind: Kind, zusamId: string, kithId: string): Promise<void> {
    await tx
      .insertInto('zusam_imports')
      .values({ kind: MAP_KIND[kind], zusam_id: zusamId, kith_id: kithId, imported_at: this.ctx.clock.now() })
      .execute();
  }

  /** Pages of a Zusam table in the order of its text key `key`, `batchSize` rows at a time. */
  private *pages(sqlBody: string, key: string): Generator<ZusamRow[]> {
    const statement = this.source.prepare(`${sqlBody} WHERE ${key} > ? ORDER BY ${key} LIMIT ?`);
    let after = '';
    for (;;) {
      const rows = statement.all(after, this.request.batchSize) as ZusamRow[];
      if (rows.length === 0) return;
      yield rows;
      after = String(rows.at(-1)?.[key.replace(/^.*\./, '')]);
    }
  }

  private hasColumn(table: string, column: string): boolean {
    const columns = this.source.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[];
    return columns.some((c) => c.name === column);
  }

  async run(): Promise<ImportReport> {
    await this.importUsers();
    await this.importFiles();
    await this.importGroups();
    await this.importMemberships();
    await this.applyDefaultGroups();
    await this.importMessages();
    await this.importBookmarks();
    if (this.version === '0.6') await this.importReactions();
    else this.tell('reactions', true);
    return this.report;
  }

  private async importUsers(): Promise<void> {
    for (const rows of this.pages('SELECT * FROM "user"', 'id')) {
      const ids = rows.map((r) => String(r.id));
      const done = await this.mapped('users', ids);
      const taken = new Set(
        (await this.ctx.db.kysely.selectFrom('users').select('id').where('id', 'in', ids).execute()).map((r) => r.id),
      );
      await transaction(this.ctx, async (tx) => {
        for (const row of rows) {
          const zusamId = String(row.id);
          if (done.has(zusamId)) {
            this.report.counts.users.alreadyThere += 1;
            continue;
          }
          const login = normalizeEmail(textOf(row.login));
          if (login === null) {
            this.skip('users', zusamId, 'the login is not an e-mail address');
            continue;
          }
          const existing = await tx.selectFrom('users').select('id').where('login', '=', login).executeTakeFirst();
          if (existing !== undefined) {
            // The same person already has a Kith account (made before the move): theirs is kept.
            await this.remember(tx, 'users', zusamId, existing.id);
            this.report.counts.users.alreadyThere += 1;
            this.adjust('users', zusamId, 'an account with this login already existed in Kith: the two are one now');
            continue;
          }
          const data = jsonObject(row.data);
          const apiKey = textOf(row.secret_key);
          let keyHash = apiKeyHash(apiKey);
          let key = apiKey;
          const keyTaken =
            apiKey === '' ||
            (await tx.selectFrom('users').select('id').where('api_key_hash', '=', keyHash).executeTakeFirst()) !==
              undefined;
          if (keyTaken) {
            key = newId();
            keyHash = apiKeyHash(key);
            this.adjust('users', zusamId, 'the API key was empty or already in use: a new one was made');
          }
          const emails = data.notification_emails;
          const frequencies: readonly string[] = NOTIFICATION_EMAIL_FREQUENCIES;
          // Missing means no mail in 0.5 and the server default (immediately) in 0.6 (§5.2).
          const notificationEmails =
            typeof emails === 'string' && frequencies.includes(emails)
              ? emails
              : this.version === '0.5'
                ? 'none'
                : 'immediately';
          const lang = typeof data.lang === 'string' && isValidLangCode(data.lang) ? data.lang : null;
          const defaultPage =
            data.default_page === 'feed' || data.default_page === 'default_group' ? data.default_page : null;
          const kithId = taken.has(zusamId) ? newId() : zusamId;
          if (kithId !== zusamId) this.adjust('users', zusamId, `the id was taken in Kith: imported as ${kithId}`);
          const created = ms(row.created_at, this.ctx.clock.now());
          const user: UserRow = {
            id: kithId,
            login,
            name: normalizeName(textOf(row.name)) ?? nameFromEmail(login),
            // As Zusam stored it (bcrypt or argon2): checked at the first login, then replaced.
            password_hash: typeof row.password === 'string' ? row.password : '',
            api_key_hash: keyHash,
            api_key_enc: this.ctx.secretBox.seal(key),
            api_key_version: 1,
            avatar_id: null,
            default_group_id: null,
            notification_emails: notificationEmails,
            lang,
            theme: null,
            default_page: defaultPage,
            push_notifications: null,
            quiet_hours: null,
            time_zone: null,
            push_cursor: null,
            mention_emails: null,
            created_at: created,
            last_activity_date: ms(row.last_activity_date, created),
            // Counted by the files' triggers as the import stores this user's files.
            storage_bytes: 0,
            storage_reserved: 0,
            disabled_at: null,
            notifications_read_until: null,
          };
          await insertUserRow(tx, user);
          await this.remember(tx, 'users', zusamId, kithId);
          if (typeof data.default_group === 'string') this.defaultGroups.set(kithId, data.default_group);
          this.report.counts.users.imported += 1;
        }
      });
      this.tell('users', false);
    }
    this.tell('users', true);
  }

  /** Files attached to a message or used as an avatar; link preview pictures are made again by Kith. */
  private async importFiles(): Promise<void> {
    const sqlBody = `SELECT f.id, f.created_at, f.content_url,
        (SELECT u.id FROM "user" u WHERE u.avatar_id = f.id LIMIT 1) AS avatar_of,
        (SELECT m.author_id FROM messages_files mf JOIN message m ON m.id = mf.message_id
          WHERE mf.file_id = f.id ORDER BY m.created_at LIMIT 1) AS author_id
      FROM file f`;
    const used = `EXISTS (SELECT 1 FROM messages_files mf WHERE mf.file_id = f.id)
        OR EXISTS (SELECT 1 FROM "user" u WHERE u.avatar_id = f.id)`;
    for (const rows of this.pages(`SELECT * FROM (${sqlBody} WHERE ${used})`, 'id')) {
      const ids = rows.map((r) => String(r.id));
      const done = await this.mapped('files', ids);
      const users = await this.mapped(
        'users',
        rows.flatMap((r) => [r.avatar_of, r.author_id].filter((v): v is string => typeof v === 'string')),
      );
      for (const row of rows) {
        const zusamId = String(row.id);
        if (done.has(zusamId)) {
          this.report.counts.files.alreadyThere += 1;
          continue;
        }
        const name = safeDiskName(row.content_url);
        const diskPath = name === null ? null : path.join(this.request.filesDir, name);
        if (diskPath === null || !existsSync(diskPath) || statSync(diskPath).size === 0) {
          this.skip('files', zusamId, `its bytes are missing from the files folder (${String(row.content_url)})`);
          continue;
        }
        const uploader = [row.avatar_of, row.author_id]
          .map((v) => (typeof v === 'string' ? users.get(v) : undefined))
          .find((v) => v !== undefined);
        const taken = await this.ctx.db.kysely
          .selectFrom('files')
          .select('id')
          .where('id', '=', zusamId)
          .executeTakeFirst();
        const kithId = taken === undefined ? zusamId : newId();
        if (kithId !== zusamId) this.adjust('files', zusamId, `the id was taken in Kith: imported as ${kithId}`);
        let upload;
        try {
          upload = await receiveUpload(
            this.ctx,
            uploader === undefined ? null : { id: uploader },
            createReadStream(diskPath),
            name ?? undefined,
            { id: kithId },
          );
        } catch (error) {
          this.skip('files', zusamId, `not accepted: ${error instanceof Error ? error.message : String(error)}`);
          continue;
        }
        const created = ms(row.created_at, upload.row.created_at);
        const fileRow = { ...upload.row, created_at: created, updated_at: created };
        try {
          // The conversion job of a video exists exactly when its row does, as for an upload.
          await transaction(this.ctx, async (tx, effects) => {
            await insertFile(tx, fileRow);
            if (upload.job !== null) await effects.enqueue(upload.job, { fileId: fileRow.id });
            await this.remember(tx, 'files', zusamId, kithId);
            if (typeof row.avatar_of === 'string') {
              const owner = users.get(row.avatar_of);
              if (owner !== undefined)
                await tx.updateTable('users').set({ avatar_id: kithId }).where('id', '=', owner).execute();
            }
          });
        } catch (error) {
          await discardUpload(this.ctx, upload);
          throw error;
        }
        this.report.counts.files.imported += 1;
      }
      this.tell('files', false);
    }
    this.tell('files', true);
  }

  private async importGroups(): Promise<void> {
    const inviteColumn = this.hasColumn('group', 'invite_key') ? 'invite_key' : 'secret_key';
    for (const rows of this.pages(
      `SELECT id, name, created_at, last_activity_date, ${inviteColumn} AS invite FROM "group"`,
      'id',
    )) {
      const ids = rows.map((r) => String(r.id));
      const done = await this.mapped('groups', ids);
      await transaction(this.ctx, async (tx) => {
        for (const row of rows) {
          const zusamId = String(row.id);
          if (done.has(zusamId)) {
            this.report.counts.groups.alreadyThere += 1;
            continue;
          }
          let invite = typeof row.invite === 'string' && row.invite !== '' ? row.invite : null;
          if (
            invite === null ||
            (await tx.selectFrom('groups').select('id').where('secret_key', '=', invite).executeTakeFirst()) !==
              undefined
          ) {
            invite = newId();
            this.adjust('groups', zusamId, 'the invitation key was missing or already in use: old links do not work');
          }
          const taken = await tx.selectFrom('groups').select('id').where('id', '=', zusamId).executeTakeFirst();
          const kithId = taken === undefined ? zusamId : newId();
          if (kithId !== zusamId) this.adjust('groups', zusamId, `the id was taken in Kith: imported as ${kithId}`);
          const created = ms(row.created_at, this.ctx.clock.now());
          await tx
            .insertInto('groups')
            .values({
              id: kithId,
              name: normalizeName(textOf(row.name)) ?? 'Zusam',
              secret_key: invite,
              created_at: created,
              last_activity_date: ms(row.last_activity_date, created),
              emptied_at: null,
            })
            .execute();
          await this.remember(tx, 'groups', zusamId, kithId);
          this.report.counts.groups.imported += 1;
        }
      });
      this.tell('groups', false);
    }
    this.tell('groups', true);
  }

  private async importMemberships(): Promise<void> {
    const body = `SELECT * FROM (SELECT user_id || ':' || group_id AS pair, user_id, group_id FROM users_groups)`;
    for (const rows of this.pages(body, 'pair')) {
      const done = await this.mapped(
        'memberships',
        rows.map((r) => String(r.pair)),
      );
      const users = await this.mapped(
        'users',
        rows.map((r) => String(r.user_id)),
      );
      const groups = await this.mapped(
        'groups',
        rows.map((r) => String(r.group_id)),
      );
      await transaction(this.ctx, async (tx) => {
        for (const row of rows) {
          const pair = String(row.pair);
          if (done.has(pair)) {
            this.report.counts.memberships.alreadyThere += 1;
            continue;
          }
          const userId = users.get(String(row.user_id));
          const groupId = groups.get(String(row.group_id));
          if (userId === undefined || groupId === undefined) {
            this.skip('memberships', pair, userId === undefined ? 'the user is gone' : 'the group is gone');
            continue;
          }
          const group = await tx.selectFrom('groups').select('created_at').where('id', '=', groupId).executeTakeFirst();
          // Zusam keeps no join date: the group's creation stands for it.
          await tx
            .insertInto('memberships')
            .values({ group_id: groupId, user_id: userId, joined_at: group?.created_at ?? this.ctx.clock.now() })
            .onConflict((oc) => oc.doNothing())
            .execute();
          await this.remember(tx, 'memberships', pair, `${userId}:${groupId}`);
          this.report.counts.memberships.imported += 1;
        }
      });
      this.tell('memberships', false);
    }
    this.tell('memberships', true);
  }

  /** A Zusam `default_group` is kept only when the user is a member of it (§7). */
  private async applyDefaultGroups(): Promise<void> {
    const entries = [...this.defaultGroups];
    const groups = await this.mapped(
      'groups',
      entries.map(([, g]) => g),
    );
    for (const [userId, zusamGroup] of entries) {
      const groupId = groups.get(zusamGroup);
      if (groupId === undefined) continue;
      await this.ctx.db.kysely
        .updateTable('users')
        .set({ default_group_id: groupId })
        .where('id', '=', userId)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('memberships')
              .select('user_id')
              .where('memberships.user_id', '=', userId)
              .where('memberships.group_id', '=', groupId),
          ),
        )
        .execute();
    }
  }

  /**
   * Messages parents first: a recursive query from the posts down gives each message its depth,
   * read in that order through an iterator on a second connection (the first answers the
   * per-batch questions meanwhile). Messages no post leads to (their parent is gone) are left out.
   */
  private async importMessages(): Promise<void> {
    const hasSortOrder = this.hasColumn('message', 'sort_order');
    const reader = new Database(this.request.dbPath, { readonly: true, fileMustExist: true });
    try {
      const walk = reader
        .prepare(
          `WITH RECURSIVE tree(id, depth) AS (
             SELECT id, 0 FROM message WHERE parent_id IS NULL
             UNION ALL SELECT m.id, tree.depth + 1 FROM message m JOIN tree ON m.parent_id = tree.id)
           SELECT m.id, m.author_id, m.group_id, m.parent_id, m.created_at, m.data, m.last_activity_date,
             m.is_in_front${hasSortOrder ? ', m.sort_order' : ', NULL AS sort_order'}
           FROM tree JOIN message m ON m.id = tree.id ORDER BY tree.depth, m.id`,
        )
        .iterate() as IterableIterator<ZusamRow>;
      let batch: ZusamRow[] = [];
      for (const row of walk) {
        batch.push(row);
        if (batch.length >= this.request.batchSize) {
          await this.importMessageBatch(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await this.importMessageBatch(batch);
    } finally {
      reader.close();
    }
    // What the walk did not reach: comments whose parent (or an ancestor's) is gone.
    const unreached = this.source
      .prepare(
        `WITH RECURSIVE tree(id) AS (
           SELECT id FROM message WHERE parent_id IS NULL
           UNION ALL SELECT m.id FROM message m JOIN tree ON m.parent_id = tree.id)
         SELECT id FROM message WHERE id NOT IN (SELECT id FROM tree) ORDER BY id`,
      )
      .iterate() as IterableIterator<{ id: string }>;
    const orphans = [...unreached].map((r) => r.id);
    const done = await this.mapped('messages', orphans);
    for (const id of orphans) {
      if (done.has(id)) this.report.counts.messages.alreadyThere += 1;
      else this.skip('messages', id, 'a comment whose parent is gone');
    }
    this.tell('messages', true);
  }

  private async importMessageBatch(rows: ZusamRow[]): Promise<void> {
    const ids = rows.map((r) => String(r.id));
    const done = await this.mapped('messages', ids);
    const groups = await this.mapped(
      'groups',
      rows.map((r) => String(r.group_id)),
    );
    const authors = await this.mapped(
      'users',
      rows.map((r) => r.author_id).filter((v): v is string => typeof v === 'string'),
    );
    const parents = await this.mapped(
      'messages',
      rows.map((r) => r.parent_id).filter((v): v is string => typeof v === 'string'),
    );
    const attachments = this.attachmentsOf(ids.filter((id) => !done.has(id)));
    const files = await this.mapped('files', [...attachments.values()].flat());
    const names = new Map(
      (
        await this.ctx.db.kysely
          .selectFrom('users')
          .select(['id', 'name'])
          .where('id', 'in', ['', ...new Set(authors.values())])
          .execute()
      ).map((u) => [u.id, u.name]),
    );
    await transaction(this.ctx, async (tx) => {
      const takenIds = new Set(
        (await tx.selectFrom('messages').select('id').where('id', 'in', ids).execute()).map((r) => r.id),
      );
      for (const row of rows) {
        const zusamId = String(row.id);
        if (done.has(zusamId)) {
          this.report.counts.messages.alreadyThere += 1;
          continue;
        }
        const groupId = groups.get(String(row.group_id));
        if (groupId === undefined) {
          this.skip('messages', zusamId, 'its group is gone');
          continue;
        }
        let parent: { id: string; root_id: string; lineage: string; group_id: string } | undefined;
        if (typeof row.parent_id === 'string') {
          const parentId = parents.get(row.parent_id);
          parent =
            parentId === undefined
              ? undefined
              : await tx
                  .selectFrom('messages')
                  .select(['id', 'root_id', 'lineage', 'group_id'])
                  .where('id', '=', parentId)
                  .executeTakeFirst();
          if (parent === undefined) {
            this.skip('messages', zusamId, 'its parent was not imported');
            continue;
          }
          if (parent.group_id !== groupId) {
            this.skip('messages', zusamId, 'its parent is in another group');
            continue;
          }
        }
        const authorId = typeof row.author_id === 'string' ? (authors.get(row.author_id) ?? null) : null;
        if (authorId === null) this.adjust('messages', zusamId, 'its author is gone: imported without one');
        const kithId = takenIds.has(zusamId) ? newId() : zusamId;
        if (kithId !== zusamId) this.adjust('messages', zusamId, `the id was taken in Kith: imported as ${kithId}`);
        const data = jsonObject(row.data);
        const title = typeof data.title === 'string' && data.title.trim() !== '' ? data.title : null;
        const text = zusamTextToKith(data.text);
        const ancestors = parent === undefined ? [] : [parent.id, ...(JSON.parse(parent.lineage) as string[])];
        const created = ms(row.created_at, this.ctx.clock.now());
        const pin = typeof row.sort_order === 'number' && parent === undefined ? row.sort_order : null;
        await tx
          .insertInto('messages')
          .values({
            id: kithId,
            group_id: groupId,
            author_id: authorId,
            parent_id: parent?.id ?? null,
            root_id: ancestors.at(-1) ?? kithId,
            lineage: JSON.stringify(ancestors),
            title,
            text: text === '' ? null : text,
            no_embed: typeof data.no_embed === 'boolean' ? (data.no_embed ? 1 : 0) : null,
            created_at: created,
            last_activity_date: ms(row.last_activity_date, created),
            is_in_front: row.is_in_front === 1 ? 1 : 0,
            is_deleted: 0,
            public_token: null,
            pin_order: pin,
          })
          .execute();
        const fileIds: string[] = [];
        for (const fileId of attachments.get(zusamId) ?? []) {
          const kithFile = files.get(fileId);
          if (kithFile === undefined) this.adjust('messages', zusamId, `its file ${fileId} was not imported`);
          else if (!fileIds.includes(kithFile)) fileIds.push(kithFile);
        }
        if (fileIds.length > 0)
          await tx
            .insertInto('message_files')
            .values(fileIds.map((fileId, position) => ({ message_id: kithId, file_id: fileId, position })))
            .execute();
        await this.ctx.search.upsert(tx, [
          { id: kithId, groupId, title, text, authorName: authorId === null ? null : (names.get(authorId) ?? null) },
        ]);
        await this.remember(tx, 'messages', zusamId, kithId);
        parents.set(zusamId, kithId);
        this.report.counts.messages.imported += 1;
      }
    });
    this.tell('messages', false);
  }

  /** The files of messages in Zusam's order: `file_index` (NULL first), then attachment order (§4.5). */
  private attachmentsOf(messageIds: string[]): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (messageIds.length === 0) return out;
    const rows = this.source
      .prepare(
        `SELECT mf.message_id, mf.file_id FROM messages_files mf LEFT JOIN file f ON f.id = mf.file_id
         WHERE mf.message_id IN (SELECT value FROM json_each(?)) ORDER BY mf.message_id, f.file_index, mf.rowid`,
      )
      .all(JSON.stringify(messageIds)) as { message_id: string; file_id: string }[];
    for (const row of rows) out.set(row.message_id, [...(out.get(row.message_id) ?? []), row.file_id]);
    return out;
  }

  /** The bookmark table and the legacy lists of `user.data.bookmarks`, as one (§4.8), oldest first. */
  private async importBookmarks(): Promise<void> {
    const body = `SELECT * FROM (
        SELECT b.user_id || ':' || b.message_id || ':' || printf('%020d', b.created_at) || ':' || b.id AS sort_key,
          b.id AS zusam_id, b.user_id, b.message_id, b.created_at FROM bookmark b
          WHERE b.user_id IS NOT NULL AND b.message_id IS NOT NULL
        UNION ALL
        SELECT u.id || ':' || j.value || ':' || printf('%020d', 0) || ':legacy' AS sort_key, 'legacy:' || u.id || ':' || j.value,
          u.id, j.value, u.created_at
        FROM "user" u, json_each(CASE WHEN json_valid(u.data) AND json_type(u.data, '$.bookmarks') = 'array'
          THEN json_extract(u.data, '$.bookmarks') ELSE '[]' END) j
        WHERE json_valid(u.data) AND j.type = 'text')`;
    for (const rows of this.pages(body, 'sort_key')) {
      const pairs = rows.map((r) => `${String(r.user_id)}:${String(r.message_id)}`);
      const done = await this.mapped('bookmarks', pairs);
      const users = await this.mapped(
        'users',
        rows.map((r) => String(r.user_id)),
      );
      const messages = await this.mapped(
        'messages',
        rows.map((r) => String(r.message_id)),
      );
      await transaction(this.ctx, async (tx) => {
        for (const [index, row] of rows.entries()) {
          const pair = pairs[index] ?? '';
          const zusamId = String(row.zusam_id);
          if (this.bookmarkedNow.has(pair)) {
            this.skip('bookmarks', zusamId, 'a duplicate of a bookmark already imported');
            continue;
          }
          if (done.has(pair)) {
            this.report.counts.bookmarks.alreadyThere += 1;
            continue;
          }
          const userId = users.get(String(row.user_id));
          const messageId = messages.get(String(row.message_id));
          if (userId === undefined || messageId === undefined) {
            this.skip('bookmarks', zusamId, userId === undefined ? 'its user is gone' : 'its message is gone');
            continue;
          }
          await tx
            .insertInto('bookmarks')
            .values({ id: newId(), user_id: userId, message_id: messageId, created_at: ms(row.created_at, 0) })
            .onConflict((oc) => oc.doNothing())
            .execute();
          await this.remember(tx, 'bookmarks', pair, `${userId}:${messageId}`);
          this.bookmarkedNow.add(pair);
          this.report.counts.bookmarks.imported += 1;
        }
      });
      this.tell('bookmarks', false);
    }
    this.tell('bookmarks', true);
  }

  private async importReactions(): Promise<void> {
    for (const rows of this.pages('SELECT id, author_id, message_id, created_at, value FROM reaction', 'id')) {
      const done = await this.mapped(
        'reactions',
        rows.map((r) => String(r.id)),
      );
      const users = await this.mapped(
        'users',
        rows.map((r) => String(r.author_id)),
      );
      const messages = await this.mapped(
        'messages',
        rows.map((r) => String(r.message_id)),
      );
      await transaction(this.ctx, async (tx) => {
        for (const row of rows) {
          const zusamId = String(row.id);
          if (done.has(zusamId)) {
            this.report.counts.reactions.alreadyThere += 1;
            continue;
          }
          const userId = users.get(String(row.author_id));
          const messageId = messages.get(String(row.message_id));
          const emoji = typeof row.value === 'string' ? row.value : '';
          if (userId === undefined || messageId === undefined || emoji === '') {
            this.skip(
              'reactions',
              zusamId,
              userId === undefined
                ? 'its author is gone'
                : messageId === undefined
                  ? 'its message is gone'
                  : 'no emoji',
            );
            continue;
          }
          await tx
            .insertInto('reactions')
            .values({ id: newId(), message_id: messageId, user_id: userId, emoji, created_at: ms(row.created_at, 0) })
            .onConflict((oc) => oc.doNothing())
            .execute();
          await this.remember(tx, 'reactions', zusamId, messageId);
          this.report.counts.reactions.imported += 1;
        }
      });
      this.tell('reactions', false);
    }
    this.tell('reactions', true);
  }
}

/** Opens a Zusam database read-only, refusing what is not one. */
function openZusam(dbPath: string): Database.Database {
  if (!existsSync(dbPath) || !statSync(dbPath).isFile()) throw new CliError(`--db: no file at ${dbPath}`);
  let source: Database.Database;
  try {
    source = new Database(dbPath, { readonly: true, fileMustExist: true });
    const tables = new Set(
      (source.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map(
        (t) => t.name,
      ),
    );
    const needed = ['user', 'group', 'users_groups', 'message', 'messages_files', 'file', 'bookmark'];
    const missing = needed.filter((t) => !tables.has(t));
    if (missing.length > 0) {
      source.close();
      throw new CliError(`--db: ${dbPath} is not a Zusam 0.5 or 0.6 database (no table ${missing.join(', ')})`);
    }
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`--db: ${dbPath} is not an SQLite database`);
  }
  return source;
}

/**
 * Imports a Zusam instance (its SQLite database and files folder) into this Kith instance;
 * answers the report of what was imported, already there, or left out and why.
 */
export async function importZusam(
  ctx: AppContext,
  request: ImportZusamRequest,
  progress: (line: string) => void,
): Promise<ImportReport> {
  if (!existsSync(request.filesDir) || !statSync(request.filesDir).isDirectory())
    throw new CliError(`--files: no folder at ${request.filesDir}`);
  const source = openZusam(request.dbPath);
  try {
    const tables = source.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'reaction'`).get();
    // The reaction table came with 0.6.0 (§4.13).
    const version = tables === undefined ? '0.5' : '0.6';
    progress(`Importing a Zusam ${version} instance from ${request.dbPath}\n`);
    return await new Importer(ctx, source, request, progress, version).run();
  } finally {
    source.close();
  }
}
