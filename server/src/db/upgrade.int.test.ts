import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { pino } from 'pino';
import { describe, expect, inject, it } from 'vitest';
import { ApiClient } from '../../test/client.js';
import { TEST_DIALECT } from '../../test/harness.js';
import { dropDatabase, TEST_DB_PREFIX, urlForDatabase, withAdmin } from '../../test/postgres.js';
import { buildApp } from '../app.js';
import { loadConfig, type Config } from '../config.js';
import { newId } from '../lib/ids.js';
import { hashPassword } from '../lib/passwords.js';
import { randomToken, SecretBox, sha256 } from '../lib/secrets.js';
import { closeContext, createContext } from '../setup.js';
import { openDatabase, type Db } from './database.js';
import { appliedMigrations, MIGRATION_NAMES, migrateTo, migrateToLatest, NewerDatabaseError } from './migrate.js';
import { runCli } from '../cli/main.js';

// Upgrades (docs/operations.md, "Upgrades"): a database of any earlier release starts on the
// current code, which migrates it in one go, and everything it held is still there. For every step
// k, a database is built as the releases up to migration k left it: migration 1, then the rows that
// step introduced, migration 2, its rows, and so on, so each migration runs over the data of the
// steps before it. Then the current server starts on it (createContext: what main.ts and the CLI
// run) and the data is read back through the API. A migration added later without a seeder is
// still run here over everything seeded before it.

const SECRET = 'upgrade-secret-upgrade-secret-upgrade-42';
const PASSWORD = 'correct horse battery';

/** The tables as each step had them: the test writes rows without the current schema's types. */
type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

/** The ids and keys the seeders write and the checks read back. */
interface World {
  now: number;
  passwordHash: string;
  alice: { id: string; login: string; key: string };
  bob: { id: string; login: string; key: string };
  /** A member only from the step that converts notifications (0024) on. */
  carol: { id: string; login: string; key: string };
  group: string;
  notification: string;
  post: string;
  comment: string;
  filePost: string;
  file: string;
  mentionPost: string;
  subscription: string;
  /** The posts on the group page (front messages) seeded so far. */
  frontPosts: string[];
}

async function newWorld(): Promise<World> {
  const person = (name: string) => ({ id: newId(), login: `${name}-${newId()}@example.org`, key: randomToken() });
  return {
    now: Date.now() - 60_000,
    passwordHash: await hashPassword(PASSWORD),
    alice: person('alice'),
    bob: person('bob'),
    carol: person('carol'),
    group: newId(),
    notification: newId(),
    post: newId(),
    comment: newId(),
    filePost: newId(),
    file: newId(),
    mentionPost: newId(),
    subscription: newId(),
    frontPosts: [],
  };
}

const box = new SecretBox(SECRET);

/** A message row as migration 0002 defined it. */
function messageRow(w: World, id: string, author: string, text: string, parent?: string) {
  return {
    id,
    group_id: w.group,
    author_id: author,
    parent_id: parent ?? null,
    root_id: parent ?? id,
    lineage: JSON.stringify(parent === undefined ? [] : [parent]),
    title: null,
    text,
    no_embed: null,
    created_at: w.now,
    last_activity_date: w.now,
    is_in_front: parent === undefined ? 1 : 0,
    is_deleted: 0,
    public_token: null,
  };
}

/**
 * What each step brought, written with the columns that step had. Steps that only changed indexes
 * or derived data (search, counts, job hand-overs) have none: the rows of earlier steps go through
 * them.
 */
const SEEDERS: Record<string, (db: AnyDb, w: World) => Promise<void>> = {
  '0001_initial': async (db, w) => {
    await db.insertInto('kith_meta').values({ key: 'upgrade-test', value: 'kept' }).execute();
    const user = (u: World['alice'], name: string) => ({
      id: u.id,
      login: u.login,
      name,
      password_hash: w.passwordHash,
      api_key_hash: sha256(u.key),
      api_key_enc: box.seal(u.key),
      api_key_version: 1,
      avatar_id: null,
      default_group_id: w.group,
      notification_emails: 'daily',
      lang: 'fr_FR',
      created_at: w.now,
      last_activity_date: w.now,
    });
    await db
      .insertInto('users')
      .values([user(w.alice, 'Alice Upgrade'), user(w.bob, 'Bob Upgrade')])
      .execute();
    await db
      .insertInto('groups')
      .values({
        id: w.group,
        name: 'Family',
        secret_key: newId(),
        created_at: w.now,
        last_activity_date: w.now,
        emptied_at: null,
      })
      .execute();
    await db
      .insertInto('memberships')
      .values([
        { group_id: w.group, user_id: w.alice.id, joined_at: w.now },
        { group_id: w.group, user_id: w.bob.id, joined_at: w.now + 1 },
      ])
      .execute();
    await db
      .insertInto('notifications')
      .values({
        id: w.notification,
        user_id: w.bob.id,
        type: 'global_notification',
        created_at: w.now,
        read: 0,
        target: '/',
        data: JSON.stringify({ text: 'Welcome back' }),
        from_user_id: null,
        from_group_id: null,
        from_message_id: null,
        title: '',
      })
      .execute();
    await db
      .insertInto('password_reset_keys')
      .values({
        id: newId(),
        user_id: w.bob.id,
        key_hash: sha256(randomToken()),
        created_at: w.now,
        expires_at: w.now + 3_600_000,
        used_at: null,
      })
      .execute();
  },
  '0002_messages': async (db, w) => {
    await db
      .insertInto('messages')
      .values([
        messageRow(w, w.post, w.alice.id, 'The hedgehog came back to the garden'),
        messageRow(w, w.comment, w.bob.id, 'So glad to hear it', w.post),
      ])
      .execute();
    w.frontPosts.push(w.post);
    await db
      .insertInto('bookmarks')
      .values({ id: newId(), user_id: w.bob.id, message_id: w.post, created_at: w.now })
      .execute();
  },
  '0005_files': async (db, w) => {
    await db
      .insertInto('files')
      .values({
        id: w.file,
        uploader_id: w.alice.id,
        type: 'image/png',
        kind: 'image',
        status: 'ready',
        size: 1234,
        name: 'garden.png',
        storage_key: `files/${w.file}`,
        ext: 'png',
        width: 10,
        height: 10,
        progress: null,
        error: null,
        created_at: w.now,
        updated_at: w.now,
      })
      .execute();
    await db
      .insertInto('messages')
      .values(messageRow(w, w.filePost, w.alice.id, 'A photo of it'))
      .execute();
    w.frontPosts.push(w.filePost);
    await db.insertInto('message_files').values({ message_id: w.filePost, file_id: w.file, position: 0 }).execute();
  },
  '0006_links': async (db, w) => {
    await db
      .insertInto('links')
      .values({
        id: newId(),
        url: 'https://example.org/hedgehogs',
        data: JSON.stringify({ title: 'Hedgehogs' }),
        preview_file_id: null,
        updated_at: w.now,
        failed: 0,
      })
      .execute();
  },
  '0007_jobs': async (db, w) => {
    await db
      .insertInto('jobs')
      .values({
        id: newId(),
        name: 'link-preview',
        payload: JSON.stringify({ url: 'https://example.org/hedgehogs' }),
        status: 'failed',
        attempts: 3,
        max_attempts: 3,
        run_after: w.now,
        locked_until: null,
        last_error: 'unreachable',
        created_at: w.now,
        updated_at: w.now,
      })
      .execute();
  },
  '0008_digests': async (db, w) => {
    await db.insertInto('digest_runs').values({ frequency: 'daily', slot: w.now }).execute();
    await db.updateTable('notifications').set({ emailed_at: w.now }).where('id', '=', w.notification).execute();
  },
  '0012_user_theme': async (db, w) => {
    await db.updateTable('users').set({ theme: 'dark' }).where('id', '=', w.alice.id).execute();
  },
  '0014_reactions': async (db, w) => {
    await db
      .insertInto('reactions')
      .values({ id: newId(), message_id: w.post, user_id: w.bob.id, emoji: '🦔', created_at: w.now })
      .execute();
  },
  '0015_pins': async (db, w) => {
    await db.updateTable('messages').set({ pin_order: 1 }).where('id', '=', w.post).execute();
  },
  '0017_all_groups_feed': async (db, w) => {
    await db.updateTable('users').set({ default_page: 'feed' }).where('id', '=', w.alice.id).execute();
  },
  '0018_push': async (db, w) => {
    await db
      .updateTable('users')
      .set({ push_notifications: 'mentions_replies', quiet_hours: '22:00-07:00', time_zone: 'Europe/Paris' })
      .where('id', '=', w.alice.id)
      .execute();
    await db
      .insertInto('push_subscriptions')
      .values({
        id: w.subscription,
        user_id: w.alice.id,
        endpoint: 'https://push.example.org/send/abc',
        p256dh: 'BPq0aXoH3RXQWbLTwWWkgUKWbUE9M5PXLMBN3W-N-_jb6lStbtBHUkt2tOcMFyHgeQfy2RDddsdvMuvSbQFuD2o',
        auth: 'FPssNDTKnInHVndSTdbKFw',
        label: 'Phone',
        created_at: w.now,
        last_push_at: null,
        failures: 0,
      })
      .execute();
  },
  '0019_mentions': async (db, w) => {
    await db
      .insertInto('messages')
      .values(messageRow(w, w.mentionPost, w.bob.id, '@Alice Upgrade look at this'))
      .execute();
    w.frontPosts.push(w.mentionPost);
    await db
      .insertInto('mentions')
      .values({ message_id: w.mentionPost, user_id: w.alice.id, written_name: 'Alice Upgrade', position: 0 })
      .execute();
  },
  '0020_mail_replies': async (db, w) => {
    await db
      .insertInto('reply_addresses')
      .values({ id: newId(), user_id: w.alice.id, message_id: w.post, expires_at: w.now + 86_400_000 })
      .execute();
  },
  // Group-wide notifications as one row per member, converted by 0024 into one event each.
  '0023_zusam_import': async (db, w) => {
    const row = (user: string, type: string, at: number, extra: Record<string, unknown>) => ({
      id: newId(),
      user_id: user,
      type,
      created_at: w.now + at,
      read: 0,
      target: w.post,
      data: '{}',
      from_user_id: w.alice.id,
      from_group_id: w.group,
      from_message_id: w.post,
      title: 'Upgrade',
      emailed_at: null,
      ...extra,
    });
    // Carol, a third member, kept the post's notification and deleted the comment's: the event of
    // the comment reaches her by the rule, so the upgrade must write her a `deleted` state for it.
    await db
      .insertInto('users')
      .values({
        id: w.carol.id,
        login: w.carol.login,
        name: 'Carol Upgrade',
        password_hash: w.passwordHash,
        api_key_hash: sha256(w.carol.key),
        api_key_enc: box.seal(w.carol.key),
        api_key_version: 1,
        avatar_id: null,
        default_group_id: w.group,
        notification_emails: 'none',
        lang: 'en_US',
        created_at: w.now,
        last_activity_date: w.now,
      })
      .execute();
    await db
      .insertInto('memberships')
      .values({ group_id: w.group, user_id: w.carol.id, joined_at: w.now + 2 })
      .execute();
    await db
      .insertInto('notifications')
      .values([
        row(w.bob.id, 'new_message', 10, { read: 1, emailed_at: w.now + 11 }),
        row(w.bob.id, 'new_comment', 20, { target: w.comment }),
        row(w.carol.id, 'new_message', 10, {}),
      ])
      .execute();
  },
};

/**
 * What each seeder's rows look like through the current API (or, for rows no member reads, in the
 * database), once the current server has migrated them.
 */
const CHECKS: Record<string, (api: ApiClient, db: AnyDb, w: World) => Promise<void>> = {
  '0001_initial': async (api, db, w) => {
    // The password still signs in, and login hands back the same key (stored sealed with the secret).
    const login = await api.post('/login', { body: { login: w.alice.login, password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    expect(login.body.api_key).toBe(w.alice.key);
    const me = await api.get('/me', { key: w.alice.key });
    expect(me.status, me.text).toBe(200);
    expect(me.body.name).toBe('Alice Upgrade');
    expect(me.body.data.lang).toBe('fr_FR');
    expect(me.body.data.notification_emails).toBe('daily');
    expect(me.body.groups.map((g: { id: string }) => g.id)).toEqual([w.group]);
    const group = await api.get(`/groups/${w.group}`, { key: w.bob.key });
    expect(group.body.name).toBe('Family');
    const notifications = await api.get('/me/notifications', { key: w.bob.key });
    expect(notifications.status, notifications.text).toBe(200);
    expect(notifications.body.map((n: { id: string }) => n.id)).toContain(w.notification);
    const meta = await db.selectFrom('kith_meta').select('value').where('key', '=', 'upgrade-test').executeTakeFirst();
    expect(meta?.value).toBe('kept');
  },
  '0002_messages': async (api, db, w) => {
    const post = await api.get(`/messages/${w.post}`, { key: w.bob.key });
    expect(post.status, post.text).toBe(200);
    expect(post.body.data.text).toBe('The hedgehog came back to the garden');
    expect(post.body.children.map((c: { id: string }) => c.id)).toEqual([w.comment]);
    const comment = await api.get(`/messages/${w.comment}`, { key: w.alice.key });
    expect(comment.body.data.text).toBe('So glad to hear it');
    const bookmarks = await api.get('/me/bookmarks', { key: w.bob.key });
    expect(bookmarks.status, bookmarks.text).toBe(200);
    expect(JSON.stringify(bookmarks.body)).toContain(w.post);
    // Messages written before the search index existed were indexed by its migration.
    const search = await api.post('/messages/search', { key: w.bob.key, body: { group: w.group, search: 'hedgehog' } });
    expect(search.status, search.text).toBe(200);
    expect(JSON.stringify(search.body)).toContain(w.post);
    // Author names joined the index later (0004): the author's name finds the message too.
    const byAuthor = await api.post('/messages/search', { key: w.bob.key, body: { group: w.group, search: 'alice' } });
    expect(JSON.stringify(byAuthor.body)).toContain(w.post);
    // 0030 wrote the index again in slices, all in the newest window, and counted the group's
    // messages (no fewer than its rows: a check before this one may have posted).
    expect(search.body.older).toBeNull();
    const { messages_posted } = await db
      .selectFrom('groups')
      .select('messages_posted')
      .where('id', '=', w.group)
      .executeTakeFirstOrThrow();
    const { n } = await db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('group_id', '=', w.group)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBeGreaterThan(0);
    expect(Number(messages_posted)).toBeGreaterThanOrEqual(Number(n));
  },
  '0005_files': async (api, _db, w) => {
    const file = await api.get(`/files/${w.file}`, { key: w.bob.key });
    expect(file.status, file.text).toBe(200);
    expect(file.body.id).toBe(w.file);
    const post = await api.get(`/messages/${w.filePost}`, { key: w.bob.key });
    expect(post.body.files.map((f: { id: string }) => f.id)).toEqual([w.file]);
  },
  '0006_links': async (_api, db) => {
    const link = await db
      .selectFrom('links')
      .select('data')
      .where('url', '=', 'https://example.org/hedgehogs')
      .executeTakeFirst();
    expect(JSON.parse(String(link?.data))).toEqual({ title: 'Hedgehogs' });
  },
  '0007_jobs': async (_api, db) => {
    const jobs = await db.selectFrom('jobs').select(['name', 'status']).where('name', '=', 'link-preview').execute();
    expect(jobs).toEqual([{ name: 'link-preview', status: 'failed' }]);
  },
  '0008_digests': async (_api, db, w) => {
    const run = await db.selectFrom('digest_runs').select('slot').where('frequency', '=', 'daily').executeTakeFirst();
    expect(Number(run?.slot)).toBe(w.now);
    const notification = await db
      .selectFrom('notifications')
      .select('emailed_at')
      .where('id', '=', w.notification)
      .executeTakeFirst();
    expect(Number(notification?.emailed_at)).toBe(w.now);
  },
  '0012_user_theme': async (api, _db, w) => {
    expect((await api.get('/me', { key: w.alice.key })).body.data.theme).toBe('dark');
  },
  '0014_reactions': async (api, _db, w) => {
    const reactions = await api.get(`/messages/${w.post}/reactions`, { key: w.alice.key });
    expect(reactions.status, reactions.text).toBe(200);
    expect(JSON.stringify(reactions.body)).toContain('🦔');
    expect(JSON.stringify(reactions.body)).toContain(w.bob.id);
  },
  '0015_pins': async (api, _db, w) => {
    expect((await api.get(`/messages/${w.post}`, { key: w.alice.key })).body.pinnedInGroup).toBe(true);
  },
  '0017_all_groups_feed': async (api, _db, w) => {
    expect((await api.get('/me', { key: w.alice.key })).body.data.default_page).toBe('feed');
  },
  '0018_push': async (api, _db, w) => {
    const list = await api.get('/me/push-subscriptions', { key: w.alice.key });
    expect(list.status, list.text).toBe(200);
    expect(list.body.subscriptions.map((s: { id: string }) => s.id)).toEqual([w.subscription]);
    expect((await api.get('/me', { key: w.alice.key })).body.data.push_notifications).toBe('mentions_replies');
  },
  '0019_mentions': async (api, _db, w) => {
    const post = await api.get(`/messages/${w.mentionPost}`, { key: w.alice.key });
    expect(JSON.stringify(post.body.mentions)).toContain(w.alice.id);
  },
  '0020_mail_replies': async (_api, db, w) => {
    const rows = await db
      .selectFrom('reply_addresses')
      .select('message_id')
      .where('user_id', '=', w.alice.id)
      .execute();
    expect(rows).toEqual([{ message_id: w.post }]);
  },
  '0023_zusam_import': async (api, db, w) => {
    const list = (await api.get('/me/notifications?include=reactions,mentions', { key: w.bob.key })).body as {
      type: string;
      read: boolean;
      target: string;
    }[];
    const grouped = list.filter((n) => n.type === 'new_message' || n.type === 'new_comment');
    expect(grouped.map((n) => [n.type, n.read, n.target])).toEqual([
      ['new_comment', false, w.comment],
      ['new_message', true, w.post],
    ]);
    const events = await db
      .selectFrom('notification_events')
      .select(['type', 'actor_id'])
      .orderBy('created_at')
      .execute();
    expect(events).toEqual([
      { type: 'new_message', actor_id: w.alice.id },
      { type: 'new_comment', actor_id: w.alice.id },
    ]);
    const rows = await db
      .selectFrom('notifications')
      .select('type')
      .where('type', 'in', ['new_message', 'new_comment'])
      .execute();
    expect(rows).toEqual([]);
    const states = await db
      .selectFrom('notification_states')
      .innerJoin('notification_events', 'notification_events.id', 'notification_states.event_id')
      .select(['user_id', 'type', 'read', 'deleted', 'emailed_at'])
      .orderBy('type')
      .execute();
    expect(
      states.map((st) => [
        st.user_id,
        st.type,
        st.read,
        Number(st.deleted),
        st.emailed_at === null ? null : Number(st.emailed_at),
      ]),
    ).toEqual([
      [w.carol.id, 'new_comment', null, 1, null],
      [w.bob.id, 'new_message', 1, 0, w.now + 11],
    ]);
    // Carol still has the post's notification, unread, and never sees the one she deleted.
    const carols = (await api.get('/me/notifications', { key: w.carol.key })).body as { type: string; read: boolean }[];
    expect(carols.map((n) => [n.type, n.read])).toEqual([['new_message', false]]);
    // Alice is the actor: neither reaches her.
    const hers = (await api.get('/me/notifications', { key: w.alice.key })).body as { type: string }[];
    expect(hers.filter((n) => n.type === 'new_message' || n.type === 'new_comment')).toEqual([]);
  },
};

/** An empty database of the engine under test, of this test's own. */
async function emptyDatabase(): Promise<{
  db: Db;
  env: Record<string, string>;
  dataDir: string;
  remove: () => Promise<void>;
}> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kith-upgrade-'));
  if (TEST_DIALECT === 'postgres') {
    const run = inject('postgresTemplate').split('_')[2];
    const name = `${TEST_DB_PREFIX}${run}_up${randomToken()
      .slice(0, 8)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`;
    await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
    const url = urlForDatabase(name);
    return {
      db: openDatabase({ kind: 'postgres', url }),
      env: { DATABASE_URL: url },
      dataDir,
      remove: async () => {
        await withAdmin((client) => dropDatabase(client, name));
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  return {
    db: openDatabase({ kind: 'sqlite', file: path.join(dataDir, 'kith.db') }),
    env: {},
    dataDir,
    remove: () => {
      rmSync(dataDir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

function configFor(dataDir: string, env: Record<string, string>): Config {
  return loadConfig({
    DATA_DIR: dataDir,
    SECRET_KEY: SECRET,
    PUBLIC_URL: 'http://kith.test',
    LOG_LEVEL: 'silent',
    WEB_DIST: path.join(dataDir, 'no-web-dist'),
    LINK_PREVIEWS: 'false',
    ...env,
  });
}

describe('upgrading a database of any earlier release in one start', () => {
  it('has a seeder and a check only for migrations that exist', () => {
    for (const name of [...Object.keys(SEEDERS), ...Object.keys(CHECKS)]) expect(MIGRATION_NAMES).toContain(name);
    expect(Object.keys(CHECKS).sort()).toEqual(Object.keys(SEEDERS).sort());
  });

  it.each(MIGRATION_NAMES.map((name, index) => ({ name, step: index + 1 })))(
    'from the schema of $name (step $step)',
    { timeout: 60_000 },
    async ({ step }) => {
      const w = await newWorld();
      const store = await emptyDatabase();
      const seeded: string[] = [];
      try {
        // The releases up to this step, one after the other, each writing what it introduced.
        for (const name of MIGRATION_NAMES.slice(0, step)) {
          await migrateTo(store.db, name);
          const seed = SEEDERS[name];
          if (seed !== undefined) {
            await seed(store.db.kysely as unknown as AnyDb, w);
            seeded.push(name);
          }
        }
        await store.db.close();

        // The current server starts on it: createContext migrates, as main.ts does.
        const ctx = await createContext(configFor(store.dataDir, store.env), { log: pino({ level: 'silent' }) });
        const app = await buildApp(ctx);
        try {
          await app.ready();
          const migrated = ctx.db.kysely as unknown as AnyDb;
          const applied = await migrated.selectFrom('kith_migrations').select('name').orderBy('name').execute();
          expect(applied.map((row) => row.name)).toEqual([...MIGRATION_NAMES].sort());
          const api = new ApiClient(app);
          for (const name of seeded) await CHECKS[name]?.(api, migrated, w);
          // The group page counts its front messages (kept by triggers since 0009, counted there once).
          const page = await api.get(`/groups/${w.group}/page/0`, { key: w.alice.key });
          if (seeded.includes('0001_initial')) {
            expect(page.status, page.text).toBe(200);
            expect(page.body.totalItems).toBe(w.frontPosts.length);
          }
        } finally {
          await app.close();
          await ctx.jobs.stop();
          await closeContext(ctx);
        }
      } finally {
        await store.remove();
      }
    },
  );
});

describe('an upgrade that fails part of the way', () => {
  it('leaves the database as it was, and the next start does the whole upgrade', { timeout: 60_000 }, async () => {
    const store = await emptyDatabase();
    try {
      await migrateTo(store.db, '0022_exports');
      const db = store.db.kysely as unknown as AnyDb;
      // 0023 creates zusam_imports; 0024 then fails on a table in its way.
      await sql`create table notification_events (in_the_way integer)`.execute(store.db.kysely);
      await expect(migrateToLatest(store.db)).rejects.toThrow(/0024_notification_events/);
      const tables = async () =>
        (await store.db.kysely.introspection.getTables())
          .map((table) => table.name)
          .filter((name) => name === 'zusam_imports' || name === 'notification_states')
          .sort();
      // Nothing of 0023 nor of 0024 stayed, and neither is recorded: the next start can begin again.
      expect(await tables()).toEqual([]);
      const recorded = await db.selectFrom('kith_migrations').select('name').orderBy('name').execute();
      expect(recorded.map((row) => row.name).at(-1)).toBe('0022_exports');

      await sql`drop table notification_events`.execute(store.db.kysely);
      await migrateToLatest(store.db);
      expect(await tables()).toEqual(['notification_states', 'zusam_imports']);
      expect(await appliedMigrations(store.db)).toEqual([...MIGRATION_NAMES].sort());
    } finally {
      await store.db.close();
      await store.remove();
    }
  });
});

describe('a database from a newer Kith', () => {
  const FUTURE = '9999_from_a_newer_kith';
  const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');

  /** What the refusal must leave as it was: the migrations recorded, the lock, the accounts. */
  const snapshot = async (db: AnyDb) => ({
    migrations: await db.selectFrom('kith_migrations').selectAll().orderBy('name').execute(),
    lock: await db.selectFrom('kith_migrations_lock').selectAll().execute(),
    users: await db.selectFrom('users').select(['id', 'login', 'name']).orderBy('id').execute(),
  });

  it(
    'is refused by the server, the CLI and createContext, with a clear message, untouched',
    { timeout: 60_000 },
    async () => {
      const w = await newWorld();
      const store = await emptyDatabase();
      try {
        await migrateTo(store.db, MIGRATION_NAMES.at(-1) ?? '');
        const db = store.db.kysely as unknown as AnyDb;
        await SEEDERS['0001_initial']?.(db, w);
        await db.insertInto('kith_migrations').values({ name: FUTURE, timestamp: new Date().toISOString() }).execute();
        const before = await snapshot(db);
        const config = configFor(store.dataDir, store.env);

        // The start-up path itself.
        const refusal = await createContext(config, { log: pino({ level: 'silent' }) }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refusal).toBeInstanceOf(NewerDatabaseError);
        expect((refusal as Error).message).toContain('newer version of Kith');
        expect((refusal as Error).message).toContain(FUTURE);
        expect((refusal as Error).message).not.toMatch(/corrupted/i);

        // An admin command.
        const env = { DATA_DIR: store.dataDir, SECRET_KEY: SECRET, PUBLIC_URL: 'http://kith.test', ...store.env };
        let stdout = '';
        let stderr = '';
        const code = await runCli(['create-user', '--email', 'new@example.org', '--password', 'password123'], {
          stdout: (text) => (stdout += text),
          stderr: (text) => (stderr += text),
          env,
        });
        expect(code).toBe(1);
        expect(stdout).toBe('');
        expect(stderr).toContain('newer version of Kith');
        expect(stderr).toContain(FUTURE);

        // The server process (npm start): a message on stderr, no stack, a non-zero exit.
        const child = spawn(process.execPath, [path.join(repoRoot, 'server', 'dist', 'main.js')], {
          cwd: repoRoot,
          env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
        });
        let childErr = '';
        child.stderr.on('data', (chunk: Buffer) => (childErr += chunk.toString()));
        const exitCode = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
        expect(exitCode, childErr).toBe(1);
        expect(childErr).toContain('Kith cannot start: This database was upgraded by a newer version of Kith');
        expect(childErr).toContain(FUTURE);
        expect(childErr).not.toMatch(/\n\s+at /);

        expect(await snapshot(db)).toEqual(before);
      } finally {
        await store.db.close();
        await store.remove();
      }
    },
  );
});
